import EarshotTestSupport
import Foundation
import XCTest

/// Every level answers --help with examples; mistakes get a one-line error and exit code 2.
final class CommandLineTests: XCTestCase {
    func testHelpAtEveryLevel() throws {
        for args in [["--help"], ["transcribe", "--help"], ["listen", "--help"], ["demo", "--help"], ["help", "transcribe"]] {
            let r = try CLI.run(args)
            XCTAssertEqual(r.status, 0, args.joined(separator: " "))
            XCTAssertTrue(r.stdout.contains("USAGE: earshot"), args.joined(separator: " "))
            XCTAssertTrue(r.stdout.contains("EXAMPLES:"), args.joined(separator: " "))
        }
    }

    /// Every command's help, walked from the top: each subcommand's name and each option stand apart from the text
    /// beside them (`sound cross-validate`, as long as the column was wide, once read "cross-validatek-fold…").
    func testEveryHelpKeepsNamesApartFromTheirText() throws {
        let subcommand = try NSRegularExpression(pattern: #"^  ([a-z][a-z-]*)  +\S"#)
        let option = try NSRegularExpression(pattern: #"^  (-[a-zA-Z], )?--[a-z][a-z0-9-]*( <[^>]+>)?  +\S"#)
        func matches(_ regex: NSRegularExpression, _ line: String) -> Bool {
            regex.firstMatch(in: line, range: NSRange(line.startIndex..., in: line)) != nil
        }
        var pending: [[String]] = [[]], seen = 0
        while let path = pending.popLast() {
            let r = try CLI.run(path + ["--help"])
            XCTAssertEqual(r.status, 0, path.joined(separator: " "))
            seen += 1
            var section = ""
            for line in r.stdout.split(separator: "\n", omittingEmptySubsequences: false).map(String.init) {
                if line.hasSuffix(":") && !line.hasPrefix(" ") { section = line; continue }
                guard line.hasPrefix("  "), !line.hasPrefix("  See ") else { continue }
                if section == "SUBCOMMANDS:" {
                    XCTAssertTrue(matches(subcommand, line), "earshot \(path.joined(separator: " ")) --help: '\(line)'")
                    pending.append(path + [String(line.split(separator: " ")[0])])
                } else if section == "OPTIONS:" {
                    XCTAssertTrue(matches(option, line), "earshot \(path.joined(separator: " ")) --help: '\(line)'")
                }
            }
        }
        XCTAssertGreaterThan(seen, 30)  // the whole tree was walked
    }

    /// `earshot doctor --check "float copy small"` (what `doctor --accuracy` runs for each model, in a child process):
    /// the small language model against its float copy, its figures and bounds printed, exit 0 within them.
    func testDoctorComparesALanguageModelWithItsFloatCopy() throws {
        let r = try CLI.run(["doctor", "--check", "float copy small"])
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertTrue(r.stdout.contains("next token as its float copy's at") && r.stdout.contains("(≥ 0.90)"), r.stdout)
        let unknown = try CLI.run(["doctor", "--check", "float copy nope"])
        XCTAssertNotEqual(unknown.status, 0)
        XCTAssertTrue(unknown.stderr.contains("default, small"), unknown.stderr)
    }

    func testUsageErrorsExitWithTwo() throws {
        let cases: [([String], String)] = [
            (["frobnicate"], "unknown command 'frobnicate'"),
            (["transcribe"], "give at least one audio file"),
            (["transcribe", "--model", "huge", "x.wav"], "unknown model 'huge'"),
            (["transcribe", "--format", "doc", "x.wav"], "--format must be one of: txt, srt, vtt, json"),
            (["transcribe", "--threads", "zero", "x.wav"], "--threads must be a whole number"),
            (["transcribe", "--bogus", "x.wav"], "unknown option '--bogus'"),
            (["listen", "--language", "fr", "-"], "tiny.en understands English only"),
            (["transcribe", "--model", "base", "--language", "xx", "a.wav", "b.wav"], "'xx' is not one of Whisper's language codes"),
            (["transcribe", "--output", "--json", "x.wav"], "--output needs a value <dir>, got the option --json"),
            (["transcribe", "--json", "--format", "srt", "x.wav"], "--json and --format srt ask for two formats"),
            (["transcribe", "--greedy-only", "--beam-size", "5", "x.wav"], "--greedy-only and --beam-size 5 ask for two decodings"),
        ]
        for (args, message) in cases {
            let r = try CLI.run(args)
            XCTAssertEqual(r.status, 2, args.joined(separator: " "))
            XCTAssertTrue(r.stderr.hasPrefix("earshot: error: "), r.stderr)
            XCTAssertTrue(r.stderr.contains(message), "\(r.stderr) lacks \(message)")
        }
    }
}
