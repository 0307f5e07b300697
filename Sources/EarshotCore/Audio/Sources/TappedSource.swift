import Foundation

/// A live source whose last `seconds` of audio can be read back while it plays: what was said in a stretch
/// that has just ended (to ask whose voice it was), without a second pass over the stream. Mono samples at the
/// rate the consumer asked for, indexed from the start of the stream.
public final class TappedSource: AudioSource {
    public let source: any AudioSource
    public var name: String { source.name }
    private let seconds: Double
    private let held = Locked<(samples: [Float], first: Int, rate: Int)>(([], 0, 16_000))

    public init(_ source: any AudioSource, keeping seconds: Double = 60) {
        self.source = source
        self.seconds = seconds
    }

    public func chunks(sampleRate: Int) -> AsyncThrowingStream<[Float], Error> {
        held.withLock { $0 = ([], 0, sampleRate) }
        let upstream = source.chunks(sampleRate: sampleRate)
        let held = self.held, keep = Int(seconds * Double(sampleRate))
        return AsyncThrowingStream { continuation in
            let task = Task {
                do {
                    for try await chunk in upstream {
                        held.withLock { h in
                            h.samples += chunk
                            let extra = h.samples.count - keep
                            if extra > keep / 4 {  // trimmed now and then, not on every chunk
                                h.samples.removeFirst(extra)
                                h.first += extra
                            }
                        }
                        continuation.yield(chunk)
                    }
                    continuation.finish()
                } catch {
                    continuation.finish(throwing: error)
                }
            }
            continuation.onTermination = { _ in task.cancel() }
        }
    }

    /// The audio from `start` to `end` seconds into the stream, or nil when it is no longer (or not yet) held.
    public func audio(from start: Double, to end: Double) -> AudioBuffer? {
        held.withLock { h in
            let a = max(h.first, Int(start * Double(h.rate))), b = min(h.first + h.samples.count, Int(end * Double(h.rate)))
            guard a < b else { return nil }
            return AudioBuffer(samples: Array(h.samples[(a - h.first)..<(b - h.first)]), sampleRate: h.rate)
        }
    }
}
