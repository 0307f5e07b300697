import Foundation

/// A live source of audio: microphone, a raw stream on standard input, or a file replayed in real time.
/// Sources deliver mono float chunks at the rate asked for, through an `AsyncThrowingStream`
/// that ends when the source ends (end of input) and stops the source when the consumer goes away.
public protocol AudioSource: Sendable {
    /// How the source is named in messages, e.g. "microphone" or "<stdin>".
    var name: String { get }
    func chunks(sampleRate: Int) -> AsyncThrowingStream<[Float], Error>
}

public enum AudioSourceError: Error, LocalizedError, Equatable {
    case noMicrophone(detail: String)
    case badStreamFormat(String)

    public var errorDescription: String? {
        switch self {
        case let .noMicrophone(detail): return "no microphone available (\(detail))"
        case let .badStreamFormat(detail): return "unsupported stream format: \(detail)"
        }
    }
}

/// Runs a blocking producer on its own thread and hands its chunks to an async consumer.
/// The producer receives a `keepGoing` check that turns false once the consumer stops listening.
func threadedStream(
    _ produce: @escaping @Sendable (_ yield: (([Float]) -> Void), _ keepGoing: () -> Bool) throws -> Void
) -> AsyncThrowingStream<[Float], Error> {
    AsyncThrowingStream { continuation in
        let cancelled = Locked(false)
        continuation.onTermination = { _ in cancelled.withLock { $0 = true } }
        let thread = Thread {
            do {
                try produce({ continuation.yield($0) }, { !cancelled.withLock { $0 } })
                continuation.finish()
            } catch {
                continuation.finish(throwing: error)
            }
        }
        thread.stackSize = 1 << 20
        thread.start()
    }
}

/// An `AsyncThrowingStream` fed by an async producer running in its own task, cancelled when the
/// consumer stops listening. The shape of every live pipeline (speech, sounds).
public func producedStream<Element: Sendable>(
    _ produce: @escaping @Sendable (_ emit: @Sendable (Element) -> Void) async throws -> Void
) -> AsyncThrowingStream<Element, Error> {
    AsyncThrowingStream { continuation in
        let task = Task.detached {
            do {
                try await produce { continuation.yield($0) }
                continuation.finish()
            } catch {
                continuation.finish(throwing: error)
            }
        }
        continuation.onTermination = { _ in task.cancel() }
    }
}
