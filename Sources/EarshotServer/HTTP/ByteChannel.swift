import EarshotCore
import Foundation

/// Bytes from a producer (a live session, a long job's progress) to one HTTP connection. The server takes what
/// is there; when nothing is, its connection is suspended (holding no thread) and the next `send`, `finish` or
/// keep-alive wakes it. Closing from either end ends the stream: `finish` from the producer, `cancel` when the
/// client goes away (the producer sees `isCancelled` and stops).
public final class ByteChannel: @unchecked Sendable {
    // @unchecked: every field is read and written under `lock`.
    private let lock = NSLock()
    private var pending = Data()
    private var finished = false
    private var cancelled = false
    /// How to wake the connection while it waits suspended for bytes; nil while it is not waiting.
    private var wake: (@Sendable () -> Void)?
    private var waits = 0
    private var cancelAction: (@Sendable () -> Void)?
    /// Seconds of silence after which a comment line goes out, so proxies and browsers keep the connection.
    static let keepAlive = 15.0

    public init() {}

    public var isCancelled: Bool { lock.withLock { cancelled } }

    /// Queues `data`; returns false when the client has gone (nothing more needs producing).
    @discardableResult
    public func send(_ data: Data) -> Bool {
        let (accepted, waiting) = lock.withLock { () -> (Bool, (@Sendable () -> Void)?) in
            guard !cancelled, !finished else { return (false, nil) }
            pending.append(data)
            defer { wake = nil }
            return (true, wake)
        }
        waiting?()
        return accepted
    }

    /// One Server-Sent Event: `event` names it, `data` is one line of JSON.
    @discardableResult
    public func sendEvent(_ event: String, json: Data) -> Bool {
        send(Data("event: \(event)\ndata: ".utf8) + json + Data("\n\n".utf8))
    }

    /// One Server-Sent Event carrying `value` in Earshot's JSON (one line).
    @discardableResult
    public func sendEvent<T: Encodable>(_ event: String, _ value: T) -> Bool {
        guard let data = try? EarshotJSON.encoder(pretty: false).encode(value) else { return !isCancelled }
        return sendEvent(event, json: data)
    }

    public func finish() {
        let waiting = lock.withLock { () -> (@Sendable () -> Void)? in
            finished = true
            defer { wake = nil }
            return wake
        }
        waiting?()
    }

    /// The client went away (or the stream ended): `isCancelled` from now on, and the action given to `onCancel` runs.
    func cancel() {
        let action = lock.withLock { () -> (@Sendable () -> Void)? in
            cancelled = true
            wake = nil
            defer { cancelAction = nil }
            return cancelAction
        }
        action?()
    }

    /// Runs `action` once when the client goes away (at once if it has): for a producer that may have nothing to send
    /// for a long time, and so would not learn it from `send`.
    public func onCancel(_ action: @escaping @Sendable () -> Void) {
        let now = lock.withLock { () -> Bool in
            if !cancelled { cancelAction = action }
            return cancelled
        }
        if now { action() }
    }

    enum Take {
        case bytes(Data)
        case end
        /// Nothing yet: the connection was suspended and `wake` will be called when there is.
        case wait
    }

    /// Up to `max` bytes, or the end of the stream; when there is nothing yet, `suspend` is called (under the
    /// channel's lock, so no `send` can slip between the look and the suspension) and, if it suspended, the
    /// channel keeps `wake` for the next `send`, `finish` or keep-alive. A suspension refused (the server
    /// stopping) ends the stream.
    func take(max: Int, suspend: () -> Bool, wake: @escaping @Sendable () -> Void) -> Take {
        let taken = lock.withLock { () -> (Take, Int?) in
            if cancelled { return (.end, nil) }
            if !pending.isEmpty {
                let chunk = pending.prefix(max)
                pending.removeFirst(chunk.count)
                return (.bytes(Data(chunk)), nil)
            }
            if finished || !suspend() { return (.end, nil) }
            self.wake = wake
            waits += 1
            return (.wait, waits)
        }
        if let wait = taken.1 {
            DispatchQueue.global().asyncAfter(deadline: .now() + Self.keepAlive) { [weak self] in self?.keepAliveIfStill(wait) }
        }
        return taken.0
    }

    private func keepAliveIfStill(_ wait: Int) {
        let waiting = lock.withLock { () -> (@Sendable () -> Void)? in
            guard waits == wait, let wake, !cancelled, !finished else { return nil }
            pending.append(Data(": keep-alive\n\n".utf8))
            self.wake = nil
            return wake
        }
        waiting?()
    }
}
