import EarshotTestSupport
import Foundation
import XCTest

/// `earshot transcribe` as a user runs it: formats, several files, stdin, and bad input that never stops the run.
final class TranscribeCommandTests: XCTestCase {
    var dir: URL!
    override func setUp() { dir = TestAudio.temporaryDirectory() }
    override func tearDown() { try? FileManager.default.removeItem(at: dir) }

    func speechFile(_ name: String, _ text: String) throws -> URL {
        let url = dir.appendingPathComponent(name)
        try TestAudio.speak(text, to: url)
        return url
    }

    func testGoodFilesAreTranscribedAndBadOnesReportedWithoutStoppingTheRun() throws {
        let good = try speechFile("good.wav", Sentences.all[0])
        let empty = dir.appendingPathComponent("empty.wav")
        try Data().write(to: empty)
        let text = dir.appendingPathComponent("readme.txt")
        try Data("hello".utf8).write(to: text)
        let cut = dir.appendingPathComponent("cut.wav")
        try Data(contentsOf: good).prefix(3000).write(to: cut)
        let flac = dir.appendingPathComponent("good.flac")
        try TestAudio.run("sox", [good.path, flac.path])

        let r = try CLI.run(["transcribe", empty.path, text.path, good.path, cut.path, "missing.wav", flac.path])
        XCTAssertEqual(r.status, 1, "a failed input makes the exit code non-zero")
        XCTAssertTrue(r.stdout.contains("==> \(good.path) <=="))
        XCTAssertTrue(r.stdout.contains("==> \(flac.path) <=="))
        XCTAssertTrue(r.stdout.lowercased().contains("cold and clear"), r.stdout)
        let errors = r.stderr.split(separator: "\n")
        XCTAssertEqual(errors.count, 4, r.stderr)
        XCTAssertTrue(r.stderr.contains("\(empty.path): file is empty"))
        XCTAssertTrue(r.stderr.contains("\(text.path): not an audio file"))
        XCTAssertTrue(r.stderr.contains("\(cut.path): truncated audio file"))
        XCTAssertTrue(r.stderr.contains("missing.wav: cannot read file (no such file)"))
    }

