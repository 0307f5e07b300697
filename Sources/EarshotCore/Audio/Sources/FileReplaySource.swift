import Foundation

/// Plays a recording into a live pipeline, paced at real time when asked (for demos and latency tests)
/// or as fast as it can be consumed.
public struct FileReplaySource: AudioSource {
    public let name: String
    private let audio: AudioBuffer
    private let realtime: Bool
    private let chunkSeconds: Double

    /// Replays audio already decoded (so a caller that checked the file does not decode it twice).
    public init(audio: AudioBuffer, name: String, realtime: Bool, chunkSeconds: Double = 0.1) {
        self.audio = audio
        self.name = name
        self.realtime = realtime
        self.chunkSeconds = chunkSeconds
    }

    /// Decodes `path` now, so a bad file is reported before anything listens.
    public init(path: String, realtime: Bool, chunkSeconds: Double = 0.1) throws {
        self.init(audio: try AudioFileLoader().load(path: path), name: path, realtime: realtime, chunkSeconds: chunkSeconds)
    }

    public func chunks(sampleRate: Int) -> AsyncThrowingStream<[Float], Error> {
        let (source, realtime, chunkSeconds) = (audio, self.realtime, self.chunkSeconds)
        return threadedStream { yield, keepGoing in
            let audio = source.sampleRate == sampleRate ? source : try Resampler.resample(source, to: sampleRate)
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
