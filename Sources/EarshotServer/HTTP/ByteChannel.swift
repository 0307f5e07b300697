import EarshotCore
import Foundation

/// Bytes from a producer (a live session, a long job's progress) to one HTTP connection's thread, which blocks
/// in `receive` until there is something to send. Closing from either end ends the stream: `finish` from the
/// producer, `cancel` when the client goes away (the producer sees `isCancelled` and stops).
public final class ByteChannel: @unchecked Sendable {
    // @unchecked: every field is read and written under `condition`.
    private let condition = NSCondition()
    private var pending = Data()
    private var finished = false
    private var cancelled = false

    public init() {}

    public var isCancelled: Bool { condition.withLock { cancelled } }

    /// Queues `data`; returns false when the client has gone (nothing more needs producing).
    @discardableResult
    public func send(_ data: Data) -> Bool {
        condition.withLock {
            guard !cancelled, !finished else { return false }
            pending.append(data)
            condition.broadcast()
            return true
        }
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

    public func finish() { condition.withLock { finished = true; condition.broadcast() } }

    func cancel() { condition.withLock { cancelled = true; condition.broadcast() } }

    /// Up to `max` bytes, waiting for them; nil at the end of the stream. A comment line goes out every 15 s of
    /// silence so proxies and browsers keep the connection.
    func receive(max: Int) -> Data? {
        condition.withLock {
            while pending.isEmpty && !finished && !cancelled {
                if !condition.wait(until: Date().addingTimeInterval(15)) && pending.isEmpty && !finished && !cancelled {
                    pending.append(Data(": keep-alive\n\n".utf8))
                }
            }
            if pending.isEmpty || cancelled { return nil }
            let chunk = pending.prefix(max)
            pending.removeFirst(chunk.count)
            return Data(chunk)
        }
    }
}
