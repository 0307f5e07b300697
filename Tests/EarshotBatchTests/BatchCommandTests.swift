import EarshotBatch
import EarshotTestSupport
import Foundation
import XCTest

/// `earshot batch` as the Ray integration and shard scripts drive it: real models on espeak-ng speech.
final class BatchCommandTests: XCTestCase {
    var dir: URL!
    override func setUp() { dir = TestAudio.temporaryDirectory() }
    override func tearDown() { try? FileManager.default.removeItem(at: dir) }

    func speech(_ relative: String, _ text: String) throws -> String {
        let url = dir.appendingPathComponent(relative)
        try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        try TestAudio.speak(text, to: url)
        return url.path
    }

    func results(_ stdout: String) throws -> [BatchResult] {
        try stdout.split(separator: "\n").map { try JSONDecoder().decode(BatchResult.self, from: Data($0.utf8)) }
    }

    /// One line out per job line in, whatever the line or the file; text as `earshot transcribe` reads it.
    func testTheWorkerAnswersEveryJobAndOutlivesBadFilesAndBadLines() throws {
        let good = try speech("good.wav", Sentences.all[0])
        let empty = dir.appendingPathComponent("empty.wav").path
        XCTAssertTrue(FileManager.default.createFile(atPath: empty, contents: Data()))
        let text = dir.appendingPathComponent("readme.wav").path
        XCTAssertTrue(FileManager.default.createFile(atPath: text, contents: Data("hello, not audio".utf8)))
        let lines = [
            #"{"id": "good", "path": "\#(good)", "tasks": ["transcribe", "words", "sounds"]}"#,
            "this is not json",
            #"{"id": "empty", "path": "\#(empty)"}"#,
            #"{"id": "nopath"}"#,
            #"{"id": "text", "path": "\#(text)"}"#,
            "",
            #"{"id": "dance", "path": "\#(good)", "tasks": ["dance"]}"#,
            #"{"id": "missing", "path": "\#(dir.path)/missing.flac"}"#,
            #"{"id": "beam", "path": "\#(good)", "options": {"beam_size": 99}}"#,
            #"{"id": "voices", "path": "\#(good)", "tasks": ["diarize"]}"#,
            #"{"id": "again", "path": "\#(good)"}"#,
            #"{"id": "endless", "path": ""# + String(repeating: "x", count: 200_000) + #""}"#,
        ]
        let r = try CLI.run(["batch", "--threads", "2"], stdin: Data((lines.joined(separator: "\n") + "\n").utf8))
        XCTAssertEqual(r.status, 0, r.stderr)
        let out = try results(r.stdout)
        XCTAssertEqual(out.count, 11, "one line per job line (the blank line is none): \(r.stdout.prefix(2_000))")
        XCTAssertEqual(out.map(\.id), ["good", nil, "empty", "nopath", "text", "dance", "missing", "beam", "voices", "again", nil])
        XCTAssertEqual(out.map(\.ok), [true, false, false, false, false, false, false, false, true, true, false])
        XCTAssertEqual(out[10].error, "input line 12 is not a job: is 200029 bytes long; a job line is read up to 65536 bytes",
                       "a line too long is skipped whole and not echoed")
        let errors = out.compactMap(\.error)
        XCTAssertTrue(errors[0].hasPrefix("input line 2 is not a job: not JSON"), errors[0])
        XCTAssertTrue(errors[1].contains("\(empty): file is empty"), errors[1])
        XCTAssertTrue(errors[2].contains(#"input line 4 is not a job: no "path""#), errors[2])
        XCTAssertTrue(errors[3].contains("\(text): not an audio file"), errors[3])
        XCTAssertTrue(errors[4].contains("tasks are transcribe, words, speakers, diarize, sounds"), errors[4])
        XCTAssertTrue(errors[5].contains("missing.flac: cannot read file"), errors[5])
        XCTAssertTrue(errors[6].contains("beam_size must be 1-16"), errors[6])

        let first = out[0]
        XCTAssertTrue(first.text?.lowercased().contains("cold and clear") == true, first.text ?? "")
        let words = first.segments?.flatMap { $0.words ?? [] } ?? []
        XCTAssertGreaterThan(words.count, 8)
        XCTAssertTrue(zip(words, words.dropFirst()).allSatisfy { $0.start <= $1.start }, "words in time order")
        XCTAssertEqual(first.sounds?.first?.label, "Speech")
        XCTAssertEqual(first.duration ?? 0, 3.5, accuracy: 1.5)
        XCTAssertNil(out[9].segments?.first?.words, "words only when asked for")
        XCTAssertEqual(out[8].speakers?.count, 1)
        XCTAssertNil(out[8].text, "diarize alone gives turns, no text")

        // the same settings give what `earshot transcribe` gives
        let single = try CLI.run(["transcribe", "--json", "--threads", "2", good])
        let document = try JSONSerialization.jsonObject(with: Data(single.stdout.utf8)) as? [String: Any]
        XCTAssertEqual(out[9].text, document?["text"] as? String)
    }

    /// A FIFO among the recordings (in a folder or named) is refused like any file that cannot be read: the batch
    /// goes on to the next and ends, where it once waited for ever to hash the pipe.
    func testAPipeAmongTheRecordingsIsRefusedAndTheBatchEnds() throws {
        let good = try speech("archive/a.wav", Sentences.all[0])
        let pipe = dir.appendingPathComponent("archive/p.wav").path
        XCTAssertEqual(mkfifo(pipe, 0o600), 0)
        // should the refusal ever go, a writer that opens and closes the pipe ends the wait, and the test fails on
        // what the batch then says instead of hanging the suite
        let release = DispatchWorkItem { for _ in 0..<4 { let fd = open(pipe, O_WRONLY); if fd >= 0 { close(fd) } } }
        DispatchQueue.global().asyncAfter(deadline: .now() + 60, execute: release)
        defer { release.cancel() }
        let output = dir.appendingPathComponent("out").path
        for arguments in [[dir.appendingPathComponent("archive").path], [pipe, good]] {
            let r = try CLI.run(["batch", "--output", output] + arguments)
            XCTAssertEqual(r.status, 1, r.stderr)
            let out = try results(r.stdout)
            XCTAssertEqual(Set(out.map(\.path)), [good, pipe])
            let refused = out.first { $0.path == pipe }
            XCTAssertEqual(refused?.ok, false)
            XCTAssertTrue(refused?.error?.hasPrefix("\(pipe): cannot read file (not a regular file") == true, refused?.error ?? "")
            XCTAssertEqual(out.first { $0.path == good }?.ok, true)
        }
    }

    /// Shards of a folder hold each file once; results are kept by content, so a rerun does nothing again and a
    /// failed file is tried again.
    func testShardsOfAFolderAndARerunThatSkipsWhatIsDone() throws {
        var files: [String] = []
        for (i, sentence) in Sentences.all.prefix(4).enumerated() { files.append(try speech("archive/part\(i % 2)/clip\(i).wav", sentence)) }
        let broken = dir.appendingPathComponent("archive/part0/broken.flac")
        XCTAssertTrue(FileManager.default.createFile(atPath: broken.path, contents: Data("fLaC and then nothing useful".utf8)))
        let archive = dir.appendingPathComponent("archive").path, output = dir.appendingPathComponent("out").path

        var seen: [String: BatchResult] = [:]
        var failures = 0
        for shard in 0..<2 {
            let r = try CLI.run(["batch", "--shard", "\(shard)/2", "--output", output, archive])
            for result in try results(r.stdout) {
                XCTAssertNil(seen[result.id!], "\(result.id!) in two shards")
                seen[result.id!] = result
                if !result.ok { failures += 1 }
            }
            XCTAssertEqual(r.status, r.stdout.contains(#""ok":false"#) ? 1 : 0, r.stderr)
        }
        XCTAssertEqual(Set(seen.keys), Set(files + [broken.path]), "every recording in exactly one shard")
        XCTAssertEqual(failures, 1)
        XCTAssertTrue(seen[broken.path]?.error?.contains(broken.path) == true, seen[broken.path]?.error ?? "")
        XCTAssertTrue(seen[files[2]]?.text?.lowercased().contains("notebook") == true, seen[files[2]]?.text ?? "")
        let kept = try FileManager.default.contentsOfDirectory(atPath: output).filter { $0.hasSuffix(".json") }
        XCTAssertEqual(kept.count, 4, "the four results kept, the failure not: \(kept)")

        // a rerun of the whole folder as one shard: nothing transcribed again, the same results, the broken file tried again
        let again = try CLI.run(["batch", "--output", output, archive])
        XCTAssertEqual(again.status, 1)
        XCTAssertTrue(again.stderr.contains("0 done now, 4 done before, 1 failed"), again.stderr)
        for result in try results(again.stdout) where result.ok {
            XCTAssertEqual(result.text, seen[result.id!]?.text)
        }
        // other tasks are other results
        let withWords = try CLI.run(["batch", "--tasks", "transcribe,words", "--output", output, files[0]])
        XCTAssertTrue(withWords.stderr.contains("1 done now, 0 done before"), withWords.stderr)

        // two files at once and one after another: the same results, printed in the same order
        let runs = try [1, 2].map { jobs in
            try results(CLI.run(["batch", "--jobs", "\(jobs)", "--output", dir.appendingPathComponent("out-jobs\(jobs)").path, archive]).stdout)
                .map { "\($0.id ?? "") \($0.ok) \($0.text ?? "")" }
        }
        XCTAssertEqual(runs[0].count, 5)
        XCTAssertEqual(runs[1], runs[0])
        XCTAssertEqual(try CLI.run(["batch", "--jobs", "2"]).status, 2, "a worker on standard input runs one job at a time")

        let usage = try CLI.run(["batch", "--shard", "2/2", "--output", output, archive])
        XCTAssertEqual(usage.status, 2)
        XCTAssertTrue(usage.stderr.contains("--shard takes I/N"), usage.stderr)
        XCTAssertEqual(try CLI.run(["batch", archive]).status, 2, "inputs need --output")
        XCTAssertEqual(try CLI.run(["batch", "--tasks", "fly", "--output", output, archive]).status, 2)
    }
}
