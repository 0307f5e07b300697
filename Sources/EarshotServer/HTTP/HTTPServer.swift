internal import CMicroHTTPD
import EarshotCore
import Foundation

/// An HTTP/1.1 server on libmicrohttpd: an epoll event loop on a few threads, bodies streamed to disk under a
/// size limit, multipart forms parsed by the library's post processor. Handlers are async: while one runs, its
/// connection is suspended (out of the event loop, holding no thread) and resumed with the answer; a stream with
/// nothing to send waits the same way. So idle, trickling or waiting connections cost a descriptor each, and
/// thousands of them cannot keep an answer from anyone else.
public final class HTTPServer: @unchecked Sendable {
    // @unchecked: `daemon` and `port` are set once in init, `daemon` cleared once in stop (under `stopping`); the rest
    // is immutable.
    public struct Limits: Sendable {
        /// The largest body accepted, in bytes; larger ones get 413 before or while they arrive.
        public var maxUpload: Int
        /// The largest text field of a form (a few seconds of a voice as a data URL, OpenAI's
        /// `known_speaker_references[]`, take several hundred KB); all of a form's text fields together may
        /// hold four times this.
        public var maxField: Int = 1 << 20
        /// Connections open at once (each costs a descriptor, no thread), and from one address.
        public var connections: Int = 4096
        public var connectionsPerAddress: Int = 2048
        /// Threads of the event loop (request heads, bodies to disk, answers out; handlers run on Swift's own).
        public var threads: Int = 4
        /// Seconds a connection may sit idle: sending nothing, or waiting for a request's next bytes. Streams send
        /// a keep-alive every 15 s, and a connection waiting for its handler's answer is not idle.
        public var idleTimeout: Int = 30
        /// Seconds a connection may take to send a request's head, however it trickles (a byte at a time resets
        /// the idle timeout, not this).
        public var headTimeout: Double = 20
        /// Bytes per second a body must average once it has had `bodyGrace` seconds: a slower one is cut off
        /// (Apache's mod_reqtimeout uses the same 500 B/s after 20 s).
        public var minBodyRate: Double = 500
        public var bodyGrace: Double = 20
        /// WebSockets open at once (each has a thread while it lives), and what each may hold.
        public var webSockets: Int = 64
        public var webSocket = WebSocketConnection.Limits()

        public init(maxUpload: Int) { self.maxUpload = maxUpload }
    }

    /// Looks at a request before its body is read; an answer here ends it (access checks, unknown routes).
    public typealias Gate = @Sendable (RequestHead) -> HTTPResponse?
    public typealias Handler = @Sendable (HTTPRequest) async -> HTTPResponse
    /// Told of every answered request: method, path, status, body bytes (nil when streamed), milliseconds.
    public typealias Logger = @Sendable (_ method: String, _ path: String, _ status: Int, _ bytes: Int?, _ milliseconds: Double) -> Void

    /// The port listened on (the one chosen when started with port 0).
    public private(set) var port = 0
    let limits: Limits
    let uploads: URL
    let gate: Gate
    let handler: Handler
    let logger: Logger?
    /// Headers every response carries.
    let commonHeaders: [(String, String)]
    private var daemon: OpaquePointer?
    private let stopping = NSLock()
    let suspensions = Suspensions()
    let headDeadlines: HeadDeadlines
    /// The open WebSockets: closed before the daemon stops (libmicrohttpd wants their sockets back first).
    private let webSockets = Locked<[ObjectIdentifier: WebSocketConnection]>([:])

