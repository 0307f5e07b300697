@testable import EarshotLanguage
import EarshotCore
import EarshotTestSupport
import XCTest

/// A float copy's reading is kept once per machine: kept and read back it is what the copy computes, and a kept
/// file that is damaged (a run killed while writing it leaves only its hidden partial file) is computed again.
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
    }
}
