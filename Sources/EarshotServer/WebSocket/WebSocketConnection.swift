import EarshotCore
import Foundation

/// One WebSocket after the handshake: a thread of its own polls the socket, reads frames (`WebSocketReader`),
/// answers pings, writes what is queued, and keeps both directions bounded — past `maxQueuedIn` bytes of messages
/// nobody has taken it stops reading (the client's sends then wait in TCP), and a client that does not read what
/// it is sent past `maxQueuedOut` bytes is disconnected. A silent client is pinged, and closed when it stays silent.
public final class WebSocketConnection: @unchecked Sendable {
    // @unchecked: the socket and the pipe are used by the I/O thread alone (and closed by it at the end); everything
    // the other threads touch is in `state`, under its lock.
    public enum Message: Sendable, Equatable {
        case text(String)
        case binary(Data)
    }

    public struct Limits: Sendable {
        /// The largest message (all its fragments), in bytes: larger ones close the connection with 1009.
        public var maxMessage = 8 << 20
        /// Messages received and not yet taken; beyond this the socket is not read until some are.
        public var maxQueuedIn = 16 << 20
        /// Bytes waiting to be written; beyond this the client is reading too slowly and is disconnected.
        public var maxQueuedOut = 8 << 20
        /// Seconds of silence from the client before a ping, and before the connection is closed.
        public var pingAfter = 20.0
        public var closeAfter = 60.0
        /// Seconds to wait for the client's close after sending ours.
        public var closeWait = 2.0
        public init() {}
    }

    private struct State {
        var outgoing: [[UInt8]] = []
        var outgoingBytes = 0
        var written = 0  // of outgoing[0]
        var incoming: [Message] = []
        var incomingBytes = 0
        var receiver: CheckedContinuation<Message?, Never>?
        var closeSent = false
        var closeDeadline: Date?
        var ended = false
        /// The client's close frame came, with this code (1000 when it gave none).
        var closeCode: UInt16?
    }

    public let limits: Limits
    private let socket: Int32
    private let wakeRead: Int32, wakeWrite: Int32
    private let state = Locked(State())
    private let finished = DispatchSemaphore(value: 0)
    private let release: @Sendable (WebSocketConnection) -> Void
    private let early: [UInt8]

    /// - Parameters:
    ///   - early: bytes the HTTP library read past the request head (the client's first frames, sent at once).
    ///   - release: gives the socket back to its owner, once, from the I/O thread when the connection is over.
    init(socket: Int32, early: [UInt8], limits: Limits, release: @escaping @Sendable (WebSocketConnection) -> Void) {
        self.socket = socket
        self.limits = limits
        self.release = release
        self.early = early
        var fds: [Int32] = [-1, -1]
        if pipe(&fds) != 0 { fds = [-1, -1] }
        for fd in fds where fd >= 0 {
            _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
            _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
        }
        (wakeRead, wakeWrite) = (fds[0], fds[1])
        let flags = fcntl(socket, F_GETFL)
        _ = fcntl(socket, F_SETFL, flags | O_NONBLOCK)
    }

    /// Starts the I/O thread (once).
    func start() {
        let thread = Thread { [self] in run() }
        thread.name = "earshot.websocket"
        thread.start()
    }

    /// The next message, in order; nil once the connection is closed and every message before that was taken.
    /// One receiver at a time.
    public func receive() async -> Message? {
        await withCheckedContinuation { (continuation: CheckedContinuation<Message?, Never>) in
            let ready: Message?? = state.withLock { state in
                if !state.incoming.isEmpty {
                    let message = state.incoming.removeFirst()
                    state.incomingBytes -= Self.size(of: message)
                    return .some(message)
                }
                if state.ended { return .some(nil) }
                state.receiver = continuation
                return nil
            }
            if let ready {
                continuation.resume(returning: ready)
                wake()  // there may be room to read again
            }
        }
    }

    /// Queues a text message. A client that lets more than `maxQueuedOut` bytes pile up is disconnected.
    public func send(_ text: String) {
        queue(WebSocketFrame(fin: true, opcode: .text, payload: Array(text.utf8)))
    }

    /// Starts the closing handshake: no more messages go out after the close frame.
    public func close(_ code: WebSocketCloseCode = .normal, _ reason: String = "") {
        queue(WebSocketFrame.close(code, reason))
    }

    public var isClosed: Bool { state.withLock { $0.closeSent || $0.ended } }

    /// Waits (up to `seconds`) for the connection to be over and its socket given back.
    @discardableResult
    func waitUntilEnded(seconds: Double) -> Bool {
        guard finished.wait(timeout: .now() + seconds) == .success else { return false }
        finished.signal()  // for any other waiter
        return true
    }

    private func queue(_ frame: WebSocketFrame) {
        let bytes = frame.encoded()
        state.withLock { state in
            guard !state.closeSent, !state.ended else { return }
            if frame.opcode == .close { return enqueueClose(&state, bytes) }
            guard state.outgoingBytes + bytes.count <= limits.maxQueuedOut else {
                // the client is not reading: drop what waits and tell it why (if it ever reads again)
                state.outgoing = state.written > 0 ? [Array(state.outgoing[0][state.written...])] : []
                state.written = 0
                state.outgoingBytes = state.outgoing.first?.count ?? 0
                return enqueueClose(&state, WebSocketFrame.close(.policyViolation, "the client read too slowly").encoded())
            }
            state.outgoing.append(bytes)
            state.outgoingBytes += bytes.count
        }
        wake()
    }

    private func enqueueClose(_ state: inout State, _ bytes: [UInt8]) {
        state.outgoing.append(bytes)
        state.outgoingBytes += bytes.count
        state.closeSent = true
        state.closeDeadline = Date().addingTimeInterval(limits.closeWait)
    }

