import Foundation

/// The opening handshake of RFC 6455 §4.2, server side: checks that a request asks for a WebSocket the way the
/// RFC says, and gives the headers of the 101 answer.
enum WebSocketHandshake {
    static let guid = "258EAFA5-E914-47DA-95CA-C5AB0DC85B11"

    /// Whether a request asks to become a WebSocket at all (the access check treats those as changing state).
    /// Header names in lower case, as `RequestHead` and `HTTPRequest` keep them.
    static func isUpgrade(_ headers: [String: String]) -> Bool {
        tokens(headers["upgrade"]).contains("websocket")
    }

    /// The 101 answer's headers, or the error that refuses the request. `protocols` are the subprotocols this
    /// endpoint speaks, preferred first; one the client offered is chosen (browsers drop a connection whose answer
    /// names none when they offered some).
    static func accept(method: String, headers: [String: String], protocols: [String]) throws -> [(String, String)] {
        guard method == "GET" else { throw HTTPError(405, "a WebSocket opens with GET", headers: [("Allow", "GET")]) }
        guard isUpgrade(headers), tokens(headers["connection"]).contains("upgrade") else {
            throw HTTPError(426, "this endpoint speaks WebSocket: send 'Upgrade: websocket' and 'Connection: Upgrade'",
                            headers: [("Upgrade", "websocket")])
        }
        guard headers["sec-websocket-version"]?.trimmingCharacters(in: .whitespaces) == "13" else {
            throw HTTPError(426, "only WebSocket version 13 (RFC 6455) is spoken", headers: [("Sec-WebSocket-Version", "13")])
        }
        guard let key = headers["sec-websocket-key"]?.trimmingCharacters(in: .whitespaces),
              Data(base64Encoded: key)?.count == 16 else {
            throw HTTPError(400, "Sec-WebSocket-Key must be 16 random bytes in base64")
        }
        var answer = [("Upgrade", "websocket"), ("Connection", "Upgrade"), ("Sec-WebSocket-Accept", acceptKey(for: key))]
        let offered = offeredProtocols(headers)
        if let chosen = protocols.first(where: offered.contains) ?? offered.first(where: { !$0.contains(".") }) {
            answer.append(("Sec-WebSocket-Protocol", chosen))
        }
        return answer
    }

    static func acceptKey(for key: String) -> String {
        Data(SHA1.digest(Array((key + guid).utf8))).base64EncodedString()
    }

    /// Subprotocols the client offered, in its order (`Sec-WebSocket-Protocol: a, b`).
    static func offeredProtocols(_ headers: [String: String]) -> [String] {
        (headers["sec-websocket-protocol"] ?? "").split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
            .filter { !$0.isEmpty }
    }

    private static func tokens(_ value: String?) -> [String] {
        (value ?? "").lowercased().split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
    }
}
