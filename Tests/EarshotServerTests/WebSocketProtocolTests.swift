@testable import EarshotServer
import EarshotTestSupport
import Foundation
import XCTest

/// RFC 6455 as the server reads it: the handshake's accept key, frames and messages, and every rule a client
/// can break (each ends the connection with the code the RFC names).
final class WebSocketProtocolTests: XCTestCase {
    private func read(_ bytes: [UInt8], maxMessage: Int = 1 << 20, oneByteAtATime: Bool = false) -> [WebSocketInput] {
        var reader = WebSocketReader(maxMessage: maxMessage)
        if !oneByteAtATime { return bytes.withUnsafeBytes { reader.consume($0) } }
        return bytes.flatMap { byte in [byte].withUnsafeBytes { reader.consume($0) } }
    }

    private func frame(_ opcode: UInt8, _ text: String, fin: Bool = true, mask: Bool = true, rsv: UInt8 = 0) -> [UInt8] {
        WebSocketTestClient.frame(opcode: opcode, Array(text.utf8), fin: fin, mask: mask, rsv: rsv)
    }

    func testTheAcceptKeyIsTheRFCsExample() {
        // RFC 6455 §1.3
        XCTAssertEqual(WebSocketHandshake.acceptKey(for: "dGhlIHNhbXBsZSBub25jZQ=="), "s3pPLMBiTxaQ9kYGzzhZRbK+xOo=")
        XCTAssertEqual(SHA1.digest(Array("abc".utf8)).map { String(format: "%02x", $0) }.joined(), "a9993e364706816aba3e25717850c26c9cd0d89d")
        XCTAssertEqual(SHA1.digest([]).map { String(format: "%02x", $0) }.joined(), "da39a3ee5e6b4b0d3255bfef95601890afd80709")
    }

    func testTheHandshakeIsCheckedAndAProtocolChosen() throws {
        let good = ["upgrade": "websocket", "connection": "keep-alive, Upgrade", "sec-websocket-version": "13",
                    "sec-websocket-key": "dGhlIHNhbXBsZSBub25jZQ==", "sec-websocket-protocol": "realtime, openai-insecure-api-key.secret"]
        let headers = try WebSocketHandshake.accept(method: "GET", headers: good, protocols: ["realtime"])
        XCTAssertTrue(headers.contains { $0 == ("Sec-WebSocket-Protocol", "realtime") }, "\(headers)")
        XCTAssertFalse(headers.contains { $0.1.contains("secret") }, "the token is never echoed")
        func status(_ change: [String: String?]) -> Int? {
            var headers = good
            for (name, value) in change { headers[name] = value }
            do { _ = try WebSocketHandshake.accept(method: "GET", headers: headers, protocols: []); return nil } catch let error as HTTPError {
                return error.status
            } catch { return -1 }
        }
        XCTAssertEqual(status(["sec-websocket-version": "8"]), 426)
        XCTAssertEqual(status(["upgrade": nil]), 426)
        XCTAssertEqual(status(["sec-websocket-key": "c2hvcnQ="]), 400, "a key that is not 16 bytes")
        XCTAssertEqual(status(["sec-websocket-key": nil]), 400)
        XCTAssertThrowsError(try WebSocketHandshake.accept(method: "POST", headers: good, protocols: []))
    }

    func testMessagesWholeFragmentedAndWithPingsBetween() {
        XCTAssertEqual(read(frame(1, "hello")), [.text("hello")])
        let fragmented = frame(1, "hel", fin: false) + frame(9, "are you there") + frame(0, "lo ", fin: false) + frame(0, "wörld")
        XCTAssertEqual(read(fragmented), [.ping(Array("are you there".utf8)), .text("hello wörld")])
        XCTAssertEqual(read(fragmented, oneByteAtATime: true), [.ping(Array("are you there".utf8)), .text("hello wörld")],
                       "the same whatever the bytes' arrival")
        let long = String(repeating: "x", count: 70_000)
        XCTAssertEqual(read(frame(1, long)), [.text(long)], "a 64-bit length")
        XCTAssertEqual(read(WebSocketTestClient.frame(opcode: 2, [0, 1, 2])), [.binary([0, 1, 2])])
        XCTAssertEqual(read(WebSocketTestClient.frame(opcode: 8, [0x03, 0xE8] + Array("bye".utf8))), [.close(code: 1000, reason: "bye")])
        XCTAssertEqual(read(WebSocketTestClient.frame(opcode: 8, [])), [.close(code: nil, reason: "")])
    }

