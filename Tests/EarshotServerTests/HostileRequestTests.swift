import EarshotCore
@testable import EarshotServer
import EarshotTestSupport
import EarshotVoice
import Foundation
import XCTest

/// Requests written to mislead: a body framed by two lengths, a NUL hidden in a path, a log line forged in a path,
/// names that would colour a terminal or reverse it, values too large to echo, tokens guessed fast. Each is refused
/// before any work, and what the server writes about it stays one honest line.
final class HostileRequestTests: XCTestCase {
    /// The answer's status line and whether the server closed the connection, for bytes curl will not send.
    func raw(_ fixture: ServerFixture, _ request: String) throws -> (status: String, text: String, closed: Bool) {
        let connection = try RawHTTPConnection(port: fixture.server.port)
        connection.send(request)
        let (text, closed) = connection.read(seconds: 5)
        return (text.components(separatedBy: "\r\n").first ?? "", text, closed)
    }

    func testTwoLengthsANulInThePathAndAForgedLogLineAreRefusedOrEscaped() throws {
        let fixture = try ServerFixture()
        defer { fixture.stop() }
        let host = "Host: 127.0.0.1:\(fixture.server.port)\r\n"
        let twoLengths = try raw(fixture, "POST /api/notes HTTP/1.1\r\n\(host)Content-Length: 4\r\nContent-Length: 40\r\n\r\nabcd")
        XCTAssertEqual(twoLengths.status, "HTTP/1.1 400 Bad Request", twoLengths.text)
        XCTAssertTrue(twoLengths.text.contains("content-length twice"), twoLengths.text)
        let same = try raw(fixture, "GET /api/health HTTP/1.1\r\n\(host)Content-Length: 0\r\nContent-Length: 0\r\nConnection: close\r\n\r\n")
        XCTAssertEqual(same.status, "HTTP/1.1 200 OK", "the same length twice frames the body one way: \(same.text)")

        // "%00" decoded would end the path at "/api/notes": the list, answered as if asked for
        let nul = try raw(fixture, "GET /api/notes%00/../x HTTP/1.1\r\n\(host)Connection: close\r\n\r\n")
        XCTAssertEqual(nul.status, "HTTP/1.1 404 Not Found", nul.text)

        let forged = "/x%0A2026-12-07T04:00:00.000Z%20DELETE%20/api/voices/same%20204%E2%80%AE"
        XCTAssertEqual(try fixture.client.get(forged).status, 404)
        let lines = fixture.lines.withLock { $0 }.filter { $0.contains("GET /x") }
        XCTAssertEqual(lines.count, 1, "\(lines)")
        XCTAssertEqual(lines.first?.filter { $0 == "\n" }.count, 1, "one line: \(lines)")
        XCTAssertTrue(lines.first?.contains("/x\\u{A}2026-12-07T04:00:00.000Z DELETE /api/voices/same 204\\u{202E}") ?? false, "\(lines)")
    }

    func testNamesAndLongValuesAreCheckedBeforeAnyWorkAndEchoedOnlyInPart() throws {
        let fixture = try ServerFixture()
        defer { fixture.stop() }
        let clip = try fixture.speech("A short note about the meeting.", name: "note.wav")
        func transcribe(_ form: [(String, String)]) throws -> HTTPClient.Response {
            try fixture.client.request("POST", "/v1/audio/transcriptions", form: [("model", "whisper-1")] + form, files: [("file", clip)])
        }
        for bad in ["Ru\u{1B}[31mth", "Ruth\u{202E}", "two\nlines", String(repeating: "x", count: 300)] {
            let answer = try transcribe([("response_format", "diarized_json"), ("known_speaker_names[]", bad)])
            XCTAssertEqual(answer.status, 400, answer.text)
            XCTAssertTrue(answer.errorMessage.contains("cannot name a speaker"), answer.errorMessage)
            XCTAssertFalse(answer.errorMessage.contains("\u{1B}") || answer.errorMessage.contains("\u{202E}"), answer.errorMessage)
            XCTAssertLessThan(answer.errorMessage.count, 400, answer.errorMessage)
        }
        let unknown = try transcribe([("response_format", "diarized_json"), ("known_speaker_names[]", "Nobody Enrolled")])
        XCTAssertEqual(unknown.status, 404, unknown.text)
        let none = try transcribe([("response_format", "diarized_json"), ("num_speakers", "0")])
        XCTAssertEqual(none.status, 400, none.text)
        // too long for curl's command line: the form written by hand
        let boundary = "earshot-hostile-\(UUID().uuidString)"
        var form = Data()
        for (name, value) in [("model", "whisper-1"), ("response_format", "verbose_json"),
                              ("timestamp_granularities[]", String(repeating: "w", count: 900_000))] {
            form += Data("--\(boundary)\r\nContent-Disposition: form-data; name=\"\(name)\"\r\n\r\n\(value)\r\n".utf8)
        }
        form += Data("--\(boundary)\r\nContent-Disposition: form-data; name=\"file\"; filename=\"note.wav\"\r\nContent-Type: audio/wav\r\n\r\n".utf8)
        form += try Data(contentsOf: clip) + Data("\r\n--\(boundary)--\r\n".utf8)
        let granularity = try fixture.client.request("POST", "/v1/audio/transcriptions",
                                                     headers: ["Content-Type": "multipart/form-data; boundary=\(boundary)"], body: form)
        XCTAssertEqual(granularity.status, 400)
        XCTAssertLessThan(granularity.body.count, 1_000, "the value is quoted in part, with its size")
        XCTAssertTrue(granularity.errorMessage.contains("900000 bytes"), granularity.errorMessage)

        var settings = RealtimeSettings()
        let prompt = String(repeating: "p", count: InputLimits.promptBytes + 1)
        XCTAssertThrowsError(try settings.apply(["type": "transcription", "audio": ["input": ["transcription": ["prompt": prompt]]]],
                                                dialect: .ga), "Realtime takes the HTTP endpoint's prompt limit") {
            XCTAssertEqual(($0 as? RealtimeSettings.Invalid)?.param, "session.audio.input.transcription.prompt")
        }
        XCTAssertNil(settings.prompt)
    }