    /// Starts listening on `host`:`port` (0: any free port, see `port`). Uploads go to files under `uploads`.
    public init(host: String, port: Int, limits: Limits, uploads: URL, commonHeaders: [(String, String)] = [],
                gate: @escaping Gate, logger: Logger? = nil, handler: @escaping Handler) throws {
        self.limits = limits
        self.logger = logger
        self.uploads = uploads
        self.gate = gate
        self.handler = handler
        self.commonHeaders = commonHeaders
        headDeadlines = HeadDeadlines(seconds: limits.headTimeout)
        guard (0...65535).contains(port) else { throw ServerError.cannotListen("port \(port) is not from 0 to 65535") }
        var error = [CChar](repeating: 0, count: 256)
        // unretained: deinit stops the daemon (joining its threads) before this object goes
        let me = Unmanaged.passUnretained(self).toOpaque()
        let connections = Self.descriptorsAllowing(limits.connections)
        guard let daemon = earshot_http_start(host, UInt16(port), UInt32(connections), UInt32(min(connections, limits.connectionsPerAddress)),
                                              UInt32(max(1, limits.threads)), UInt32(limits.idleTimeout),
                                              accessHandler, me, requestCompleted, me, connectionNotice, me, &error, error.count) else {
            throw ServerError.cannotListen(String(decoding: error.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self))
        }
        self.daemon = daemon
        self.port = Int(earshot_http_port(daemon))
    }

    /// Stops accepting connections and closes the open ones: requests still waiting for their handler get 503,
    /// streams end.
    public func stop() {
        stopping.withLock {
            guard let daemon else { return }
            suspensions.stopAll()
            headDeadlines.stop()
            let open = webSockets.withLock { Array($0.values) }
            for socket in open { socket.close(.goingAway, "the server is stopping") }
            for socket in open { socket.waitUntilEnded(seconds: socket.limits.closeWait + 2) }
            MHD_stop_daemon(daemon)
            self.daemon = nil
        }
    }

    /// The connection limit this process's descriptors allow: the soft limit raised to the hard one, less room
    /// for the files the server itself opens.
    static func descriptorsAllowing(_ wanted: Int) -> Int {
        var limit = rlimit()
        guard getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0 else { return min(wanted, 512) }
        if limit.rlim_cur < limit.rlim_max {
            var raised = limit
            raised.rlim_cur = limit.rlim_max
            if setrlimit(Int32(RLIMIT_NOFILE.rawValue), &raised) == 0 { limit = raised }
        }
        let room = Int(min(limit.rlim_cur, rlim_t(Int32.max))) - 256
        return max(16, min(wanted, room))
    }

    deinit { stop() }

    // MARK: - one request

    fileprivate func access(_ connection: OpaquePointer, url: String, method: String, upload: UnsafePointer<CChar>?,
                            size: UnsafeMutablePointer<Int>, state: UnsafeMutablePointer<UnsafeMutableRawPointer?>) -> MHD_Result {
        guard let existing = state.pointee else {
            headDeadlines.clear(connection)
            let head = RequestHead(method: method.uppercased(), path: url, query: values(connection, .GET_ARGUMENT_KIND, lowercased: false),
                                   headers: values(connection, .HEADER_KIND, lowercased: true),
                                   cookies: values(connection, .COOKIE_KIND, lowercased: false),
                                   client: Self.clientAddress(connection), conflicting: conflictingHeaders(connection))
            let exchange = Exchange(head: head, sink: UploadSink(folder: uploads, maxField: limits.maxField), handle: ConnectionHandle(connection))
            state.pointee = Unmanaged.passRetained(exchange).toOpaque()
            if let refusal = gate(head) ?? bodyRefusal(head) { return answer(exchange, refusal, on: connection) }
            exchange.openBody(connection)
            return MHD_Result.YES
        }
        let exchange = Unmanaged<Exchange>.fromOpaque(existing).takeUnretainedValue()
        if exchange.answered { size.pointee = 0; return MHD_Result.YES }
        if size.pointee > 0 {
            exchange.received += size.pointee
            // a body trickled slower than the minimum rate (past its grace) is cut off: it would hold its upload open
            let elapsed = Date().timeIntervalSince(exchange.started)
            if elapsed > limits.bodyGrace, Double(exchange.received) < limits.minBodyRate * elapsed {
                size.pointee = 0
                return MHD_Result.NO
            }
            if exchange.received > limits.maxUpload {
                // Past the limit the rest is discarded, and the 413 goes out when the body ends. libmicrohttpd
                // cannot answer in the middle of a body, so a body that goes on past twice the limit (at most
                // 64 MB more) is cut off by closing the connection: one that never ends is not read forever.
                if exchange.sink.failure == nil { exchange.sink.failure = tooLarge() }
                if exchange.received > limits.maxUpload + min(limits.maxUpload, 64 << 20) {
                    size.pointee = 0
                    return MHD_Result.NO
                }
            } else if let upload {
                exchange.consume(UnsafeRawBufferPointer(start: upload, count: size.pointee))
            }
            size.pointee = 0
            return MHD_Result.YES
        }
        // the body is in: run the handler with the connection suspended, answer when it resumes with the response
        if !exchange.handling {
            exchange.handling = true
            let body = exchange.finishBody()
            if let failure = exchange.sink.failure { return answer(exchange, failure.response, on: connection) }
            let request = HTTPRequest(method: exchange.head.method, path: exchange.head.path, query: exchange.head.query,
                                      headers: exchange.head.headers, body: body)
            guard suspensions.suspend(exchange.handle) else { return answer(exchange, stoppingResponse, on: connection) }
            let handler = self.handler, suspensions = self.suspensions
            Task {
                let response = await handler(request)
                exchange.response.withLock { $0 = response }
                suspensions.resume(exchange.handle)
            }
            return MHD_Result.YES
        }
        // resumed: with the handler's answer, or by a stopping server before it came
        return answer(exchange, exchange.response.withLock { $0 } ?? stoppingResponse, on: connection)
    }

