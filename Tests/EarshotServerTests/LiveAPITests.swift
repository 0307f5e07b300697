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
        let speech = try TestAudio.speech("The weather will be sunny tomorrow afternoon.")
        let all = try fixture.live(#"{"kind":"transcribe"}"#, samples: speech.samples + TestAudio.silence(seconds: 1.5))
        let finals = all.filter { $0.event == "final" }.map(\.data).joined(separator: " ").lowercased()
        XCTAssertTrue(finals.contains("sunny"), "\(all)")
        XCTAssertEqual(all.last?.event, "end")

        // the session is gone once it ended
        let opened = try client.request("POST", "/api/live", headers: ["Content-Type": "application/json"], body: Data(#"{"kind":"transcribe"}"#.utf8))
        let audio = try XCTUnwrap(opened.json["audio"] as? String)
        XCTAssertEqual(try client.request("DELETE", "/api/live/\(opened.json["id"] as? String ?? "")").status, 204)
        XCTAssertEqual(try client.request("POST", audio, headers: ["Content-Type": "application/octet-stream"], body: Data([0, 0, 0, 0])).status, 404)
        let bad = try client.request("POST", "/api/live", headers: ["Content-Type": "application/json"], body: Data(#"{"kind":"dance"}"#.utf8))
        XCTAssertEqual(bad.status, 400)
        // naming the voices needs someone enrolled (SoundVoiceAPITests names them)
        let nobody = try client.request("POST", "/api/live", headers: ["Content-Type": "application/json"],
                                        body: Data(#"{"kind":"transcribe","speakers":true}"#.utf8))
        XCTAssertEqual(nobody.status, 404, nobody.text)
        XCTAssertTrue(nobody.text.contains("no voices enrolled"), nobody.text)
    }
}
