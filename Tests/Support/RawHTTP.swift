import Foundation

/// A TCP client that writes exactly the bytes given, for requests curl will not send (lying lengths, bodies
/// that never end). Reads what the server answers until it closes the connection or `seconds` pass.
public final class RawHTTPConnection: @unchecked Sendable {
    // @unchecked: the socket is written by one thread at a time in the tests; it is never reassigned.
    private let socket: Int32

    public init(port: Int) throws {
        socket = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(socket, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard socket >= 0, connected == 0 else { throw POSIXError(.ECONNREFUSED) }
        // a server that stops reading without closing fails the send after 10 s instead of blocking the suite
        var limit = timeval(tv_sec: 10, tv_usec: 0)
        setsockopt(socket, SOL_SOCKET, SO_SNDTIMEO, &limit, socklen_t(MemoryLayout<timeval>.size))
    }

    deinit { close(socket) }

    /// Writes `text`; false once the server has closed its side or stopped reading for 10 s (the write fails).
    @discardableResult
    public func send(_ text: String) -> Bool {
        let bytes = Array(text.utf8)
        return bytes.withUnsafeBytes { Glibc.send(socket, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) } == bytes.count
    }

    /// Writes `bytes` exactly; false once the server has closed its side or stopped reading for 10 s.
    @discardableResult
    public func sendBytes(_ bytes: [UInt8]) -> Bool {
        var sent = 0
        while sent < bytes.count {
            let n = bytes[sent...].withUnsafeBytes { Glibc.send(socket, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            if n <= 0 { return false }
            sent += n
        }
        return true
    }

    /// The bytes that arrive within `seconds` (or, with `stopAfterAny`, the first that arrive), and whether the
    /// server closed the connection.
    public func readBytes(seconds: Double, stopAfterAny: Bool = false) -> (bytes: [UInt8], closed: Bool) {
        var received: [UInt8] = []
        let deadline = Date().addingTimeInterval(seconds)
        var buffer = [UInt8](repeating: 0, count: 65_536)
        while Date() < deadline {
            var poller = pollfd(fd: socket, events: Int16(POLLIN), revents: 0)
            guard poll(&poller, 1, Int32(max(1, deadline.timeIntervalSinceNow * 1000))) > 0 else { continue }
            let n = recv(socket, &buffer, buffer.count, 0)
            if n <= 0 { return (received, true) }
            received += buffer[0..<n]
            if stopAfterAny { break }
        }
        return (received, false)
    }

    /// The body of a whole response sent with `Transfer-Encoding: chunked` (its head, then its chunks), the chunks
    /// joined; nil when it is not whole (no end of head, a chunk cut short, no last chunk).
    public static func chunkedBody(ofResponse response: [UInt8]) -> [UInt8]? {
        guard let head = response.firstRange(of: Array("\r\n\r\n".utf8)) else { return nil }
        let body = response[head.upperBound...]
        var joined: [UInt8] = [], at = body.startIndex
        while let lineEnd = body[at...].firstIndex(of: UInt8(ascii: "\n")) {
            let sizeLine = String(decoding: body[at..<lineEnd], as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
            guard let size = Int(sizeLine.split(separator: ";").first ?? "", radix: 16) else { return nil }
            if size == 0 { return joined }
            let start = lineEnd + 1
            guard body.endIndex - start >= size + 2 else { return nil }
            joined += body[start..<start + size]
            at = start + size + 2  // the chunk's CRLF
        }
        return nil
    }

    /// What arrives within `seconds`, and whether the server closed the connection.
    public func read(seconds: Double) -> (text: String, closed: Bool) {
        let (bytes, closed) = readBytes(seconds: seconds)
        return (String(decoding: bytes, as: UTF8.self), closed)
    }
}
