import EarshotCore
import EarshotServer
import EarshotTestSupport
import Foundation
import XCTest

/// Connections that do nothing, trickle, or wait cannot keep an answer from anyone: the server's event loop holds
/// each for a descriptor, not a thread (before it, 70 idle sockets locked every client out of 64 slots).
final class ConnectionLoadTests: XCTestCase {
    func testAThousandIdleSocketsASlowLorisAndWaitingStreamsLockNobodyOut() throws {
        let token = "0123456789abcdef0123"
        let fixture = try ServerFixture(token: token)
        defer { fixture.stop() }
        let port = fixture.server.port
        var idle: [RawHTTPConnection] = []
        for _ in 0..<1000 { idle.append(try RawHTTPConnection(port: port)) }

        // a slow loris: a request head one byte at a time, for as long as the test runs
        let stop = Locked(false)
        let loris = try RawHTTPConnection(port: port)
        let trickle = Thread {
            for byte in "GET /api/health HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: \(String(repeating: "z", count: 400))".map(String.init) {
                if stop.withLock({ $0 }) || !loris.send(byte) { break }
                Thread.sleep(forTimeInterval: 0.05)
            }
        }
        trickle.start()
        defer { stop.withLock { $0 = true } }

        // more open event streams with nothing to send than the event loop has threads
        var streams: [RawHTTPConnection] = []
        for _ in 0..<8 {
            let opened = try fixture.client.request("POST", "/api/live", headers: ["Content-Type": "application/json"],
                                                    body: Data(#"{"kind":"transcribe"}"#.utf8))
            XCTAssertEqual(opened.status, 201, opened.text)
            let stream = try RawHTTPConnection(port: port)
            XCTAssertTrue(stream.send("GET \(opened.json["events"] as? String ?? "") HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                                      + "Authorization: Bearer \(token)\r\nAccept: text/event-stream\r\n\r\n"))
            XCTAssertTrue(stream.read(seconds: 1).text.hasPrefix("HTTP/1.1 200"), "the stream opened")
            streams.append(stream)
        }

        // everyone else is still answered, and a transcription still runs
        for _ in 0..<5 { XCTAssertEqual(try fixture.client.get("/api/health").status, 200) }
        let clip = try fixture.speech("The weather was cold and clear.", name: "clip.wav")
        let transcribed = try fixture.client.request("POST", "/v1/audio/transcriptions", form: [("model", "whisper-1")], files: [("file", clip)])
        XCTAssertEqual(transcribed.status, 200, transcribed.text)
        XCTAssertTrue(transcribed.text.lowercased().contains("cold"), transcribed.text)
        XCTAssertEqual(idle.count + streams.count, 1008)
    }

    /// Stopping the server with a handler still working and streams waiting: they end, nothing hangs or crashes.
    func testStoppingWithRequestsInFlightEndsThemAll() throws {
        let fixture = try ServerFixture()
        let port = fixture.server.port
        let opened = try fixture.client.request("POST", "/api/live", headers: ["Content-Type": "application/json"],
                                                body: Data(#"{"kind":"transcribe"}"#.utf8))
        let stream = try RawHTTPConnection(port: port)
        XCTAssertTrue(stream.send("GET \(opened.json["events"] as? String ?? "") HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept: text/event-stream\r\n\r\n"))
        XCTAssertTrue(stream.read(seconds: 2).text.hasPrefix("HTTP/1.1 200"))

        // a long transcription in flight (its connection suspended while the handler works)
        var long: [Float] = []
        for sentence in Sentences.all.prefix(6) { long += try TestAudio.speech(sentence).samples }
        let clip = try fixture.file("long.wav", TestAudio.wav16(long, rate: 16_000))
        let answered = DispatchSemaphore(value: 0)
        let status = Locked<Int?>(nil)
        let client = fixture.client
        DispatchQueue.global().async {
            let response = try? client.request("POST", "/v1/audio/transcriptions", form: [("model", "whisper-1")], files: [("file", clip)])
            status.withLock { $0 = response?.status }
            answered.signal()
        }
        Thread.sleep(forTimeInterval: 1.0)
        fixture.stop()
        XCTAssertEqual(answered.wait(timeout: .now() + 60), .success, "the waiting request ended")
        XCTAssertTrue([nil, 0, 200, 503].contains(status.withLock { $0 }), "an answer, a 503 or the connection closed: " + "\(String(describing: status.withLock { $0 }))")
        XCTAssertTrue(stream.read(seconds: 5).closed, "the waiting stream was closed")
        XCTAssertThrowsError(try RawHTTPConnection(port: port), "nothing listens any more")
    }
}