    private var stoppingResponse: HTTPResponse { closing(.error(503, "the server is stopping")) }

    private func tooLarge() -> HTTPError {
        HTTPError(413, "the upload is larger than the server's limit of \(limits.maxUpload) bytes (earshot serve --max-upload)")
    }

    /// A body refused from its headers alone: declared larger than the limit (any length of digits: one past
    /// Int's range is still a length), or framed twice (Content-Length with chunked encoding, which a proxy in
    /// front may read differently: request smuggling). Either way the connection is closed after the answer.
    private func bodyRefusal(_ head: RequestHead) -> HTTPResponse? {
        if let twice = head.conflicting.intersection(["content-length", "transfer-encoding", "host"]).sorted().first {
            return closing(.error(400, "the request gives \(twice) twice, with different values; send one"))
        }
        guard let declared = head.header("content-length")?.trimmingCharacters(in: .whitespaces) else { return nil }
        if head.header("transfer-encoding")?.lowercased().contains("chunked") == true {
            return closing(.error(400, "the request gives both Content-Length and chunked Transfer-Encoding; send one"))
        }
        guard !declared.isEmpty, declared.allSatisfy(\.isASCII), declared.allSatisfy(\.isNumber) else { return nil }
        let length = Int(declared) ?? .max
        return length > limits.maxUpload ? closing(tooLarge().response) : nil
    }

    private func closing(_ response: HTTPResponse) -> HTTPResponse {
        var closed = response
        closed.headers.append(("Connection", "close"))
        return closed
    }

    /// The names (lower case) of headers given more than once with different values.
    private func conflictingHeaders(_ connection: OpaquePointer) -> Set<String> {
        let box = Box((first: [String: String](), twice: Set<String>()))
        withExtendedLifetime(box) {
            _ = MHD_get_connection_values(connection, .HEADER_KIND, { cls, _, key, value in
                guard let cls, let key else { return MHD_Result.YES }
                let box = Unmanaged<Box<(first: [String: String], twice: Set<String>)>>.fromOpaque(cls).takeUnretainedValue()
                let name = String(cString: key).lowercased(), text = value.map { String(cString: $0) } ?? ""
                if let first = box.value.first[name] {
                    if first != text { box.value.twice.insert(name) }
                } else {
                    box.value.first[name] = text
                }
                return MHD_Result.YES
            }, Unmanaged.passUnretained(box).toOpaque())
        }
        return box.value.twice
    }

