@testable import EarshotLanguage
import EarshotCore
import EarshotTestSupport
import XCTest

/// A float copy's reading is kept once per machine: kept and read back it is what the copy computes, and a kept
/// file that is damaged (a run killed while writing it leaves only its hidden partial file) is computed again, and
/// a home that cannot be written still gets its reading.
final class FloatCopyReadingTests: XCTestCase {
    func testAKeptReadingIsTheCopysOwnAndADamagedOneIsReadAgain() throws {
        let copy = try FloatReference.installed(String(FloatCopy.file(of: .small).dropFirst("reference/".count)))
        let home = TestAudio.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: home) }
        let text = "Reminder for Thursday. Pick up the parcel at the post office and return the library books."
        var fresh: [[Float]] = []
        let tokens = try FloatCopy.eachPosition(copy, text: text, threads: 2) { fresh.append(Array($0)) }

        let first = try FloatCopyReading.kept(copy, text: text, threads: 2, home: home)
        let file = FloatCopyReading.keptFile(copy, text: text, home: home)
        XCTAssertTrue(FileManager.default.fileExists(atPath: file.path))
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: file.deletingLastPathComponent().path), [file.lastPathComponent],
                       "nothing but the kept file is left")
        for reading in [first, try FloatCopyReading.kept(copy, text: text, threads: 1, home: home)] {
            XCTAssertEqual(reading.tokens, tokens)
            reading.withLogits { row in
                for (position, expected) in fresh.enumerated() { XCTAssertEqual(Array(row(position)), expected, "position \(position)") }
            }
        }

        let handle = try FileHandle(forWritingTo: file)
        try handle.truncate(atOffset: 1_000)
        try handle.close()
        let again = try FloatCopyReading.kept(copy, text: text, threads: 2, home: home)
        XCTAssertEqual(again.tokens, tokens)
        again.withLogits { row in XCTAssertEqual(Array(row(fresh.count - 1)), fresh.last) }
        XCTAssertEqual(try FileManager.default.attributesOfItem(atPath: file.path)[.size] as? Int, 64 + tokens.count * (fresh[0].count * 4 + 4))

        // a home where nothing can be kept (here a plain file): the reading is made all the same, and not kept
        let unwritable = home.appendingPathComponent("a-file")
        try Data("x".utf8).write(to: unwritable)
        let unkept = try FloatCopyReading.kept(copy, text: text, threads: 2, home: unwritable)
        XCTAssertEqual(unkept.tokens, tokens)
        unkept.withLogits { row in XCTAssertEqual(Array(row(0)), fresh.first) }
    }
}
