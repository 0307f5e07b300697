import EarshotCore
import EarshotTestSupport
import Foundation
import XCTest

/// `earshot diarize`, `earshot transcribe --speakers`, `earshot listen --speakers` and `earshot score` on RTTM,
/// as a user runs them.
final class DiarizeCommandTests: XCTestCase {
    var dir: URL!
    override func setUp() { dir = TestAudio.temporaryDirectory() }
    override func tearDown() { try? FileManager.default.removeItem(at: dir) }

    /// Two espeak-ng voices taking turns (their count is given: the synthesiser's voices sound alike to the
    /// speaker network, see DiarizationTests).
    func conversation() throws -> URL {
        let lines = ["Good morning, I wanted to talk about the budget for the spring campaign.",
                     "Sure, I have the figures from last quarter here with me.",
                     "Then let us move some of that money to the online adverts instead.",
                     "I can send the updated spreadsheet to everyone this afternoon."]
        var parts: [String] = []
        for (i, line) in lines.enumerated() {
            let url = dir.appendingPathComponent("turn\(i).wav")
            try TestAudio.speak(line, to: url, voice: i % 2 == 0 ? "en-us+m5" : "en-gb+f4")
            parts.append(url.path)
        }
        let out = dir.appendingPathComponent("standup.wav")
        _ = try TestAudio.run("sox", parts + ["-r", "16000", "-c", "1", out.path])
        return out
    }

    func testTurnsAsRTTMTextAndJSONAndScoredAgainstAReference() throws {
        let talk = try conversation()
        let rttm = try CLI.run(["diarize", "--num-speakers", "2", talk.path])
        XCTAssertEqual(rttm.status, 0, rttm.stderr)
        let lines = rttm.stdout.split(separator: "\n")
        XCTAssertGreaterThanOrEqual(lines.count, 4, rttm.stdout)
        XCTAssertTrue(lines.allSatisfy { $0.hasPrefix("SPEAKER standup 1 ") && $0.hasSuffix(" <NA> <NA>") }, rttm.stdout)
        XCTAssertEqual(Set(lines.map { $0.split(separator: " ")[7] }), ["SPEAKER_01", "SPEAKER_02"])
        XCTAssertEqual(lines.map { $0.split(separator: " ")[7] }.prefix(4), ["SPEAKER_01", "SPEAKER_02", "SPEAKER_01", "SPEAKER_02"])

        let text = try CLI.run(["diarize", "--format", "txt", "--num-speakers", "2", talk.path])
        XCTAssertNotNil(text.stdout.range(of: #"^00:00:0\d\.\d{3} – 00:00:\d\d\.\d{3}  SPEAKER_01\n"#, options: .regularExpression), text.stdout)
        let json = try CLI.run(["diarize", "--json", "--num-speakers", "2", talk.path])
        let document = try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any]
        XCTAssertEqual((document?["speakers"] as? [[String: Any]])?.count, 2)
        XCTAssertEqual((document?["turns"] as? [[String: Any]])?.first?["speaker"] as? String, "SPEAKER_01")

        // scored against itself, and against a reference that names the speakers the other way round
        let hyp = dir.appendingPathComponent("hyp.rttm"), swapped = dir.appendingPathComponent("swapped.rttm")
        try Data(rttm.stdout.utf8).write(to: hyp)
        try Data(rttm.stdout.replacingOccurrences(of: "SPEAKER_01", with: "X").replacingOccurrences(of: "SPEAKER_02", with: "SPEAKER_01")
            .replacingOccurrences(of: "X", with: "SPEAKER_02").utf8).write(to: swapped)
        let same = try CLI.run(["score", "--json", hyp.path, hyp.path])
        XCTAssertEqual(same.status, 0, same.stderr)
        XCTAssertEqual(((try JSONSerialization.jsonObject(with: Data(same.stdout.utf8)) as? [String: Any])?["total"] as? [String: Any])?["der"] as? Double, 0)
        let mapped = try CLI.run(["score", swapped.path, hyp.path])
        XCTAssertTrue(mapped.stdout.hasPrefix("DER 0.00%"), mapped.stdout)
        // by name: a named voice is right only under its own name; voices nobody named are matched among themselves
        let named = dir.appendingPathComponent("named.rttm"), namedSwapped = dir.appendingPathComponent("named-swapped.rttm")
        try Data(rttm.stdout.replacingOccurrences(of: "SPEAKER_01", with: "Ann").replacingOccurrences(of: "SPEAKER_02", with: "Bob").utf8).write(to: named)
        try Data(rttm.stdout.replacingOccurrences(of: "SPEAKER_01", with: "Bob").replacingOccurrences(of: "SPEAKER_02", with: "Ann").utf8)
            .write(to: namedSwapped)
        let byName = try CLI.run(["score", "--by-name", namedSwapped.path, named.path])
        XCTAssertTrue(byName.stdout.hasPrefix("DER 100.00%"), byName.stdout)
        let unnamed = try CLI.run(["score", "--by-name", swapped.path, hyp.path])
        XCTAssertTrue(unnamed.stdout.hasPrefix("DER 0.00%"), unnamed.stdout)
        let scored = try CLI.run(["diarize", "--num-speakers", "2", "--reference", swapped.path, talk.path])
        XCTAssertTrue(scored.stderr.contains("DER 0.00% (collar 0.25 s"), scored.stderr)
    }

    func testTranscriptsSayWhoSaidWhatFromAFileAndFromStandardInput() throws {
        let talk = try conversation()
        let r = try CLI.run(["transcribe", "--speakers", "--num-speakers", "2", talk.path])
        XCTAssertEqual(r.status, 0, r.stderr)
        let speakers = r.stdout.split(separator: "\n").map { $0.split(separator: ":").first.map(String.init) ?? "" }
        XCTAssertEqual(Set(speakers), ["SPEAKER_01", "SPEAKER_02"], r.stdout)
        XCTAssertTrue(r.stdout.lowercased().contains("spreadsheet"), r.stdout)
        let piped = try CLI.run(["transcribe", "--speakers", "--num-speakers", "2", "--format", "vtt", "-"], stdin: try Data(contentsOf: talk))
        XCTAssertEqual(piped.status, 0, piped.stderr)
        XCTAssertTrue(piped.stdout.contains("<v SPEAKER_01>") && piped.stdout.contains("<v SPEAKER_02>"), piped.stdout)
        let json = try CLI.run(["transcribe", "--speakers", "--num-speakers", "2", "--json", talk.path])
        let segments = (try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any])?["segments"] as? [[String: Any]]
        XCTAssertTrue(segments?.allSatisfy { ($0["speaker"] as? String)?.hasPrefix("SPEAKER_") == true } == true, json.stdout)
        XCTAssertTrue(segments?.allSatisfy { $0["words"] == nil } == true, "words only when asked for")
    }