    /// The peer's address of a connection's socket, without its port.
    static func clientAddress(_ connection: OpaquePointer) -> String {
        let fd = earshot_http_connection_fd(connection)
        guard fd >= 0 else { return "" }
        var storage = sockaddr_storage()
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        let got = withUnsafeMutablePointer(to: &storage) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getpeername(fd, $0, &length) }
        }
        guard got == 0 else { return "" }
        var host = [CChar](repeating: 0, count: Int(NI_MAXHOST))
        let named = withUnsafePointer(to: &storage) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                getnameinfo($0, length, &host, socklen_t(host.count), nil, 0, NI_NUMERICHOST)
            }
        }
        return named == 0 ? String(decoding: host.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self) : ""
    }

    private func values(_ connection: OpaquePointer, _ kind: MHD_ValueKind, lowercased: Bool) -> [String: String] {
        let collected = Box([String: String]())
        let pointer = Unmanaged.passUnretained(collected).toOpaque()
        _ = MHD_get_connection_values(connection, kind, { cls, _, key, value in
            guard let cls, let key else { return MHD_Result.YES }
            let box = Unmanaged<Box<[String: String]>>.fromOpaque(cls).takeUnretainedValue()
            let name = String(cString: key)
            // a repeated header keeps its first value
            if box.value[name] == nil { box.value[name] = value.map { String(cString: $0) } ?? "" }
            return MHD_Result.YES
        }, pointer)
        return lowercased ? Dictionary(collected.value.map { ($0.key.lowercased(), $0.value) }, uniquingKeysWith: { a, _ in a }) : collected.value
    }

    private func answer(_ exchange: Exchange, _ response: HTTPResponse, on connection: OpaquePointer) -> MHD_Result {
        exchange.answered = true
        var response = response
        if case .webSocket = response.body, webSockets.withLock({ $0.count }) >= limits.webSockets {
            response = closing(.error(503, "\(limits.webSockets) WebSockets are open; try again later", headers: [("Retry-After", "5")]))
        }
        exchange.upgrade = response
        guard let native = makeResponse(response, handle: exchange.handle) else { return MHD_Result.NO }
        for (name, value) in commonHeaders + response.headers { MHD_add_response_header(native, name, value) }
        let result = MHD_queue_response(connection, UInt32(response.status), native)
        MHD_destroy_response(native)
        if let logger {
            let bytes: Int?
            switch response.body {
            case let .bytes(data): bytes = data.count
            case let .file(_, _, length): bytes = Int(length)
            case let .opened(file): bytes = Int(file.length)
            case .stream, .webSocket: bytes = nil
            }
            logger(exchange.head.method, exchange.head.path, response.status, bytes, Date().timeIntervalSince(exchange.started) * 1000)
        }
        return result
    }

    private func makeResponse(_ response: HTTPResponse, handle: ConnectionHandle) -> OpaquePointer? {
        switch response.body {
        case let .bytes(data):
            return data.withUnsafeBytes { bytes in
                MHD_create_response_from_buffer(bytes.count, UnsafeMutableRawPointer(mutating: bytes.baseAddress), .RESPMEM_MUST_COPY)
            }
        case let .file(path, offset, length):
            let fd = open(path, O_RDONLY | O_CLOEXEC)
            guard fd >= 0 else { return makeResponse(.error(404, "the file is gone"), handle: handle) }
            // the response owns the descriptor and closes it
            return MHD_create_response_from_fd_at_offset64(UInt64(length), fd, UInt64(offset))
        case let .opened(file):
            // libmicrohttpd closes what it is given: a descriptor of its own, the file's own closed with the exchange
            let fd = dup(file.descriptor)
            guard fd >= 0 else { return makeResponse(.error(503, "too many open files; try again"), handle: handle) }
            return MHD_create_response_from_fd_at_offset64(UInt64(file.length), fd, 0)
        case .webSocket:
            // the connection is handed over in `upgraded`, called by libmicrohttpd once the 101 is sent
            return MHD_create_response_for_upgrade(upgradeHandler, Unmanaged.passUnretained(self).toOpaque())
        case let .stream(channel):
            let stream = Unmanaged.passRetained(StreamState(channel: channel, handle: handle, suspensions: suspensions)).toOpaque()
            return MHD_create_response_from_callback(UInt64.max, 16 * 1024, { cls, _, buffer, max in
                let stream = Unmanaged<StreamState>.fromOpaque(cls!).takeUnretainedValue()
                switch stream.channel.take(max: max, suspend: { stream.suspensions.suspend(stream.handle) },
                                           wake: { stream.suspensions.resume(stream.handle) }) {
                case let .bytes(chunk):
                    guard let buffer else { return -1 }
                    _ = chunk.copyBytes(to: UnsafeMutableRawBufferPointer(start: buffer, count: max).bindMemory(to: UInt8.self))
                    return chunk.count
                case .wait: return 0  // suspended: called again once woken
                case .end: return -1  // end of stream
                }
            }, stream, { cls in
                let stream = Unmanaged<StreamState>.fromOpaque(cls!).takeRetainedValue()
                stream.channel.cancel()  // the client went away or the stream ended: stop its producer
            })
        }
    }
}

