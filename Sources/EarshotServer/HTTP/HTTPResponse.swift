import EarshotCore
import Foundation

/// What a handler answers. Bodies are bytes, a file (or a byte range of one), or a stream of events.
public struct HTTPResponse: Sendable {
    public enum Body: Sendable {
        case bytes(Data)
        /// `length` bytes of the file from `offset`.
        case file(path: String, offset: Int64, length: Int64)
        /// A file already open (one made for this answer and removed since): sent from the disk as the client reads
        /// it, never held in memory; closed when the exchange ends.
        case opened(OpenedFile)
        /// Server-Sent Events (or any chunked stream): the connection stays open until the channel finishes.
        case stream(ByteChannel)
        /// The 101 answer to a WebSocket handshake: once it is sent, `start` is given the connection (on the event
        /// loop's thread: it must return at once, leaving the talking to a task of its own).
        case webSocket(start: @Sendable (WebSocketConnection) -> Void)
    }

    public var status: Int
    public var headers: [(String, String)]
    public var body: Body

    public init(status: Int = 200, headers: [(String, String)] = [], body: Body = .bytes(Data())) {
        self.status = status
        self.headers = headers
        self.body = body
    }

    /// Accepts a WebSocket handshake (RFC 6455) or throws the HTTP error that refuses it. `protocols`: the
    /// subprotocols spoken, preferred first.
    public static func webSocket(_ request: HTTPRequest, protocols: [String] = [],
                                 start: @escaping @Sendable (WebSocketConnection) -> Void) throws -> HTTPResponse {
        HTTPResponse(status: 101, headers: try WebSocketHandshake.accept(method: request.method, headers: request.headers, protocols: protocols),
                     body: .webSocket(start: start))
    }

    public static func text(_ text: String, status: Int = 200, contentType: String = "text/plain; charset=utf-8") -> HTTPResponse {
        HTTPResponse(status: status, headers: [("Content-Type", contentType)], body: .bytes(Data(text.utf8)))
    }

    /// A library value in Earshot's one JSON form (snake_case keys, ISO dates).
    public static func json<T: Encodable>(_ value: T, status: Int = 200) -> HTTPResponse {
        do {
            let data = try EarshotJSON.encoder(pretty: false).encode(value)
            return HTTPResponse(status: status, headers: [("Content-Type", "application/json")], body: .bytes(data))
        } catch {
            return .error(500, "could not encode the answer: \(error.localizedDescription)")
        }
    }

    /// The one error shape of every endpoint, OpenAI's: {"error": {"message", "type", "code"}}.
    public static func error(_ status: Int, _ message: String, type: String? = nil, headers: [(String, String)] = []) -> HTTPResponse {
        var response = json(APIErrorBody(error: .init(message: message, type: type ?? APIErrorBody.type(for: status), code: status)),
                            status: status)
        response.headers += headers
        return response
    }
}

public struct APIErrorBody: Codable, Sendable, Equatable {
    public struct Detail: Codable, Sendable, Equatable {
        public var message: String
        public var type: String
        public var code: Int
    }
    public var error: Detail

    static func type(for status: Int) -> String {
        switch status {
        case 401, 403: return "authentication_error"
        case 404: return "not_found_error"
        case 413: return "request_too_large"
        case 503: return "server_busy"
        case 400..<500: return "invalid_request_error"
        default: return "server_error"
        }
    }
}

/// A file opened for one answer. The descriptor lives until the exchange that sends it ends (the server keeps
/// the response until then), so the file may be removed at once; `onClose` runs then too (a download's slot given back).
public final class OpenedFile: Sendable {
    let descriptor: Int32
    public let length: Int64
    private let onClose: @Sendable () -> Void

    /// Opens `path`; nil when it cannot be opened.
    public init?(path: String, onClose: @escaping @Sendable () -> Void = {}) {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        var info = stat()
        guard fd >= 0 else { return nil }
        guard fstat(fd, &info) == 0, info.st_mode & S_IFMT == S_IFREG else { close(fd); return nil }
        descriptor = fd
        length = Int64(info.st_size)
        self.onClose = onClose
    }

    deinit {
        close(descriptor)
        onClose()
    }
}

/// A handler's way to stop with an HTTP error from anywhere in its code.
public struct HTTPError: Error, Sendable {
    public var status: Int
    public var message: String
    public var headers: [(String, String)] = []

    public init(_ status: Int, _ message: String, headers: [(String, String)] = []) {
        self.status = status
        self.message = message
        self.headers = headers
    }

    public var response: HTTPResponse { .error(status, message, headers: headers) }
}
