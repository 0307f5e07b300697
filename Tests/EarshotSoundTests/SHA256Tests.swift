import EarshotCore
import Foundation
import XCTest

final class SHA256Tests: XCTestCase {
    func testKnownDigests() {
        XCTAssertEqual(SHA256.hex(Data()), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
        XCTAssertEqual(SHA256.hex(Data("abc".utf8)), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        XCTAssertEqual(SHA256.hex(Data(String(repeating: "a", count: 1000).utf8)),
                       "41edece42d63e8d9bf515a9ba6932e1c20cbc9f5a5d134645adb5db1b9737ea3")
    }

    /// A file hashed a megabyte at a time gives the one-shot digest and coreutils' (pieces not a multiple of 64 bytes).
    func testAFileHashedInPiecesMatchesTheWhole() throws {
        var bytes = [UInt8](repeating: 0, count: (1 << 21) + 1_000_003)
        var x: UInt32 = 12345
        for i in bytes.indices { x = x &* 1_103_515_245 &+ 12345; bytes[i] = UInt8(truncatingIfNeeded: x >> 16) }
        let data = Data(bytes)
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("sha-\(UUID().uuidString)")
        try data.write(to: url)
        defer { try? FileManager.default.removeItem(at: url) }
        let whole = SHA256.hex(data)
        XCTAssertEqual(try SHA256.hex(fileAt: url.path), whole)
        var pieces = SHA256.Hasher()
        for start in stride(from: 0, to: data.count, by: 1_000_001) { pieces.update(data[start..<min(data.count, start + 1_000_001)]) }
        XCTAssertEqual(pieces.finish().map { String(format: "%02x", $0) }.joined(), whole)
        let sum = Process()
        sum.executableURL = URL(fileURLWithPath: "/usr/bin/sha256sum")
        sum.arguments = [url.path]
        let out = Pipe()
        sum.standardOutput = out
        try sum.run()
        sum.waitUntilExit()
        XCTAssertEqual(String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self).prefix(64), Substring(whole))
    }

    /// A FIFO is refused, not waited on: `earshot batch` hashes every file it is given, and hung on one for ever.
    func testAPipeIsRefusedNotWaitedOn() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("sha-fifo-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let fifo = folder.appendingPathComponent("p.wav").path
        XCTAssertEqual(mkfifo(fifo, 0o600), 0)
        // should the refusal ever go, a writer that opens and closes the pipe ends the wait, and the digest of nothing
        // that the hash then gives fails the assertion below instead of hanging the suite
        let release = DispatchWorkItem { let fd = open(fifo, O_WRONLY); if fd >= 0 { close(fd) } }
        DispatchQueue.global().asyncAfter(deadline: .now() + 30, execute: release)
        defer { release.cancel() }
        XCTAssertThrowsError(try SHA256.hex(fileAt: fifo)) {
            XCTAssertTrue("\($0.localizedDescription)".contains("not a regular file"), "\($0.localizedDescription)")
        }
        XCTAssertThrowsError(try SHA256.hex(fileAt: folder.path), "a folder is not hashed either")
    }
}
