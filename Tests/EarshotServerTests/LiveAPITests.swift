import EarshotCore
import EarshotTestSupport
import Foundation
import XCTest

/// A live session as the Listen page drives it: audio pushed in pieces, results read as Server-Sent Events.
final class LiveAPITests: XCTestCase {
    func testLiveTranscriptionStreamsTheSpokenWords() throws {
        let fixture = try ServerFixture()
        defer { fixture.stop() }
        let client = fixture.client
        let opened = try client.request("POST", "/api/live", headers: ["Content-Type": "application/json"], body: Data(#"{"kind":"transcribe"}"#.utf8))
        XCTAssertEqual(opened.status, 201, opened.text)
        let events = try XCTUnwrap(opened.json["events"] as? String), audio = try XCTUnwrap(opened.json["audio"] as? String)

        let received = Locked<[(event: String, data: String)]>([])
        let done = DispatchSemaphore(value: 0)
        DispatchQueue.global().async {
            let all = (try? client.events(events)) ?? []
            received.withLock { $0 = all }
            done.signal()
        }
        let speech = try TestAudio.speech("The weather will be sunny tomorrow afternoon.")
        let samples = speech.samples + TestAudio.silence(seconds: 1.5)
        for start in stride(from: 0, to: samples.count, by: 8000) {  // half-second pieces, as the page sends them
            let piece = Array(samples[start..<min(samples.count, start + 8000)])
            let body = piece.withUnsafeBufferPointer { Data(buffer: $0) }
            XCTAssertEqual(try client.request("POST", audio, headers: ["Content-Type": "application/octet-stream"], body: body).status, 204)
        }
        XCTAssertEqual(try client.request("DELETE", "/api/live/\(opened.json["id"] as? String ?? "")").status, 204)
        XCTAssertEqual(done.wait(timeout: .now() + 120), .success)
        let all = received.withLock { $0 }
        let finals = all.filter { $0.event == "final" }.map(\.data).joined(separator: " ").lowercased()
        XCTAssertTrue(finals.contains("sunny"), "\(all)")
        XCTAssertEqual(all.last?.event, "end")

        XCTAssertEqual(try client.request("POST", audio, headers: ["Content-Type": "application/octet-stream"], body: Data([0, 0, 0, 0])).status, 404,
                       "the session is gone")
        let bad = try client.request("POST", "/api/live", headers: ["Content-Type": "application/json"], body: Data(#"{"kind":"dance"}"#.utf8))
        XCTAssertEqual(bad.status, 400)
    }
}
