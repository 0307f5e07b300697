@testable import EarshotServer
import EarshotCore
import EarshotTestSupport
import Foundation
import XCTest

/// Clients that trickle: a request head a byte at a time is cut off at the head deadline (the idle timeout restarts
/// with every byte, so it alone would wait for ever), a body slower than the minimum rate once its grace is over
/// is cut off, and neither touches a WebSocket, which has no more heads to send. The server here has short limits,
/// so the test takes seconds; the bounds it checks are several times the limits (no timing is asserted closely).
final class SlowClientTests: XCTestCase {
    private func server() throws -> HTTPServer {
        var limits = HTTPServer.Limits(maxUpload: 1 << 20)
        limits.headTimeout = 1
        limits.minBodyRate = 1_000
        limits.bodyGrace = 1
        let uploads = TestAudio.temporaryDirectory()
        return try HTTPServer(host: "127.0.0.1", port: 0, limits: limits, uploads: uploads, gate: { _ in nil }) { request in
            if request.path == "/socket" {
                return (try? HTTPResponse.webSocket(request) { connection in
                    Task { while case let .text(text)? = await connection.receive() { connection.send(text) } }
                }) ?? .error(400, "not a WebSocket")
            }
            return .text("ok")
        }
    }

    /// Sends `text` a byte every `interval` until the connection is closed or `seconds` pass; how long it lasted.
    private func trickle(_ connection: RawHTTPConnection, _ text: String, interval: Double, seconds: Double) -> Double {
        let began = Date()
        for byte in text.map(String.init) {
            if Date().timeIntervalSince(began) > seconds || !connection.send(byte) { break }
            if connection.readBytes(seconds: interval).closed { break }
        }
        return Date().timeIntervalSince(began)
    }

    func testATrickledHeadIsCutOffAtItsDeadline() throws {
        let server = try server()
        defer { server.stop() }
        let loris = try RawHTTPConnection(port: server.port)
        let head = "GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: " + String(repeating: "z", count: 200)
        let lasted = trickle(loris, head, interval: 0.2, seconds: 30)
        XCTAssertLessThan(lasted, 15, "cut off near the 1 s deadline, not left for the 30 s it would trickle")
        // a prompt client is answered, on a fresh connection and again on the same one after a pause under the deadline
        let prompt = try RawHTTPConnection(port: server.port)
        XCTAssertTrue(prompt.send("GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"))
        XCTAssertTrue(prompt.read(seconds: 2).text.hasSuffix("ok"))
    }

    func testABodySlowerThanTheMinimumRateIsCutOff() throws {
        let server = try server()
        defer { server.stop() }
        let slow = try RawHTTPConnection(port: server.port)
        XCTAssertTrue(slow.send("POST / HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/octet-stream\r\nContent-Length: 100000\r\n\r\n"))
        let lasted = trickle(slow, String(repeating: "b", count: 1_000), interval: 0.1, seconds: 30)
        XCTAssertLessThan(lasted, 15, "cut off once its grace was over")
        // a body at a normal pace goes through
        let fast = try RawHTTPConnection(port: server.port)
        XCTAssertTrue(fast.send("POST / HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/octet-stream\r\nContent-Length: 50000\r\n\r\n"
                                + String(repeating: "b", count: 50_000)))
        XCTAssertTrue(fast.read(seconds: 5).text.hasSuffix("ok"))
    }

    func testAWebSocketOutlivesTheHeadDeadline() throws {
        let server = try server()
        defer { server.stop() }
        let client = try WebSocketTestClient(port: server.port, path: "/socket")
        XCTAssertEqual(client.status, 101, client.answer)
        Thread.sleep(forTimeInterval: 3.5)  // past the 1 s head deadline, several sweeps
        XCTAssertTrue(client.send(text: "still here"))
        XCTAssertEqual(client.next(seconds: 5)?.text, "still here", "the socket was not shut")
    }
}
