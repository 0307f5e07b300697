import Foundation

/// RFC 6455 close codes the server sends.
public enum WebSocketCloseCode: UInt16, Sendable {
    case normal = 1000
    case goingAway = 1001
    case protocolError = 1002
    case unacceptableData = 1003
    case invalidText = 1007
    case policyViolation = 1008
    case tooBig = 1009
    case serverError = 1011
    case tryAgainLater = 1013
}

/// One frame of the WebSocket protocol (RFC 6455 §5.2).
struct WebSocketFrame: Equatable {
    enum Opcode: UInt8 {
        case continuation = 0x0, text = 0x1, binary = 0x2, close = 0x8, ping = 0x9, pong = 0xA
        var isControl: Bool { rawValue & 0x8 != 0 }
    }

    var fin: Bool
    var opcode: Opcode
    var payload: [UInt8]

    /// The frame as the server sends it: never masked (§5.1), the length in the shortest form.
    func encoded() -> [UInt8] {
        var bytes: [UInt8] = [(fin ? 0x80 : 0) | opcode.rawValue]
        switch payload.count {
        case 0..<126: bytes.append(UInt8(payload.count))
        case 126...0xFFFF: bytes += [126, UInt8(payload.count >> 8), UInt8(payload.count & 0xFF)]
        default:
            bytes.append(127)
            for shift in stride(from: 56, through: 0, by: -8) { bytes.append(UInt8(truncatingIfNeeded: payload.count >> shift)) }
        }
        return bytes + payload
    }

    static func close(_ code: WebSocketCloseCode, _ reason: String) -> WebSocketFrame { close(code: code.rawValue, reason) }

    static func close(code: UInt16, _ reason: String) -> WebSocketFrame {
        // a control frame carries at most 125 bytes: the code's 2 and up to 123 of reason, cut on a character
        var text = reason
        while text.utf8.count > 123 { text.removeLast() }
        return WebSocketFrame(fin: true, opcode: .close, payload: [UInt8(code >> 8), UInt8(code & 0xFF)] + Array(text.utf8))
    }
}

/// What a client's bytes turn into: a whole message, a control frame, or a violation that ends the connection.
enum WebSocketInput: Equatable {
    case text(String)
    case binary([UInt8])
    case ping([UInt8])
    case pong
    /// The client's close: its code (nil when it gave none) and reason.
    case close(code: UInt16?, reason: String)
    case violation(WebSocketCloseCode, String)
}

/// Reads a client's byte stream into frames and messages, enforcing what RFC 6455 requires of a server: client
/// frames masked, no reserved bits (no extension is negotiated), known opcodes, control frames short and whole,
/// continuations only inside a fragmented message, text valid UTF-8, and messages no larger than `maxMessage`.
struct WebSocketReader {
    let maxMessage: Int
    private var buffer: [UInt8] = []
    private var fragments: [UInt8] = []
    private var fragmentedOpcode: WebSocketFrame.Opcode?
    private(set) var failed = false

    init(maxMessage: Int) { self.maxMessage = maxMessage }

    /// Bytes buffered and not yet a whole frame or message (what a slow or partial client costs).
    var pendingBytes: Int { buffer.count + fragments.count }

    /// Takes the next bytes; returns what they complete, in order. After a violation nothing more is read.
    mutating func consume(_ bytes: UnsafeRawBufferPointer) -> [WebSocketInput] {
        guard !failed else { return [] }
        buffer.append(contentsOf: bytes)
        var inputs: [WebSocketInput] = []
        var offset = 0
        scanning: while !failed {
            switch nextFrame(from: offset) {
            case .incomplete: break scanning
            case let .broken(violation): inputs.append(violation)
            case let .frame(frame, used):
                offset += used
                if let input = take(frame) { inputs.append(input) }
            }
        }
        if failed { buffer = []; fragments = [] } else { buffer.removeFirst(offset) }
        return inputs
    }

    private mutating func violation(_ code: WebSocketCloseCode, _ why: String) -> WebSocketInput {
        failed = true
        return .violation(code, why)
    }

    private enum Scan {
        case incomplete
        case frame(WebSocketFrame, bytes: Int)
        case broken(WebSocketInput)
    }

