import Foundation

/// A WebSocket client over a raw socket that sends exactly the frames a test asks for — masked or not, cut into
/// fragments, broken on purpose — and reads the server's frames with a deadline.
public final class WebSocketTestClient: @unchecked Sendable {
    // @unchecked: one test thread uses a client at a time.
    public struct Frame: Equatable {
        public var opcode: UInt8
        public var payload: [UInt8]
        public init(opcode: UInt8, payload: [UInt8]) { self.opcode = opcode; self.payload = payload }
        public var text: String { String(decoding: payload, as: UTF8.self) }
        /// A close frame's code.
        public var closeCode: UInt16? { opcode == 8 && payload.count >= 2 ? UInt16(payload[0]) << 8 | UInt16(payload[1]) : nil }
    }

    public let connection: RawHTTPConnection
    /// The handshake's answer head.
    public private(set) var answer = ""
    private var pending: [UInt8] = []

    /// Connects and sends the opening handshake for `path` with `headers` (Host and the WebSocket headers given).
    public init(port: Int, path: String, headers: [String: String] = [:], key: String = "dGhlIHNhbXBsZSBub25jZQ==") throws {
        connection = try RawHTTPConnection(port: port)
        var head = "GET \(path) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
            + "Sec-WebSocket-Key: \(key)\r\nSec-WebSocket-Version: 13\r\n"
        for (name, value) in headers { head += "\(name): \(value)\r\n" }
        connection.send(head + "\r\n")
        // the answer head, and any frames right behind it
        let deadline = Date().addingTimeInterval(30)
        while Date() < deadline {
            if let end = Self.find([13, 10, 13, 10], in: pending) {
                answer = String(decoding: pending[0..<end], as: UTF8.self)
                pending.removeFirst(end + 4)
                return
            }
            let (bytes, closed) = connection.readBytes(seconds: 0.5)
            pending += bytes
            if closed { break }
        }
        answer = String(decoding: pending, as: UTF8.self)
        pending = []
    }

    public var status: Int { Int(answer.split(separator: " ").dropFirst().first ?? "") ?? 0 }

    /// Sends one frame: `mask` false breaks RFC 6455's rule for clients; `rsv` sets reserved bits.
    @discardableResult
    public func send(opcode: UInt8, _ payload: [UInt8], fin: Bool = true, mask: Bool = true, rsv: UInt8 = 0,
                     declaredLength: UInt64? = nil) -> Bool {
        connection.sendBytes(Self.frame(opcode: opcode, payload, fin: fin, mask: mask, rsv: rsv, declaredLength: declaredLength))
    }

    @discardableResult
    public func send(text: String) -> Bool { send(opcode: 1, Array(text.utf8)) }

    /// A JSON event (an object) as a text frame.
    @discardableResult
    public func send(event: [String: Any]) -> Bool {
        send(text: String(decoding: try! JSONSerialization.data(withJSONObject: event), as: UTF8.self))
    }

    public static func frame(opcode: UInt8, _ payload: [UInt8], fin: Bool = true, mask: Bool = true, rsv: UInt8 = 0,
                             declaredLength: UInt64? = nil) -> [UInt8] {
        var bytes: [UInt8] = [(fin ? 0x80 : 0) | (rsv << 4) | opcode]
        let length = declaredLength ?? UInt64(payload.count)
        let maskBit: UInt8 = mask ? 0x80 : 0
        if length < 126 {
            bytes.append(maskBit | UInt8(length))
        } else if length <= 0xFFFF {
            bytes += [maskBit | 126, UInt8(length >> 8), UInt8(length & 0xFF)]
        } else {
            bytes.append(maskBit | 127)
            for shift in stride(from: 56, through: 0, by: -8) { bytes.append(UInt8(truncatingIfNeeded: length >> UInt64(shift))) }
        }
        guard mask else { return bytes + payload }
        let key: [UInt8] = (0..<4).map { _ in UInt8.random(in: 0...255) }
        return bytes + key + payload.enumerated().map { $0.element ^ key[$0.offset & 3] }
    }

    /// The next frame within `seconds`; nil when none came or the server closed the connection.
    public func next(seconds: Double = 30) -> Frame? {
        let deadline = Date().addingTimeInterval(seconds)
        while true {
            if let (frame, used) = Self.parse(pending) {
                pending.removeFirst(used)
                return frame
            }
            let left = deadline.timeIntervalSinceNow
            guard left > 0 else { return nil }
            let (bytes, closed) = connection.readBytes(seconds: min(left, 0.2), stopAfterAny: true)
            pending += bytes
            if closed && bytes.isEmpty && Self.parse(pending) == nil { return nil }
        }
    }

    /// The next JSON event (text frames), skipping pings; nil at a close or when none came.
    public func nextEvent(seconds: Double = 30) -> [String: Any]? {
        let deadline = Date().addingTimeInterval(seconds)
        while let frame = next(seconds: max(0.01, deadline.timeIntervalSinceNow)) {
            if frame.opcode == 1 { return (try? JSONSerialization.jsonObject(with: Data(frame.payload))) as? [String: Any] }
            if frame.opcode == 8 { return nil }
        }
        return nil
    }

    /// Events until one of `type` arrives (it included), within `seconds`.
    public func events(until type: String, seconds: Double = 60) -> [[String: Any]] {
        var seen: [[String: Any]] = []
        let deadline = Date().addingTimeInterval(seconds)
        while deadline.timeIntervalSinceNow > 0, let event = nextEvent(seconds: deadline.timeIntervalSinceNow) {
            seen.append(event)
            if event["type"] as? String == type { break }
        }
        return seen
    }

    /// Frames until the server's close frame (returned) or the connection ends.
    public func closeFrame(seconds: Double = 10) -> Frame? {
        let deadline = Date().addingTimeInterval(seconds)
        while deadline.timeIntervalSinceNow > 0, let frame = next(seconds: deadline.timeIntervalSinceNow) {
            if frame.opcode == 8 { return frame }
        }
        return nil
    }

    static func parse(_ bytes: [UInt8]) -> (Frame, Int)? {
        guard bytes.count >= 2 else { return nil }
        var length = Int(bytes[1] & 0x7F), header = 2
        if length == 126 {
            guard bytes.count >= 4 else { return nil }
            length = Int(bytes[2]) << 8 | Int(bytes[3]); header = 4
        } else if length == 127 {
            guard bytes.count >= 10 else { return nil }
            length = (2..<10).reduce(0) { $0 << 8 | Int(bytes[$1]) }; header = 10
        }
        guard bytes.count >= header + length else { return nil }
        return (Frame(opcode: bytes[0] & 0x0F, payload: Array(bytes[header..<(header + length)])), header + length)
    }

    static func find(_ needle: [UInt8], in haystack: [UInt8]) -> Int? {
        guard haystack.count >= needle.count else { return nil }
        return (0...(haystack.count - needle.count)).first { Array(haystack[$0..<($0 + needle.count)]) == needle }
    }
}