    /// Files read two at a time (each lane its own Whisper on one thread) give the same documents, in the order given,
    /// as one after another on two threads: a long file first, so the short ones after it are read before it ends and
    /// wait; a bad file in between is reported and the rest go on.
    func testFilesReadAtOnceGiveTheSameDocumentsInTheirOrder() throws {
        let long = dir.appendingPathComponent("long.wav")
        let parts = try (0..<3).map { try speechFile("part\($0).wav", Sentences.all[$0]).path }
        try TestAudio.run("sox", parts + [long.path])
        let short = try (3..<6).map { try speechFile("s\($0).wav", Sentences.all[$0]).path }
        let bad = dir.appendingPathComponent("bad.wav")
        try Data("not audio".utf8).write(to: bad)
        let files = [long.path, short[0], bad.path, short[1], short[2]]
        let one = try CLI.run(["transcribe", "--json", "--words", "--threads", "2", "--jobs", "1"] + files)
        let two = try CLI.run(["transcribe", "--json", "--words", "--threads", "2", "--jobs", "2"] + files)
        XCTAssertEqual(one.status, 1, one.stderr)
        XCTAssertEqual(two.status, 1, two.stderr)
        XCTAssertEqual(two.stderr, one.stderr)
        XCTAssertTrue(two.stderr.contains("\(bad.path): not an audio file"), two.stderr)
        XCTAssertEqual(two.stdout, one.stdout)
        let sources = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(two.stdout.utf8)) as? [[String: Any]]).map { $0["source"] as? String }
        XCTAssertEqual(sources, [long.path, short[0], short[1], short[2]])
    }

    func testSubtitlesAndJSONWrittenToAFolder() throws {
        let a = try speechFile("a.wav", Sentences.all[1])
        let out = dir.appendingPathComponent("out")
        for format in ["srt", "vtt", "json"] {
            let r = try CLI.run(["transcribe", "--format", format, "--output", out.path, a.path])
            XCTAssertEqual(r.status, 0, r.stderr)
        }
        let srt = try String(contentsOf: out.appendingPathComponent("a.srt"), encoding: .utf8)
        XCTAssertNotNil(srt.range(of: #"^1\n\d\d:\d\d:\d\d,\d\d\d --> \d\d:\d\d:\d\d,\d\d\d\n.+\n"#, options: .regularExpression))
        let vtt = try String(contentsOf: out.appendingPathComponent("a.vtt"), encoding: .utf8)
        XCTAssertTrue(vtt.hasPrefix("WEBVTT\n\n00:00:0"))
        let json = try JSONSerialization.jsonObject(with: Data(contentsOf: out.appendingPathComponent("a.json"))) as? [String: Any]
        XCTAssertEqual(json?["model"] as? String, "tiny.en")
        XCTAssertTrue((json?["text"] as? String ?? "").lowercased().contains("window"))
    }

    func testWordsInJSONAndWordTimedSubtitles() throws {
        let a = try speechFile("a.wav", Sentences.all[1])
        let r = try CLI.run(["transcribe", "--words", "--json", a.path])
        XCTAssertEqual(r.status, 0, r.stderr)
        let json = try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any]
        let segments = json?["segments"] as? [[String: Any]] ?? []
        let words = segments.flatMap { $0["words"] as? [[String: Any]] ?? [] }
        XCTAssertGreaterThanOrEqual(words.count, 5, r.stdout)
        let starts = words.compactMap { $0["start"] as? Double }
        XCTAssertEqual(starts, starts.sorted())
        // Whisper's own measures of each segment, under OpenAI's verbose_json names: speech, read surely
        for segment in segments {
            let logprob = try XCTUnwrap(segment["avg_logprob"] as? Double, "\(segment)")
            XCTAssertGreaterThan(logprob, -1)
            XCTAssertLessThan(logprob, 0)
            XCTAssertLessThan(try XCTUnwrap(segment["no_speech_prob"] as? Double), 0.6)
            XCTAssertNotNil(segment["compression_ratio"] as? Double)
            XCTAssertEqual(segment["temperature"] as? Double, 0)
        }
        let vtt = try CLI.run(["transcribe", "--words", "--format", "vtt", "--max-words", "3", "--highlight-words", a.path])
        XCTAssertEqual(vtt.status, 0, vtt.stderr)
        let cues = vtt.stdout.components(separatedBy: "\n\n").dropFirst().filter { !$0.isEmpty }
        XCTAssertGreaterThanOrEqual(cues.count, 2, vtt.stdout)
        XCTAssertTrue(vtt.stdout.contains("><c> "), vtt.stdout)
        let refused = try CLI.run(["transcribe", "--max-words", "3", a.path])
        XCTAssertEqual(refused.status, 2)
        XCTAssertTrue(refused.stderr.contains("need --words"), refused.stderr)
    }

    func testStandardInputAndJSONFlag() throws {
        let a = try speechFile("a.wav", Sentences.all[2])
        let r = try CLI.run(["transcribe", "--json", "-"], stdin: try Data(contentsOf: a))
        XCTAssertEqual(r.status, 0, r.stderr)
        let json = try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any]
        XCTAssertEqual(json?["source"] as? String, "-")
        XCTAssertTrue((json?["text"] as? String ?? "").lowercased().contains("notebook"))
    }

    /// The thread counts that the environment sets for OpenBLAS and OpenMP (Ray sets OMP_NUM_THREADS=1 in its workers;
    /// a bare process takes every core) change no transcript: this clip read "Eg" with two threads, "EG" with one,
    /// when Whisper's front-end was an OpenBLAS product split over them.
    func testTheTranscriptDoesNotDependOnBLASThreads() throws {
        guard let speech = SharedData.folder("speech") else { throw XCTSkip("../shared/data/speech is not here") }
        let clip = speech.appendingPathComponent("dctts_m_LJ001-0163.flac").path
        let runs = try ["1", "2", "4"].map { n in
            try CLI.run(["transcribe", "--json", "--words", "--threads", "1", clip],
                        environment: ["OPENBLAS_NUM_THREADS": n, "OMP_NUM_THREADS": n])
        }
        XCTAssertEqual(runs[0].status, 0, runs[0].stderr)
        XCTAssertEqual(runs[0].stdout, runs[1].stdout)
        XCTAssertEqual(runs[0].stdout, runs[2].stdout)
    }

    func testMissingModelNamesTheInstallCommand() throws {
        let a = try speechFile("a.wav", "hello")
        let r = try CLI.run(["transcribe", a.path], environment: ["EARSHOT_HOME": dir.appendingPathComponent("nothing").path])
        XCTAssertEqual(r.status, 1)
        XCTAssertTrue(r.stderr.contains("is not installed"), r.stderr)
        XCTAssertTrue(r.stderr.contains("make setup"), r.stderr)
    }
}