    /// The frame at `offset` with the bytes it spans, as soon as its header shows a broken rule, or incomplete.
    private mutating func nextFrame(from offset: Int) -> Scan {
        let available = buffer.count - offset
        guard available >= 2 else { return .incomplete }
        let first = buffer[offset], second = buffer[offset + 1]
        guard first & 0x70 == 0 else { return .broken(violation(.protocolError, "reserved bits set (no extension was agreed)")) }
        guard let opcode = WebSocketFrame.Opcode(rawValue: first & 0x0F) else {
            return .broken(violation(.protocolError, "unknown opcode \(first & 0x0F)"))
        }
        guard second & 0x80 != 0 else { return .broken(violation(.protocolError, "client frames must be masked")) }
        var header = 2
        var length = Int(second & 0x7F)
        if length == 126 {
            guard available >= 4 else { return .incomplete }
            length = Int(buffer[offset + 2]) << 8 | Int(buffer[offset + 3])
            header = 4
        } else if length == 127 {
            guard available >= 10 else { return .incomplete }
            var long: UInt64 = 0
            for i in 2..<10 { long = long << 8 | UInt64(buffer[offset + i]) }
            guard long <= UInt64(maxMessage) else {
                return .broken(violation(.tooBig, "a frame of \(long) bytes is over the limit of \(maxMessage)"))
            }
            length = Int(long)
            header = 10
        }
        let fin = first & 0x80 != 0
        if opcode.isControl {
            guard fin, length <= 125 else { return .broken(violation(.protocolError, "control frames must be whole and at most 125 bytes")) }
        } else if fragments.count + length > maxMessage {
            return .broken(violation(.tooBig, "a message over the limit of \(maxMessage) bytes"))
        }
        let total = header + 4 + length
        guard available >= total else { return .incomplete }
        let maskAt = offset + header, start = maskAt + 4
        var payload = [UInt8](repeating: 0, count: length)
        for i in 0..<length { payload[i] = buffer[start + i] ^ buffer[maskAt + (i & 3)] }
        return .frame(WebSocketFrame(fin: fin, opcode: opcode, payload: payload), bytes: total)
    }

    /// A frame's meaning: control frames at once (they may come between fragments), data once the message is whole.
    private mutating func take(_ frame: WebSocketFrame) -> WebSocketInput? {
        switch frame.opcode {
        case .ping: return .ping(frame.payload)
        case .pong: return .pong
        case .close: return closeInput(frame.payload)
        case .continuation:
            guard let opcode = fragmentedOpcode else { return violation(.protocolError, "a continuation frame with no message to continue") }
            fragments += frame.payload
            guard frame.fin else { return nil }
            fragmentedOpcode = nil
            defer { fragments = [] }
            return message(opcode, fragments)
        case .text, .binary:
            guard fragmentedOpcode == nil else { return violation(.protocolError, "a new message began before the last one ended") }
            guard frame.fin else { fragmentedOpcode = frame.opcode; fragments = frame.payload; return nil }
            return message(frame.opcode, frame.payload)
        }
    }

    private mutating func message(_ opcode: WebSocketFrame.Opcode, _ payload: [UInt8]) -> WebSocketInput {
        guard opcode == .text else { return .binary(payload) }
        guard let text = String(validating: payload, as: UTF8.self) else { return violation(.invalidText, "a text message that is not UTF-8") }
        return .text(text)
    }

    private mutating func closeInput(_ payload: [UInt8]) -> WebSocketInput {
        guard !payload.isEmpty else { return .close(code: nil, reason: "") }
        guard payload.count >= 2 else { return violation(.protocolError, "a close frame with a 1-byte code") }
        let code = UInt16(payload[0]) << 8 | UInt16(payload[1])
        // codes a peer may send (§7.4): 1000–1003, 1007–1011, and 3000–4999 for applications
        guard (1000...1003).contains(code) || (1007...1011).contains(code) || (3000...4999).contains(code) else {
            return violation(.protocolError, "close code \(code) may not be sent")
        }
        guard let reason = String(validating: payload[2...], as: UTF8.self) else { return violation(.invalidText, "a close reason that is not UTF-8") }
        return .close(code: code, reason: reason)
    }
}
