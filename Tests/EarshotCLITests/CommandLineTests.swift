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