    func testGuessedTokensAreSlowedDown() throws {
        let fixture = try ServerFixture(token: "0123456789abcdef0123")
        defer { fixture.stop() }
        let guesser = HTTPClient(base: fixture.server.address, headers: ["Authorization": "Bearer guess"])
        for _ in 0..<TokenFailures.free { XCTAssertEqual(try guesser.get("/api/health").status, 401) }
        XCTAssertEqual(try guesser.get("/api/health").status, 401, "the first guess past the free ones is still heard")
        let slowed = try guesser.get("/api/health")
        XCTAssertEqual(slowed.status, 429, slowed.text)
        XCTAssertEqual(slowed.headers["retry-after"], "1")
        let failures = TokenFailures()
        for _ in 0..<(TokenFailures.free + 20) { failures.failed("10.0.0.1") }
        XCTAssertEqual(failures.wait(for: "10.0.0.1"), TokenFailures.longestWait, "the wait doubles up to its limit")
        XCTAssertNil(failures.wait(for: "10.0.0.2"), "per address")
        failures.succeeded("10.0.0.1")
        XCTAssertNil(failures.wait(for: "10.0.0.1"), "a right token clears it")
    }

    func testOutsideTextIsShownAsEscapesAndNamesFollowOneRule() {
        XCTAssertEqual(ShownText.escaped("Ru\u{1B}[31mth\u{202E}"), "Ru\\u{1B}[31mth\\u{202E}")
        XCTAssertEqual(ShownText.escaped("line\nnext\ttab", keepingLineBreaks: true), "line\nnext\\u{9}tab")
        XCTAssertEqual(ShownText.escaped("Zoë Ødegård"), "Zoë Ødegård")
        XCTAssertEqual(ShownText.echoed(String(repeating: "a", count: 1_000), limit: 10), "aaaaaaaaaa… (1000 bytes)")
        XCTAssertEqual(try NameRule.checked("  Zoë  ").get(), "Zoë")
        for (bad, problem) in [("", NameRule.NameProblem.blank), ("a\u{202E}b", .unprintable), ("a\nb", .unprintable),
                               (String(repeating: "x", count: 81), .tooLong(81))] {
            XCTAssertEqual(NameRule.checked(bad), .failure(problem))
        }
    }

    /// A made file (an export) is sent from the disk in one of a few slots: past them a download is told to come
    /// back (503, Retry-After) instead of each slow reader holding a file of its own; a slot is given back when its
    /// exchange ends, and the file may be removed while it is sent.
    func testDownloadsAreSentFromTheDiskInABoundedNumberOfSlots() throws {
        let folder = TestAudio.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("export.onnx").path
        try Data(repeating: 7, count: 100_000).write(to: URL(fileURLWithPath: path))
        let slots = DownloadSlots(limit: 2)
        var first: OpenedFile? = try slots.open(path)
        let second = try slots.open(path)
        XCTAssertEqual(second.length, 100_000)
        XCTAssertThrowsError(try slots.open(path)) {
            XCTAssertEqual(($0 as? HTTPError)?.status, 503)
        }
        try FileManager.default.removeItem(atPath: path)
        var byte: UInt8 = 0
        XCTAssertEqual(pread(second.descriptor, &byte, 1, 99_999), 1, "still readable once removed")
        XCTAssertEqual(byte, 7)
        XCTAssertNotNil(first)
        first = nil
        XCTAssertEqual(slots.inUse, 1, "a slot comes back with its file")
        XCTAssertThrowsError(try slots.open(path), "a file that is gone is an error, not a slot lost") {
            XCTAssertEqual(($0 as? HTTPError)?.status, 500)
        }
        XCTAssertEqual(slots.inUse, 1)
    }

    /// RTTM is a line per turn of fields split at white space: a file named with a tab or a line break keeps its line.
    func testRTTMFileIdsAndNamesStayOneField() {
        XCTAssertEqual(DiarizationFormat.fileID("/tmp/two\tparts\nand more.wav"), "two_parts_and_more")
        XCTAssertEqual(DiarizationFormat.fileID("Ru\u{1B}[31mth\u{202E}.wav"), "Ru_[31mth_")
    }
}
