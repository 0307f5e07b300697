import EarshotTestSupport
import Foundation
import XCTest

/// `earshot listen -` reads raw PCM from a pipe and prints JSON events: partials, then a final.
final class ListenCommandTests: XCTestCase {
    func testStdinStreamGivesPartialThenFinalEvents() throws {
        let speech = try TestAudio.speech(Sentences.all[3]).samples + TestAudio.silence(seconds: 1.5)
        let r = try CLI.run(["listen", "--json", "-"], stdin: TestAudio.rawS16(speech))
        XCTAssertEqual(r.status, 0, r.stderr)
        let events = r.stdout.split(separator: "\n").compactMap {
            try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
        }
        let types = events.compactMap { $0["type"] as? String }
        XCTAssertEqual(types.last, "final")
        XCTAssertEqual(types.filter { $0 == "final" }.count, 1)
        XCTAssertGreaterThanOrEqual(types.filter { $0 == "partial" }.count, 1)
        XCTAssertTrue((events.last?["text"] as? String ?? "").lowercased().contains("platform"))
        XCTAssertNotNil(events.last?["start"] as? Double)
        // Whisper's measures of the final line's reading, as `transcribe --json` gives them for segments
        let final = try XCTUnwrap(events.last)
        let logprob = try XCTUnwrap(final["avg_logprob"] as? Double, "\(final)")
        XCTAssertTrue((-1.0...0).contains(logprob), "a clear sentence is read surely: \(logprob)")
        XCTAssertTrue((0.0...1).contains(try XCTUnwrap(final["no_speech_prob"] as? Double)))
        XCTAssertGreaterThan(try XCTUnwrap(final["compression_ratio"] as? Double), 0)
        XCTAssertEqual(final["temperature"] as? Double, 0)
    }

    func testUnreadableFileIsReportedBeforeListening() throws {
        let r = try CLI.run(["listen", "/nonexistent/talk.wav"])
        XCTAssertEqual(r.status, 1)
        XCTAssertTrue(r.stderr.contains("/nonexistent/talk.wav: cannot read file (no such file)"), r.stderr)
    }

    func testMicrophoneAbsenceSuggestsThePipeRoute() throws {
        // this machine has no sound card; where one exists the command would just listen, so skip
        guard !FileManager.default.fileExists(atPath: "/dev/snd") else { throw XCTSkip("a sound device exists here") }
        let r = try CLI.run(["listen"])
        XCTAssertEqual(r.status, 1)
        XCTAssertTrue(r.stderr.contains("no microphone available"), r.stderr)
        XCTAssertTrue(r.stderr.contains("earshot listen -"), r.stderr)
    }
}