    func testEveryBrokenRuleClosesWithItsCode() {
        func code(_ bytes: [UInt8], maxMessage: Int = 1 << 20) -> WebSocketCloseCode? {
            for input in read(bytes, maxMessage: maxMessage) { if case let .violation(code, _) = input { return code } }
            return nil
        }
        XCTAssertEqual(code(frame(1, "hi", mask: false)), .protocolError, "client frames must be masked")
        XCTAssertEqual(code(frame(1, "hi", rsv: 4)), .protocolError, "no extension was agreed")
        XCTAssertEqual(code(frame(3, "hi")), .protocolError, "a reserved opcode")
        XCTAssertEqual(code(frame(0, "hi")), .protocolError, "a continuation of nothing")
        XCTAssertEqual(code(frame(1, "a", fin: false) + frame(1, "b")), .protocolError, "a message inside a message")
        XCTAssertEqual(code(frame(9, "x", fin: false)), .protocolError, "a fragmented ping")
        XCTAssertEqual(code(frame(9, String(repeating: "p", count: 126))), .protocolError, "a ping over 125 bytes")
        XCTAssertEqual(code(WebSocketTestClient.frame(opcode: 1, [0xC3, 0x28])), .invalidText, "text that is not UTF-8")
        XCTAssertEqual(code(WebSocketTestClient.frame(opcode: 8, [0x03, 0xED])), .protocolError, "close code 1005 may not be sent")
        XCTAssertEqual(code(WebSocketTestClient.frame(opcode: 8, [0x03])), .protocolError, "a one-byte close payload")
        XCTAssertEqual(code(frame(1, String(repeating: "y", count: 2_000)), maxMessage: 1_000), .tooBig)
        XCTAssertEqual(code(frame(1, "ab", fin: false) + frame(0, String(repeating: "z", count: 999)), maxMessage: 1_000), .tooBig,
                       "fragments count together")
        // a huge declared length is refused from the header alone, before any of it is buffered
        XCTAssertEqual(code(WebSocketTestClient.frame(opcode: 2, [], declaredLength: 1 << 40)), .tooBig)
        XCTAssertEqual(code(WebSocketTestClient.frame(opcode: 2, [], declaredLength: 1 << 63)), .tooBig)
        // after a violation nothing more is read
        var reader = WebSocketReader(maxMessage: 100)
        _ = frame(1, "x", mask: false).withUnsafeBytes { reader.consume($0) }
        XCTAssertEqual(frame(1, "more").withUnsafeBytes { reader.consume($0) }, [])
    }

    func testServerFramesAreUnmaskedWithTheShortestLength() {
        XCTAssertEqual(WebSocketFrame(fin: true, opcode: .text, payload: Array("hi".utf8)).encoded(), [0x81, 2, 0x68, 0x69])
        XCTAssertEqual(Array(WebSocketFrame(fin: true, opcode: .binary, payload: [UInt8](repeating: 0, count: 126)).encoded().prefix(4)),
                       [0x82, 126, 0, 126])
        XCTAssertEqual(Array(WebSocketFrame(fin: true, opcode: .binary, payload: [UInt8](repeating: 0, count: 70_000)).encoded().prefix(10)),
                       [0x82, 127, 0, 0, 0, 0, 0, 1, 0x11, 0x70])
        let close = WebSocketFrame.close(.normal, String(repeating: "é", count: 100)).encoded()
        XCTAssertLessThanOrEqual(close.count - 2, 125, "a close frame's reason is cut to fit")
        XCTAssertNotNil(String(validating: close[4...], as: UTF8.self), "on a character boundary")
    }
}
