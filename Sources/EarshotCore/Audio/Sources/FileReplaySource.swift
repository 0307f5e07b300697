import Foundation

/// Plays a file into a live pipeline, paced at real time when asked (for demos and latency tests)
/// or as fast as it can be consumed.
public struct FileReplaySource: AudioSource {
    public let name: String
    private let path: String
    private let realtime: Bool
    private let chunkSeconds: Double

    public init(path: String, realtime: Bool, chunkSeconds: Double = 0.1) {
        self.path = path
        self.name = path
        self.realtime = realtime
        self.chunkSeconds = chunkSeconds
    }

    public func chunks(sampleRate: Int) -> AsyncThrowingStream<[Float], Error> {
        let (path, realtime, chunkSeconds) = (self.path, self.realtime, self.chunkSeconds)
        return threadedStream { yield, keepGoing in
            let audio = try AudioFileLoader(sampleRate: sampleRate).load(path: path)
            let step = max(1, Int(Double(sampleRate) * chunkSeconds))
            let start = Date()
            var position = 0
            while position < audio.samples.count && keepGoing() {
                let end = min(audio.samples.count, position + step)
                if realtime {  // release each chunk when its last sample would have been heard
                    let due = Double(end) / Double(sampleRate) - Date().timeIntervalSince(start)
                    if due > 0 { Thread.sleep(forTimeInterval: due) }
                }
                yield(Array(audio.samples[position..<end]))
                position = end
            }
        }
    }
}
