@testable import EarshotServer
import Foundation
import XCTest

/// How form parts arrive from libmicrohttpd's multipart parser, including the split that the official openai
/// client's chunked uploads caused: an empty chunk at offset 0 announcing a part, then its bytes at offset 0.
final class UploadSinkTests: XCTestCase {
    func bytes(_ text: String, _ body: (UnsafeRawBufferPointer) -> Void) { Array(text.utf8).withUnsafeBytes(body) }

    func testAPartAnnouncedEmptyThenSentIsOneValue() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("sink-\(UUID().uuidString)")
        let sink = UploadSink(folder: folder, maxField: 100)
        defer { sink.remove(); try? FileManager.default.removeItem(at: folder) }
        bytes("whisper-1") { sink.appendPart(key: "model", filename: nil, contentType: nil, offset: 0, bytes: $0) }
        bytes("") { sink.appendPart(key: "response_format", filename: nil, contentType: nil, offset: 0, bytes: $0) }
        bytes("srt") { sink.appendPart(key: "response_format", filename: nil, contentType: nil, offset: 0, bytes: $0) }
        // a repeated field: two values
        bytes("segment") { sink.appendPart(key: "granularity", filename: nil, contentType: nil, offset: 0, bytes: $0) }
        bytes("word") { sink.appendPart(key: "granularity", filename: nil, contentType: nil, offset: 0, bytes: $0) }
        // a value in two chunks, the second split inside a UTF-8 character
        let zoe = Array("Zoë".utf8)
        zoe[..<3].withUnsafeBytes { sink.appendPart(key: "name", filename: nil, contentType: nil, offset: 0, bytes: $0) }
        zoe[3...].withUnsafeBytes { sink.appendPart(key: "name", filename: nil, contentType: nil, offset: 3, bytes: $0) }
        // a file announced empty, then sent in two chunks
        bytes("") { sink.appendPart(key: "file", filename: "a.wav", contentType: "audio/wav", offset: 0, bytes: $0) }
        bytes("RIFF") { sink.appendPart(key: "file", filename: "a.wav", contentType: "audio/wav", offset: 0, bytes: $0) }
        bytes("data") { sink.appendPart(key: "file", filename: "a.wav", contentType: "audio/wav", offset: 4, bytes: $0) }
        XCTAssertNil(sink.failure)
        guard case let .form(fields, files) = sink.finish(isForm: true) else { return XCTFail("a form") }
        XCTAssertEqual(fields["model"], ["whisper-1"])
        XCTAssertEqual(fields["response_format"], ["srt"])
        XCTAssertEqual(fields["granularity"], ["segment", "word"])
        XCTAssertEqual(fields["name"], ["Zoë"])
        XCTAssertEqual(files["file"]?.count, 1)
        XCTAssertEqual(files["file"]?.first?.size, 8)
        XCTAssertEqual(try String(contentsOfFile: files["file"]![0].path, encoding: .utf8), "RIFFdata")
    }

    func testOverlongFieldsAreRefused() {
        let sink = UploadSink(folder: FileManager.default.temporaryDirectory, maxField: 4)
        bytes("12345") { sink.appendPart(key: "prompt", filename: nil, contentType: nil, offset: 0, bytes: $0) }
        XCTAssertEqual(sink.failure?.status, 400)
        XCTAssertTrue(sink.failure?.message.contains("'prompt' is longer than 4 bytes") == true)
        // many fields each within the limit cannot add up to more than four times it
        let many = UploadSink(folder: FileManager.default.temporaryDirectory, maxField: 4)
        for i in 0..<5 { bytes("1234") { many.appendPart(key: "f\(i)", filename: nil, contentType: nil, offset: 0, bytes: $0) } }
        XCTAssertEqual(many.failure?.status, 400)
        XCTAssertTrue(many.failure?.message.contains("more than 16 bytes") == true, many.failure?.message ?? "")
    }

    func testByteRanges() {
        XCTAssertTrue(ByteRange.parse("bytes=0-9", size: 100)! == (0, 9))
        XCTAssertTrue(ByteRange.parse("bytes=90-", size: 100)! == (90, 99))
        XCTAssertTrue(ByteRange.parse("bytes=-10", size: 100)! == (90, 99))
        XCTAssertTrue(ByteRange.parse("bytes=50-500", size: 100)! == (50, 99))
        for bad in ["bytes=100-", "bytes=9-3", "bytes=0-1,5-6", "items=0-1", "bytes=-0", "bytes=x-y", "bytes="] {
            XCTAssertNil(ByteRange.parse(bad, size: 100), bad)
        }
    }
}

/// The work queue admits `capacity` requests and answers the next with 503 and Retry-After.
final class WorkQueueTests: XCTestCase {
    func testAFullQueueAnswers503() throws {
        let queue = WorkQueue(capacity: 2)
        try queue.admit()
        try queue.admit()
        XCTAssertThrowsError(try queue.admit()) { error in
            let http = error as? HTTPError
            XCTAssertEqual(http?.status, 503)
            XCTAssertTrue(http?.headers.contains { $0.0 == "Retry-After" } == true)
        }
        queue.leave()
        XCTAssertNoThrow(try queue.admit(), "a place came free")
        XCTAssertEqual(queue.load, 2)
    }
}