extension HTTPServer {
    /// A 101 went out: the socket is the WebSocket's now, until it gives it back.
    fileprivate func upgraded(_ exchange: Exchange, socket: Int32, early: [UInt8], handle: OpaquePointer) {
        guard case let .webSocket(start)? = exchange.upgrade?.body else {
            earshot_http_upgrade_close(handle)
            return
        }
        let giveBack = UpgradeHandle(handle)
        let open = webSockets  // not self: the server outlives its sockets (stop waits for them)
        let connection = WebSocketConnection(socket: socket, early: early, limits: limits.webSocket) { connection in
            _ = open.withLock { $0.removeValue(forKey: ObjectIdentifier(connection)) }
            earshot_http_upgrade_close(giveBack.pointer)
        }
        webSockets.withLock { $0[ObjectIdentifier(connection)] = connection }
        connection.start()
        start(connection)
    }
}

/// libmicrohttpd's handle of an upgraded connection, to give its socket back when the WebSocket is over.
private final class UpgradeHandle: @unchecked Sendable {
    // @unchecked: used once, by the connection's I/O thread as it ends.
    let pointer: OpaquePointer
    init(_ pointer: OpaquePointer) { self.pointer = pointer }
}

/// What a streamed response's reader needs: the bytes, and the connection to suspend while there are none.
private final class StreamState: @unchecked Sendable {
    let channel: ByteChannel
    let handle: ConnectionHandle
    let suspensions: Suspensions

    init(channel: ByteChannel, handle: ConnectionHandle, suspensions: Suspensions) {
        self.channel = channel
        self.handle = handle
        self.suspensions = suspensions
    }
}

/// One request's state across libmicrohttpd's calls: its head, its body's sink, whether its handler runs, the
/// answer it gave (set from the handler's task), and whether it was answered.
private final class Exchange: @unchecked Sendable {
    // @unchecked: libmicrohttpd calls for one connection one at a time; only `response` crosses to the handler's
    // task, under its lock.
    let head: RequestHead
    let sink: UploadSink
    let handle: ConnectionHandle
    var received = 0
    var answered = false
    var handling = false
    let response = Locked<HTTPResponse?>(nil)
    /// The answer queued, kept for a WebSocket's start once libmicrohttpd has sent its 101.
    var upgrade: HTTPResponse?
    let started = Date()
    private var parser: OpaquePointer?
    private var isForm = false

    init(head: RequestHead, sink: UploadSink, handle: ConnectionHandle) {
        self.head = head
        self.sink = sink
        self.handle = handle
    }

    func openBody(_ connection: OpaquePointer) {
        let type = (head.header("content-type") ?? "").lowercased()
        isForm = type.hasPrefix("multipart/form-data") || type.hasPrefix("application/x-www-form-urlencoded")
        guard isForm else { return }
        parser = MHD_create_post_processor(connection, 32 * 1024, { cls, _, key, filename, contentType, _, data, offset, size in
            guard let cls, let key else { return MHD_Result.NO }
            let exchange = Unmanaged<Exchange>.fromOpaque(cls).takeUnretainedValue()
            exchange.sink.appendPart(key: String(cString: key), filename: filename.map { String(cString: $0) },
                                     contentType: contentType.map { String(cString: $0) }, offset: offset,
                                     bytes: UnsafeRawBufferPointer(start: data, count: data == nil ? 0 : size))
            return exchange.sink.failure == nil ? MHD_Result.YES : MHD_Result.NO
        }, Unmanaged.passUnretained(self).toOpaque())
        if parser == nil { sink.failure = HTTPError(400, "malformed form: multipart/form-data needs a boundary in its Content-Type") }
    }

