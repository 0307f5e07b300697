import EarshotCore
import Foundation

/// Who may talk to the server, checked on every request before its body is read.
/// - Host: on loopback without a token, the Host header must name loopback (a web page on another site
///   cannot reach the server by re-pointing its own name at 127.0.0.1: DNS rebinding).
/// - Token: when set (required off loopback), every request carries it: `Authorization: Bearer`, the
///   `earshot_token` cookie that opening `/?token=…` once sets for the browser, or (WebSockets) the
///   `openai-insecure-api-key.<token>` subprotocol.
/// - Origin: a request that changes something and comes from a browser must come from the server's own pages;
///   no CORS headers are ever sent, so other sites cannot read answers either.
/// - Guessing: an address that sends wrong tokens is slowed down (`TokenFailures`): 429 until its wait is over.
public struct AccessPolicy: Sendable {
    public var token: String?
    public static let cookieName = "earshot_token"
    static let loopbackNames: Set<String> = ["localhost", "127.0.0.1", "::1"]
    let failures = TokenFailures()

    public init(token: String?) { self.token = token }

    /// The host name of a Host header, without port or IPv6 brackets, in lower case.
    static func hostName(_ header: String) -> String {
        let value = header.lowercased()
        if value.hasPrefix("[") { return String(value.dropFirst().prefix { $0 != "]" }) }
        return String(value.prefix { $0 != ":" })
    }

    /// nil when the request may go on; otherwise the answer that ends it.
    public func check(_ head: RequestHead) -> HTTPResponse? {
        guard let host = head.header("host"), !host.isEmpty else {
            return .error(400, "the request has no Host header")
        }
        if token == nil, !Self.loopbackNames.contains(Self.hostName(host)) {
            return .error(403, "Host '\(host)' is not this server's name: open it as http://localhost or http://127.0.0.1")
        }
        if let token {
            if let wait = failures.wait(for: head.client) {
                return .error(429, "too many wrong tokens from this address: try again in \(wait) s",
                              headers: [("Retry-After", String(wait))])
            }
            if let offered = head.query["token"], head.method == "GET", !head.path.hasPrefix("/api/"), !head.path.hasPrefix("/v1/") {
                guard Self.same(offered, token) else {
                    failures.failed(head.client)
                    return .error(401, "wrong token")
                }
                // remember the token in the browser and drop it from the address bar
                return HTTPResponse(status: 303, headers: [
                    ("Set-Cookie", "\(Self.cookieName)=\(token); Path=/; HttpOnly; SameSite=Strict"),
                    ("Location", Self.localPath(head.path))])
            }
            let bearer = head.header("authorization").flatMap { $0.hasPrefix("Bearer ") ? String($0.dropFirst(7)) : nil }
            let offered = bearer ?? webSocketKey(head) ?? head.cookies[Self.cookieName]
            guard let offered, Self.same(offered, token) else {
                if offered != nil { failures.failed(head.client) }  // a guess; a request with no token guesses nothing
                return .error(401, "this server needs its token: send 'Authorization: Bearer <token>', or open the address "
                              + "earshot serve printed (with ?token=) once in the browser")
            }
            failures.succeeded(head.client)
        }
        // a WebSocket is opened with GET but talks both ways: a page on another site must not open one
        // (cross-site WebSocket hijacking), so it is checked like any request that changes something
        if head.changesState || WebSocketHandshake.isUpgrade(head.headers) {
            if head.header("sec-fetch-site") == "cross-site" {
                return .error(403, "requests from other sites may not change anything here")
            }
            if let origin = head.header("origin"), origin != "http://\(host)" {
                return .error(403, "requests from \(origin) may not change anything here (only this server's own pages may)")
            }
        }
        return nil
    }

    /// The token a browser's WebSocket offers as a subprotocol (browsers cannot set Authorization on one), as
    /// OpenAI's Realtime API takes it: `Sec-WebSocket-Protocol: realtime, openai-insecure-api-key.<token>`.
    private func webSocketKey(_ head: RequestHead) -> String? {
        let prefix = "openai-insecure-api-key."
        return WebSocketHandshake.offeredProtocols(head.headers).first { $0.hasPrefix(prefix) }.map { String($0.dropFirst(prefix.count)) }
    }

    /// `path` as a path on this server: "//evil.com" (or "/\\evil.com") would be another site to a browser
    /// following the redirect, so leading slashes and backslashes collapse to one slash.
    static func localPath(_ path: String) -> String {
        "/" + path.drop { $0 == "/" || $0 == "\\" }
    }

    /// Compares in time independent of where the strings differ.
    static func same(_ a: String, _ b: String) -> Bool {
        let x = Array(a.utf8), y = Array(b.utf8)
        guard x.count == y.count else { return false }
        return zip(x, y).reduce(0) { $0 | ($1.0 ^ $1.1) } == 0
    }

    /// A random token for `--host` off loopback when none is given: 24 bytes from the system's generator.
    public static func generateToken() -> String {
        var generator = SystemRandomNumberGenerator()
        return (0..<24).map { _ in String(format: "%02x", UInt8.random(in: 0...255, using: &generator)) }.joined()
    }

    public static func isLoopback(_ host: String) -> Bool { loopbackNames.contains(hostName(host)) || host.hasPrefix("127.") }
}

/// Wrong tokens per client address: the first `free` cost nothing, then each one more makes the address wait
/// twice as long as the last (from one second, at most `longestWait`) before it is heard again, so a token cannot be
/// guessed at thousands a second. A right token clears the address. Kept for at most `addresses` addresses (the
/// oldest forgotten first), so a flood of addresses cannot grow it without end.
final class TokenFailures: Sendable {
    static let free = 5
    static let longestWait = 60
    static let addresses = 4_096
    private struct Record { var count: Int; var until: Date; var last: Date }
    private let records = Locked([String: Record]())

    /// The whole seconds `address` must still wait, or nil when it may try.
    func wait(for address: String) -> Int? {
        let now = Date()
        return records.withLock { records in
            guard let record = records[address], record.until > now else { return nil }
            return max(1, Int(record.until.timeIntervalSince(now).rounded(.up)))
        }
    }

    func failed(_ address: String) {
        let now = Date()
        records.withLock { records in
            var record = records[address] ?? Record(count: 0, until: now, last: now)
            record.count += 1
            record.last = now
            if record.count > Self.free {
                let seconds = min(Double(Self.longestWait), pow(2, Double(record.count - Self.free - 1)))
                record.until = now.addingTimeInterval(seconds)
            }
            records[address] = record
            if records.count > Self.addresses, let oldest = records.min(by: { $0.value.last < $1.value.last })?.key {
                records.removeValue(forKey: oldest)
            }
        }
    }

    func succeeded(_ address: String) {
        _ = records.withLock { $0.removeValue(forKey: address) }
    }
}
