import EarshotCore
@testable import EarshotNotes
import EarshotTestSupport
import Foundation
import XCTest

/// Importing a phone's folder of recordings: every format ffmpeg reads, each note dated when it was recorded, the same
/// audio skipped however it was copied or encoded, a damaged file reported while the rest go in.
final class ImportTests: XCTestCase {
    var fixture: NotesFixture!
    override func setUpWithError() throws { fixture = try NotesFixture() }
    override func tearDown() { fixture.remove() }

    /// Encodes `wav` to `out` with ffmpeg, writing `created` into the container when given.
    func encode(_ wav: URL, to out: URL, created: String? = nil) throws {
        try TestAudio.run("ffmpeg", ["-v", "error", "-y", "-i", wav.path] + (created.map { ["-metadata", "creation_time=\($0)"] } ?? []) + [out.path])
    }

    func testAFolderOfTwentyGivesSeventeenNotesTheirDatesOneErrorAndTwoSkipped() async throws {
        let folder = fixture.home.appendingPathComponent("phone")
        let exported = folder.appendingPathComponent("exported")
        try FileManager.default.createDirectory(at: exported, withIntermediateDirectories: true)
        let formats = ["m4a", "mp3", "ogg", "opus", "webm", "flac", "wav", "wma"]
        let utc = ISO8601DateFormatter()
        var expected: [String: (date: Date, from: RecordingDate.Source)] = [:]
        for i in 0..<17 {
            let wav = fixture.home.appendingPathComponent("source-\(i).wav")
            try TestAudio.speak(Sentences.all[i], to: wav)
            let ext = formats[i % formats.count]
            let file = folder.appendingPathComponent(String(format: "memo %02d.%@", i, ext))
            let day = utc.date(from: String(format: "2025-03-%02dT09:%02d:00Z", i + 1, i))!
            if ext == "wav" || ext == "wma" || i == 16 {
                // no time in the container: the file's own time says when
                try encode(wav, to: file)
                try FileManager.default.setAttributes([.modificationDate: day], ofItemAtPath: file.path)
                expected[file.path] = (day, .file)
            } else {
                try encode(wav, to: file, created: utc.string(from: day))
                expected[file.path] = (day, .container)
            }
        }
        // the same memo copied under another name, and another exported again in a different format (its file time kept)
        let original = folder.appendingPathComponent("memo 00.m4a"), copy = folder.appendingPathComponent("memo 00 copy.m4a")
        try FileManager.default.copyItem(at: original, to: copy)
        expected[copy.path] = expected[original.path]
        let mp3 = folder.appendingPathComponent("memo 01.mp3"), reencoded = exported.appendingPathComponent("memo 01.wav")
        try encode(mp3, to: reencoded)
        try FileManager.default.setAttributes([.modificationDate: expected[mp3.path]!.date], ofItemAtPath: reencoded.path)
        expected[reencoded.path] = (expected[mp3.path]!.date, .file)
        // a recording cut off while it was copied: MP4 keeps its index at the end
        let broken = folder.appendingPathComponent("broken.m4a")
        try Data(try Data(contentsOf: folder.appendingPathComponent("memo 08.m4a")).prefix(2_000)).write(to: broken)
        // and what is not audio is left alone
        try Data("shopping list".utf8).write(to: folder.appendingPathComponent("notes.txt"))

        let library = try NotesLibrary(directory: fixture.notesDirectory, modelStore: fixture.modelStore)
        let progress = Locked<[Int]>([])
        let results = await library.importRecordings([folder.path], tags: ["phone"]) { done, total, _ in
            XCTAssertEqual(total, 20)
            progress.withLock { $0.append(done) }
        }
        XCTAssertEqual(results.count, 20)
        XCTAssertEqual(progress.withLock { $0 }, Array(1...20))
        let imported = results.filter { $0.outcome == .imported }, duplicates = results.filter { $0.outcome == .duplicate }
        let failed = results.filter { $0.outcome == .failed }
        XCTAssertEqual(imported.count, 17, "\(results)")
        XCTAssertEqual(failed.map(\.file), [broken.path])
        XCTAssertTrue(failed[0].error?.contains("broken.m4a") ?? false, failed[0].error ?? "")
        // of each pair, whichever came first is the note and the other names it
        let noteOf = Dictionary(uniqueKeysWithValues: imported.map { ($0.file, $0.note) })
        for pair in [[original, copy], [mp3, reencoded]].map({ $0.map(\.path) }) {
            let kept = try XCTUnwrap(pair.first { noteOf[$0] != nil }, "\(pair)")
            let skipped = try XCTUnwrap(duplicates.first { pair.contains($0.file) }, "\(pair)")
            XCTAssertEqual(skipped.note, noteOf[kept])
        }
        XCTAssertEqual(duplicates.count, 2)

        let notes = try await library.list()
        XCTAssertEqual(notes.count, 17)
        for result in imported {
            let note = try await library.note(try XCTUnwrap(result.note))
            let want = try XCTUnwrap(expected[result.file], result.file)
            XCTAssertEqual(note.created.timeIntervalSince1970, want.date.timeIntervalSince1970, accuracy: 1, result.file)
            XCTAssertEqual(result.dateFrom, want.from, result.file)
            XCTAssertEqual(note.sourceName, URL(fileURLWithPath: result.file).lastPathComponent)
            XCTAssertEqual(note.tags, ["phone"])
        }

        // importing the folder again changes nothing: every recording is already there, the broken one still reported
        let again = await library.importRecordings([folder.path])
        XCTAssertEqual(again.filter { $0.outcome == .duplicate }.count, 19)
        XCTAssertEqual(again.filter { $0.outcome == .failed }.map(\.file), [broken.path])
        // a note added (not imported) has no fingerprint until an import needs one; then the same audio is found
        let extra = fixture.home.appendingPathComponent("extra.wav")
        try TestAudio.speak(Sentences.all[20], to: extra)
        let extraNote = try await library.add(file: extra.path)
        let extraM4A = fixture.home.appendingPathComponent("extra.m4a")
        try encode(extra, to: extraM4A)
        let found = await library.importRecording(extraM4A.path)
        XCTAssertEqual(found.outcome, .duplicate)
        XCTAssertEqual(found.note, extraNote.id)
        let missing = await library.importRecordings([fixture.home.appendingPathComponent("nowhere").path])
        XCTAssertEqual(missing.map(\.outcome), [.failed])
        XCTAssertTrue(missing[0].error?.contains("no such file") ?? false)
    }
}