    func consume(_ bytes: UnsafeRawBufferPointer) {
        guard sink.failure == nil else { return }
        if let parser {
            if MHD_post_process(parser, bytes.baseAddress?.assumingMemoryBound(to: CChar.self), bytes.count) != MHD_Result.YES,
               sink.failure == nil {
                sink.failure = HTTPError(400, "malformed form data")
            }
        } else if !isForm {
            sink.appendRaw(bytes)
        }
    }

    func finishBody() -> RequestBody {
        if let parser {
            if MHD_destroy_post_processor(parser) != MHD_Result.YES, sink.failure == nil {
                sink.failure = HTTPError(400, "malformed or truncated form data")
            }
            self.parser = nil
        }
        return sink.finish(isForm: isForm)
    }

    deinit {
        if let parser { MHD_destroy_post_processor(parser) }
        sink.remove()
    }
}

private final class Box<Value> {
    var value: Value
    init(_ value: Value) { self.value = value }
}

private let accessHandler: MHD_AccessHandlerCallback = { cls, connection, url, method, _, upload, size, state in
    guard let cls, let connection, let url, let method, let size, let state else { return MHD_Result.NO }
    let server = Unmanaged<HTTPServer>.fromOpaque(cls).takeUnretainedValue()
    return server.access(connection, url: String(cString: url), method: String(cString: method), upload: upload, size: size, state: state)
}

private let upgradeHandler: MHD_UpgradeHandler = { cls, connection, state, early, earlySize, socket, handle in
    guard let cls, let state, let handle else {
        if let handle { earshot_http_upgrade_close(handle) }
        return
    }
    let exchange = Unmanaged<Exchange>.fromOpaque(state).takeUnretainedValue()
    if let connection { Unmanaged<HTTPServer>.fromOpaque(cls).takeUnretainedValue().headDeadlines.upgraded(connection) }
    let bytes = early.map { Array(UnsafeRawBufferPointer(start: $0, count: earlySize)) } ?? []
    Unmanaged<HTTPServer>.fromOpaque(cls).takeUnretainedValue().upgraded(exchange, socket: socket, early: bytes, handle: handle)
}

private let connectionNotice: MHD_NotifyConnectionCallback = { cls, connection, _, code in
    guard let cls, let connection else { return }
    let deadlines = Unmanaged<HTTPServer>.fromOpaque(cls).takeUnretainedValue().headDeadlines
    // MHD_CONNECTION_NOTIFY_STARTED is 0, CLOSED 1 (Swift does not shorten these constants' names)
    if code.rawValue == 0 { deadlines.awaitHead(connection) } else { deadlines.closed(connection) }
}

private let requestCompleted: MHD_RequestCompletedCallback = { cls, connection, state, _ in
    // a kept-alive connection waits for its next head from here
    if let cls, let connection { Unmanaged<HTTPServer>.fromOpaque(cls).takeUnretainedValue().headDeadlines.awaitHead(connection) }
    // the request ended (answered, or the client went away mid-upload): its temporary files go with it, and a
    // handler or stream that finishes later no longer touches the connection
    guard let cls, let state, let pointer = state.pointee else { return }
    let exchange = Unmanaged<Exchange>.fromOpaque(pointer)
    Unmanaged<HTTPServer>.fromOpaque(cls).takeUnretainedValue().suspensions.end(exchange.takeUnretainedValue().handle)
    exchange.release()
    state.pointee = nil
}

public enum ServerError: Error, LocalizedError {
    case cannotListen(String)
    case unsafeHost(String)

    public var errorDescription: String? {
        switch self {
        case let .cannotListen(why): return why
        case let .unsafeHost(host): return "listening on \(host) lets other machines in: give --token (or let earshot generate one)"
        }
    }
}