    func testBadFilesAndBadCountsAreNamedAndTheRunGoesOn() throws {
        let talk = try conversation()
        let text = dir.appendingPathComponent("notes.txt")
        try Data("not audio".utf8).write(to: text)
        let r = try CLI.run(["diarize", "--num-speakers", "2", text.path, "missing.wav", talk.path])
        XCTAssertEqual(r.status, 1)
        XCTAssertTrue(r.stderr.contains("\(text.path): not an audio file"), r.stderr)
        XCTAssertTrue(r.stderr.contains("missing.wav: cannot read file"), r.stderr)
        XCTAssertTrue(r.stdout.contains("SPEAKER standup 1 "), r.stdout)
        for bad in [["--num-speakers", "0"], ["--num-speakers", "2", "--max-speakers", "3"], ["--min-speakers", "4", "--max-speakers", "2"],
                    ["--format", "csv"], ["--threshold", "2"]] {
            let refused = try CLI.run(["diarize"] + bad + [talk.path])
            XCTAssertEqual(refused.status, 2, "\(bad): \(refused.stderr)")
            XCTAssertTrue(refused.stderr.contains("earshot diarize --help"), refused.stderr)
        }
        XCTAssertEqual(try CLI.run(["transcribe", "--num-speakers", "2", talk.path]).status, 2, "--num-speakers needs --speakers")
        let help = try CLI.run(["diarize", "--help"])
        XCTAssertTrue(help.stdout.contains("EXAMPLES:") && help.stdout.contains("--num-speakers"), help.stdout)
    }

    func testLiveLinesAreLabelledWithTheEnrolledVoice() throws {
        let home = try TestHome.make(linking: ["voice/background", "voice/cache"])
        defer { try? FileManager.default.removeItem(at: home) }
        let environment = ["EARSHOT_HOME": home.path]
        let talk = try conversation()
        let nobody = try CLI.run(["listen", "--speakers", talk.path], environment: environment)
        XCTAssertEqual(nobody.status, 1)
        XCTAssertTrue(nobody.stderr.contains("no voices enrolled yet"), nobody.stderr)
        let clips = try (0..<3).map { i -> String in
            let url = dir.appendingPathComponent("ruth\(i).wav")
            try TestAudio.speak(Sentences.all[i] + " " + Sentences.all[i + 4], to: url, voice: "en-us+m5")
            return url.path
        }
        let enrolled = try CLI.run(["voice", "enroll", "Ruth"] + clips, environment: environment)
        XCTAssertEqual(enrolled.status, 0, enrolled.stderr)
        // live lines end at pauses: the same turns a second apart
        var spaced: [Float] = []
        for i in 0..<4 {
            spaced += try AudioFileLoader().load(path: dir.appendingPathComponent("turn\(i).wav").path).samples + TestAudio.silence(seconds: 1.2)
        }
        let paced = dir.appendingPathComponent("paced.wav")
        try TestAudio.wav16(spaced, rate: 16_000).write(to: paced)
        let r = try CLI.run(["listen", "--speakers", "--json", paced.path], environment: environment)
        XCTAssertEqual(r.status, 0, r.stderr)
        let finals = r.stdout.split(separator: "\n").compactMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
            .filter { $0["type"] as? String == "final" }
        let labels = finals.map { $0["speaker"] as? String ?? "" }
        XCTAssertEqual(labels, ["Ruth", "someone else", "Ruth", "someone else"], r.stdout)
    }
}