    /// Wakes the I/O thread's poll. Under the lock, so it never writes to a pipe `end` has closed (whose descriptor
    /// number may belong to another file by then).
    private func wake() {
        state.withLock { state in
            guard !state.ended else { return }
            var byte: UInt8 = 1
            _ = write(wakeWrite, &byte, 1)
        }
    }

    private static func size(of message: Message) -> Int {
        switch message {
        case let .text(text): return text.utf8.count
        case let .binary(data): return data.count
        }
    }

    // MARK: - the I/O thread

    private func run() {
        var reader = WebSocketReader(maxMessage: limits.maxMessage)
        var lastHeard = Date(), pinged = false
        var buffer = [UInt8](repeating: 0, count: 64 * 1024)
        var peerGone = false
        if !early.isEmpty { early.withUnsafeBytes { handle(reader.consume($0)) } }
        loop: while !peerGone {
            let (wantsWrite, roomToRead, deadline) = state.withLock { state in
                (!state.outgoing.isEmpty, state.incomingBytes < limits.maxQueuedIn, state.closeDeadline)
            }
            if let deadline, Date() >= deadline { break }
            if !wantsWrite, state.withLock({ $0.closeSent }), reader.failed { break }  // the close is out; nothing more is read
            var fds = [pollfd(fd: socket, events: Int16((roomToRead && !reader.failed ? POLLIN : 0) | (wantsWrite ? POLLOUT : 0)), revents: 0),
                       pollfd(fd: wakeRead, events: Int16(POLLIN), revents: 0)]
            let ready = poll(&fds, 2, 1000)
            if ready < 0 && errno != EINTR { break }
            if fds[1].revents != 0 { while read(wakeRead, &buffer, buffer.count) > 0 {} }
            if fds[0].revents & Int16(POLLERR | POLLNVAL) != 0 { break }
            if fds[0].revents & Int16(POLLIN | POLLHUP) != 0 {
                let got = buffer.withUnsafeMutableBytes { recv(socket, $0.baseAddress, $0.count, 0) }
                if got == 0 || (got < 0 && errno != EAGAIN && errno != EINTR) { peerGone = true; break loop }
                if got > 0 {
                    lastHeard = Date()
                    pinged = false
                    buffer.withUnsafeBytes { handle(reader.consume(UnsafeRawBufferPointer(rebasing: $0[0..<got]))) }
                }
            }
            if fds[0].revents & Int16(POLLOUT) != 0, !flush() { break }
            let silent = Date().timeIntervalSince(lastHeard)
            if silent > limits.closeAfter, !isClosed {
                close(.policyViolation, "no data or pong for \(Int(limits.closeAfter)) s")
            } else if silent > limits.pingAfter, !pinged {
                pinged = true
                queue(WebSocketFrame(fin: true, opcode: .ping, payload: Array("earshot".utf8)))
            }
            // both closes exchanged: the server closes the TCP connection (§7.1.1)
            if state.withLock({ $0.closeSent && $0.outgoing.isEmpty && $0.closeCode != nil }) { break }
        }
        end()
    }

    /// What the reader found: messages to the receiver, pings answered, a close answered, a violation closed.
    private func handle(_ inputs: [WebSocketInput]) {
        for input in inputs {
            switch input {
            case let .text(text): deliver(.text(text))
            case let .binary(bytes): deliver(.binary(Data(bytes)))
            case let .ping(payload): queue(WebSocketFrame(fin: true, opcode: .pong, payload: payload))
            case .pong: break
            case let .close(code, _):
                // answer with the same code (none: 1000), then the connection is over once that is written
                let sent = state.withLock { state -> Bool in
                    state.closeCode = code ?? 1000
                    return state.closeSent
                }
                if !sent { queue(WebSocketFrame.close(code: code ?? WebSocketCloseCode.normal.rawValue, "")) }
                state.withLock { $0.closeDeadline = Date().addingTimeInterval(limits.closeWait) }
            case let .violation(code, why):
                close(code, why)
            }
        }
    }

    private func deliver(_ message: Message) {
        let receiver: CheckedContinuation<Message?, Never>? = state.withLock { state in
            if let receiver = state.receiver {
                state.receiver = nil
                return receiver
            }
            state.incoming.append(message)
            state.incomingBytes += Self.size(of: message)
            return nil
        }
        receiver?.resume(returning: message)
    }

    /// Writes what it can of the queue; false when the socket failed.
    private func flush() -> Bool {
        while true {
            let next: [UInt8]? = state.withLock { state in state.outgoing.first.map { Array($0[state.written...]) } }
            guard let bytes = next else { return true }
            let sent = bytes.withUnsafeBytes { Foundation.send(socket, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            if sent < 0 { return errno == EAGAIN || errno == EINTR }
            state.withLock { state in
                state.written += sent
                state.outgoingBytes -= sent
                if state.written == state.outgoing[0].count {
                    state.outgoing.removeFirst()
                    state.written = 0
                }
            }
            if sent < bytes.count { return true }  // the socket is full: wait for POLLOUT
        }
    }

    private func end() {
        let receiver: CheckedContinuation<Message?, Never>? = state.withLock { state in
            state.ended = true
            state.outgoing = []
            closeDescriptor(wakeRead)
            closeDescriptor(wakeWrite)
            defer { state.receiver = nil }
            return state.receiver
        }
        receiver?.resume(returning: nil)
        release(self)
        finished.signal()
    }
}

private func closeDescriptor(_ fd: Int32) { if fd >= 0 { _ = Glibc.close(fd) } }
