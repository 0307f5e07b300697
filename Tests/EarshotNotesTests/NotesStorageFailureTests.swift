import EarshotCore
@testable import EarshotNotes
import EarshotTestSupport
import Foundation
import XCTest

/// A full disk and a read-only store, made real with a small tmpfs (needs root to mount; skipped
/// otherwise): clear errors, and the notes already saved are untouched.
final class NotesStorageFailureTests: XCTestCase {
    var mountPoint: URL!
    var fixture: NotesFixture!

    override func setUpWithError() throws {
        fixture = try NotesFixture()
        mountPoint = fixture.home.appendingPathComponent("small-disk")
        try FileManager.default.createDirectory(at: mountPoint, withIntermediateDirectories: true)
        guard (try? TestAudio.run("mount", ["-t", "tmpfs", "-o", "size=3m", "tmpfs", mountPoint.path])) != nil else {
            throw XCTSkip("cannot mount a small tmpfs here (not root?): full-disk and read-only tests skipped")
        }
    }

    override func tearDown() {
        _ = try? TestAudio.run("umount", [mountPoint.path])
        fixture.remove()
    }

    func testFullDiskAndReadOnlyStoreGiveClearErrorsAndKeepSavedNotes() throws {
        let directory = mountPoint.appendingPathComponent("notes")
        var store: NotesStore? = try NotesStore(directory: directory)
        let first = try store!.add(path: try fixture.speech("The first note survives.", name: "first.wav"))
        let big = fixture.home.appendingPathComponent("big.wav")
        try TestAudio.wav16(TestAudio.tone(frequency: 200, seconds: 120, rate: 16_000), rate: 16_000).write(to: big)  // 3.8 MB
        XCTAssertThrowsError(try store!.add(path: big.path)) {
            let message = $0.localizedDescription
            XCTAssertTrue(message.contains("cannot copy") && message.contains("space") && message.hasSuffix("nothing was stored"), message)
        }
        XCTAssertEqual(try store!.list().map(\.id), [first])
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: store!.audioDirectory.path).count, 1, "no partial copy left")

        // fill what is left, then a write the database cannot make
        let filler = mountPoint.appendingPathComponent("filler")
        _ = try? TestAudio.run("dd", ["if=/dev/zero", "of=\(filler.path)", "bs=64k"])
        XCTAssertThrowsError(try store!.edit(first, title: String(repeating: "long title ", count: 50_000))) {
            XCTAssertTrue($0.localizedDescription.contains("the disk is full; nothing was changed"), $0.localizedDescription)
        }
        try FileManager.default.removeItem(at: filler)
        XCTAssertEqual(try store!.note(first).titleBy, "none", "the failed edit left the note as it was")
        store = nil

        _ = try TestAudio.run("mount", ["-o", "remount,ro", mountPoint.path])
        do {
            let readOnly = try NotesStore(directory: directory)
            XCTAssertThrowsError(try readOnly.add(path: try fixture.speech("Another one.", name: "second.wav"))) {
                XCTAssertTrue($0.localizedDescription.contains("Read-only file system"), $0.localizedDescription)
            }
            XCTAssertThrowsError(try readOnly.edit(first, title: "x")) {
                XCTAssertTrue($0.localizedDescription.contains("read-only"), $0.localizedDescription)
            }
        } catch let error as NotesError {
            XCTAssertTrue(error.localizedDescription.contains("read-only or cannot be opened"), error.localizedDescription)
        }
        _ = try TestAudio.run("mount", ["-o", "remount,rw", mountPoint.path])
        XCTAssertEqual(try NotesStore(directory: directory).note(first).sourceName, "first.wav", "the saved note is intact")
    }
}
