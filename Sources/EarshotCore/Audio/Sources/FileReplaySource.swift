import Foundation

/// Plays a recording into a live pipeline, paced at real time when asked (for demos and latency tests)
/// or as fast as it can be consumed.
public struct FileReplaySource: AudioSource {
    public let name: String
    private let content: Content
    private let realtime: Bool
    private let chunkSeconds: Double

    private enum Content: Sendable {
        case decoded(AudioBuffer)
        /// Read a block at a time while it plays, so a long recording needs no more memory than a short one.
        case file(String)
    }

    /// Replays audio already decoded (so a caller that checked the file does not decode it twice).
    public init(audio: AudioBuffer, name: String, realtime: Bool, chunkSeconds: Double = 0.1) {
        self.init(content: .decoded(audio), name: name, realtime: realtime, chunkSeconds: chunkSeconds)
    }

    /// Opens `path` now, so a missing, unreadable or mislabelled file is reported before anything listens;
    /// its samples are read as it plays.
    public init(path: String, realtime: Bool, chunkSeconds: Double = 0.1) throws {
        _ = try AudioFileStream(path: path, sampleRate: 16_000)
        self.init(content: .file(path), name: path, realtime: realtime, chunkSeconds: chunkSeconds)
    }

    private init(content: Content, name: String, realtime: Bool, chunkSeconds: Double) {
        self.content = content
        self.name = name
        self.realtime = realtime
        self.chunkSeconds = chunkSeconds
    }

    public func chunks(sampleRate: Int) -> AsyncThrowingStream<[Float], Error> {
        let (content, realtime, chunkSeconds) = (self.content, self.realtime, self.chunkSeconds)
        return threadedStream { yield, keepGoing in
            let next: () throws -> [Float]?
            switch content {
            case let .decoded(source):
                let audio = source.sampleRate == sampleRate ? source : try Resampler.resample(source, to: sampleRate)
                next = audio.blockReader(size: sampleRate)  // a second at a time, so taking chunks off the front stays cheap
            case let .file(path):
                next = try AudioFileStream(path: path, sampleRate: sampleRate).read
            }
            let step = max(1, Int(Double(sampleRate) * chunkSeconds))
            let start = Date()
            var played = 0
            var pending: [Float] = []
            var ended = false
            while keepGoing() {
                while pending.count < step && !ended {
                    if let block = try next() { pending += block } else { ended = true }
                }
                if pending.isEmpty { break }
                let chunk = Array(pending.prefix(step))
                pending.removeFirst(chunk.count)
                played += chunk.count
                if realtime {  // release each chunk when its last sample would have been heard
                    let due = Double(played) / Double(sampleRate) - Date().timeIntervalSince(start)
                    if due > 0 { Thread.sleep(forTimeInterval: due) }
                }
                yield(chunk)
            }
        }
    }
}
