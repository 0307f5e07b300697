import EarshotCore
import EarshotTestSupport
import Foundation
import XCTest

/// `earshot notes` as a user runs it, in a private EARSHOT_HOME: help, add/list/show/search/export,
/// and the errors for bad files, bad queries and unknown ids.
final class NotesCommandTests: XCTestCase {
    var home: URL!
    var env: [String: String] { ["EARSHOT_HOME": home.path] }

    override func setUpWithError() throws { home = try TestHome.make() }

    override func tearDown() { try? FileManager.default.removeItem(at: home) }

    func testHelpForEveryNotesCommand() throws {
        for sub in ["add", "import", "record", "process", "retry", "list", "show", "search", "ask", "edit", "delete", "export", "seed", "actions", "done", "template"] {
            let r = try CLI.run(["notes", sub, "--help"], environment: env)
            XCTAssertEqual(r.status, 0, sub)
            XCTAssertTrue(r.stdout.contains("EXAMPLES:"), sub)
        }
        for sub in ["list", "show", "rename", "merge", "split", "forget"] {
            let r = try CLI.run(["people", sub, "--help"], environment: env)
            XCTAssertEqual(r.status, 0, sub)
            XCTAssertTrue(r.stdout.contains("EXAMPLES:"), sub)
        }
    }

    func testImportReportsEachFileAndExitsOneWhenOneCouldNotBeRead() throws {
        let folder = home.appendingPathComponent("memos")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let wav = folder.appendingPathComponent("a.wav")
        try TestAudio.speak("The bins go out on Tuesday night.", to: wav)
        try FileManager.default.setAttributes([.modificationDate: Date(timeIntervalSince1970: 1_700_000_000)], ofItemAtPath: wav.path)
        try FileManager.default.copyItem(at: wav, to: folder.appendingPathComponent("b.wav"))
        try Data("RIFF and nothing else".utf8).write(to: folder.appendingPathComponent("c.wav"))
        let r = try CLI.run(["notes", "import", folder.path], environment: env)
        XCTAssertEqual(r.status, 1, r.stderr)
        XCTAssertTrue(r.stdout.contains("note 1: imported \(wav.path) recorded 2023-11-1"), r.stdout)
        XCTAssertTrue(r.stdout.contains("(file time)"), r.stdout)
        XCTAssertTrue(r.stdout.contains("skipped \(folder.path)/b.wav: the same audio as note 1"), r.stdout)
        XCTAssertTrue(r.stderr.contains("c.wav:"), r.stderr)
        XCTAssertTrue(r.stdout.contains("imported 1, skipped 1 already in your notes, 1 could not be read"), r.stdout)
        let json = try CLI.run(["notes", "import", wav.path, "--json"], environment: env)
        XCTAssertEqual(json.status, 0, json.stderr)
        let results = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [[String: Any]])
        XCTAssertEqual(results.first?["outcome"] as? String, "duplicate")
        XCTAssertEqual(results.first?["note"] as? Int, 1)
        let nowhere = try CLI.run(["notes", "import", home.appendingPathComponent("nowhere").path], environment: env)
        XCTAssertEqual(nowhere.status, 1)
        XCTAssertTrue(nowhere.stderr.contains("nowhere: no such file or folder"), nowhere.stderr)
        XCTAssertEqual(try CLI.run(["notes", "import"], environment: env).status, 2)
    }

    func testTemplatesAreAddedListedChosenAndRemoved() throws {
        let added = try CLI.run(["notes", "template", "add", "standup", "--instructions", "A daily standup.", "--sections", "Done, Next"], environment: env)
        XCTAssertEqual(added.status, 0, added.stderr)
        XCTAssertEqual(added.stdout, "template standup: Done, Next\n")
        let listed = try CLI.run(["notes", "template", "list"], environment: env).stdout
        XCTAssertTrue(listed.contains("meeting (built in): Decisions, Discussed"), listed)
        XCTAssertTrue(listed.contains("standup: Done, Next"), listed)
        XCTAssertEqual(try CLI.run(["notes", "template", "add", "lecture", "--instructions", "x"], environment: env).status, 1)
        XCTAssertEqual(try CLI.run(["notes", "template", "add", "x"], environment: env).status, 2, "no --instructions")
        let wav = home.appendingPathComponent("a.wav")
        try TestAudio.speak("Done the login page, next the settings page.", to: wav)
        XCTAssertEqual(try CLI.run(["notes", "add", wav.path, "--template", "sonnet"], environment: env).status, 1)
        XCTAssertTrue(try CLI.run(["notes", "list"], environment: env).stdout.contains("no notes"), "a wrong template stores nothing")
        XCTAssertEqual(try CLI.run(["notes", "add", wav.path, "--template", "standup"], environment: env).status, 0)
        let shown = try CLI.run(["notes", "show", "1", "--json"], environment: env).stdout
        XCTAssertTrue(shown.contains("\"template\" : \"standup\""), shown)
        let edited = try CLI.run(["notes", "edit", "1", "--template", "meeting"], environment: env)
        XCTAssertTrue(edited.stdout.contains("written again as a meeting"), edited.stdout + edited.stderr)
        let unknown = try CLI.run(["notes", "edit", "1", "--template", "sonnet"], environment: env)
        XCTAssertEqual(unknown.status, 1)
        XCTAssertTrue(unknown.stderr.contains("no summary template is called 'sonnet'"), unknown.stderr)
        let removed = try CLI.run(["notes", "template", "remove", "standup"], environment: env)
        XCTAssertEqual(removed.stdout, "template standup removed\n", "note 1 is a meeting now")
        XCTAssertEqual(try CLI.run(["notes", "template", "remove", "memo"], environment: env).status, 1)
    }

    func testActionsAndForgettingSayWhatIsWrong() throws {
        let none = try CLI.run(["notes", "actions", "--open"], environment: env)
        XCTAssertEqual(none.status, 0, none.stderr)
        XCTAssertEqual(none.stdout, "nothing open\n")
        let json = try CLI.run(["notes", "actions", "--json"], environment: env).stdout
        XCTAssertEqual((try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [Any])?.count, 0, json)
        let nobody = try CLI.run(["notes", "actions", "--person", "Ruth"], environment: env)
        XCTAssertEqual(nobody.status, 2)
        XCTAssertTrue(nobody.stderr.contains("nobody is named 'Ruth'"), nobody.stderr)
        XCTAssertTrue(try CLI.run(["notes", "search", "budget", "--person", "Ruth"], environment: env).stderr.contains("nobody is named 'Ruth'"))
        XCTAssertEqual(try CLI.run(["notes", "done", "1"], environment: env).status, 2)
        XCTAssertTrue(try CLI.run(["notes", "done", "1", "1"], environment: env).stderr.contains("no note with id 1"))
        // forgetting cannot be undone: without a terminal to ask on, it wants --yes
        let forget = try CLI.run(["people", "forget", "3", "--redact"], environment: env)
        XCTAssertNotEqual(forget.status, 0)
        XCTAssertTrue(forget.stderr.contains("no person with id 3"), forget.stderr)
        XCTAssertEqual(try CLI.run(["people", "forget", "--help"], environment: env).status, 0)
    }

    /// Corrections, a speaker count and splitting a person, each asked wrongly: a usage error (2) or the store's own
    /// reason (1), naming what is wrong, and nothing stored.
    func testCorrectionsCountsAndSplitsSayWhatIsWrong() throws {
        let wav = home.appendingPathComponent("memo.wav")
        try TestAudio.speak("Book the café for Friday.", to: wav)
        for (args, status, says) in [
            (["notes", "add", wav.path, "--speakers", "0"], 2, "--speakers"),
            (["notes", "add", wav.path, "--speakers", "21"], 2, "--speakers"),
            (["notes", "edit", "1", "--text", "Book the cafe."], 2, "give --segment N"),
            (["notes", "edit", "1", "--segment", "1"], 2, "give --text"),
            (["notes", "edit", "1", "--undo", "--corrections"], 2, "go alone"),
            (["people", "split", "1"], 2, "the person's id and the note's id"),
            (["people", "split", "1", "x"], 2, "'x' is not a note id"),
        ] {
            let r = try CLI.run(args, environment: env)
            XCTAssertEqual(r.status, Int32(status), "\(args): \(r.stderr)")
            XCTAssertTrue(r.stderr.contains(says), "\(args): \(r.stderr)")
        }
        let listed = try CLI.run(["notes", "list", "--json"], environment: env).stdout
        XCTAssertEqual((try JSONSerialization.jsonObject(with: Data(listed.utf8)) as? [Any])?.count, 0, "nothing stored: \(listed)")
        let added = try CLI.run(["notes", "add", wav.path, "--speakers", "2"], environment: env)
        XCTAssertEqual(added.status, 0, added.stderr)
        // not transcribed yet: nothing to correct, and no corrections to list or undo
        let early = try CLI.run(["notes", "edit", "1", "--segment", "1", "--text", "Book the cafe."], environment: env)
        XCTAssertEqual(early.status, 1)
        XCTAssertTrue(early.stderr.contains("not transcribed yet"), early.stderr)
        XCTAssertEqual(try CLI.run(["notes", "edit", "1", "--corrections"], environment: env).stdout, "note 1 has no corrections\n")
        XCTAssertEqual(try CLI.run(["notes", "edit", "1", "--undo"], environment: env).stdout, "note 1 has no correction to undo\n")
        let split = try CLI.run(["people", "split", "4", "1"], environment: env)
        XCTAssertEqual(split.status, 1)
        XCTAssertTrue(split.stderr.contains("no person with id 4"), split.stderr)
    }

    /// A question asked wrongly says what is wrong; asked of an empty store, the answer is that the notes do not say. A
    /// note added with its recording date carries it.
    func testAskAndRecordingDatesSayWhatIsWrong() throws {
        for (args, status, says) in [
            (["notes", "ask"], 2, "give a question"),
            (["notes", "ask", "When?", "--since", "soon"], 2, "--since needs a date like 2026-11-29"),
            (["notes", "ask", "When?", "--note", "x"], 2, "'x' is not a note id"),
            (["notes", "ask", "When?", "--note", "3"], 1, "no note with id 3"),
            (["notes", "ask", "When?", "--person", "Ruth"], 2, "nobody is named 'Ruth'"),
            (["notes", "add", "memo.wav", "--date", "2026-13-45"], 2, "--date needs a date"),
        ] {
            let r = try CLI.run(args, environment: env)
            XCTAssertEqual(r.status, Int32(status), "\(args): \(r.stderr)")
            XCTAssertTrue(r.stderr.contains(says), "\(args): \(r.stderr)")
        }
        let empty = try CLI.run(["notes", "ask", "When is the launch?", "--json"], environment: env)
        XCTAssertEqual(empty.status, 0, empty.stderr)
        let answer = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(empty.stdout.utf8)) as? [String: Any])
        XCTAssertEqual(answer["answered"] as? Bool, false)
        XCTAssertEqual((answer["passages"] as? [Any])?.count, 0)
        XCTAssertEqual(try CLI.run(["notes", "ask", "When is the launch?"], environment: env).stdout, "The notes do not say.\n")

        let wav = home.appendingPathComponent("memo.wav")
        try TestAudio.speak("Book the café for Friday.", to: wav)
        let added = try CLI.run(["notes", "add", wav.path, "--date", "2026-11-30T09:30", "--json"], environment: env)
        XCTAssertEqual(added.status, 0, added.stderr)
        let note = try XCTUnwrap((try JSONSerialization.jsonObject(with: Data(added.stdout.utf8)) as? [[String: Any]])?.first)
        let created = try XCTUnwrap(ISO8601DateFormatter().date(from: note["created"] as? String ?? ""), added.stdout)
        let f = DateFormatter()
        f.dateFormat = "yyyy-MM-dd HH:mm"
        XCTAssertEqual(f.string(from: created), "2026-11-30 09:30", "in the local time it was given in")
        let listed = try CLI.run(["notes", "list", "--since", "2026-12-01", "--json"], environment: env).stdout
        XCTAssertEqual((try JSONSerialization.jsonObject(with: Data(listed.utf8)) as? [Any])?.count, 0, "recorded before: \(listed)")
    }

    func testRecordFromStandardInputSavesWhatWasRecorded() throws {
        let speech = try TestAudio.speech("This note was recorded from a pipe.")
        let r = try CLI.run(["notes", "record", "-", "--tag", "piped"], stdin: TestAudio.rawS16(speech.samples), environment: env)
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertTrue(r.stdout.contains("note 1: saved"), r.stdout)
        let list = try CLI.run(["notes", "list", "--json"], environment: env)
        let notes = try JSONSerialization.jsonObject(with: Data(list.stdout.utf8)) as! [[String: Any]]
        XCTAssertEqual(notes.first?["tags"] as? [String], ["piped"])
        XCTAssertEqual(notes.first?["duration"] as? Double ?? 0, Double(speech.samples.count) / 16_000, accuracy: 0.01)
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: home.appendingPathComponent("notes/recordings").path), [],
                       "the temporary recording is gone once the store has its copy")
    }

    func testAddListShowSearchExportAndErrors() throws {
        let wav = home.appendingPathComponent("memo.wav")
        try TestAudio.speak("Book the café for Friday.", to: wav)
        let junk = home.appendingPathComponent("junk.mp3")
        try "not audio".write(to: junk, atomically: true, encoding: .utf8)

        let add = try CLI.run(["notes", "add", wav.path, junk.path, "--tag", "work"], environment: env)
        XCTAssertEqual(add.status, 1, "one file was refused")
        XCTAssertTrue(add.stdout.contains("note 1: saved"), add.stdout)
        XCTAssertTrue(add.stderr.contains("\(junk.path): ") && add.stderr.contains("nothing was stored"), add.stderr)

        let list = try CLI.run(["notes", "list", "--json"], environment: env)
        let notes = try JSONSerialization.jsonObject(with: Data(list.stdout.utf8)) as! [[String: Any]]
        XCTAssertEqual(notes.count, 1)
        XCTAssertEqual(notes[0]["status"] as? String, "waiting: transcribe")
        XCTAssertEqual(notes[0]["tags"] as? [String], ["work"])

        XCTAssertEqual(try CLI.run(["notes", "show", "1"], environment: env).status, 0)
        let unknown = try CLI.run(["notes", "show", "42"], environment: env)
        XCTAssertEqual(unknown.status, 1)
        XCTAssertTrue(unknown.stderr.contains("no note with id 42"), unknown.stderr)
        XCTAssertEqual(try CLI.run(["notes", "show", "x"], environment: env).status, 2)

        let empty = try CLI.run(["notes", "search", " "], environment: env)
        XCTAssertEqual(empty.status, 1)
        XCTAssertTrue(empty.stderr.contains("the search query is empty"), empty.stderr)
        let malformed = try CLI.run(["notes", "search", "cafe AND (", "--words"], environment: env)
        XCTAssertEqual(malformed.status, 1)
        XCTAssertTrue(malformed.stderr.contains("malformed search syntax"), malformed.stderr)

        let out = home.appendingPathComponent("out")
        let export = try CLI.run(["notes", "export", "--all", "--format", "json", "-o", out.path], environment: env)
        XCTAssertEqual(export.status, 0, export.stderr)
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: out.path).count, 1)
        let blocked = try CLI.run(["notes", "export", "1", "-o", wav.path + "/sub"], environment: env)
        XCTAssertEqual(blocked.status, 1)
        XCTAssertTrue(blocked.stderr.contains("cannot write the export (Not a directory)"), blocked.stderr)
        XCTAssertEqual(try CLI.run(["notes", "delete", "1"], environment: env).status, 0)
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: home.appendingPathComponent("notes/audio").path), [])

        // a recording on standard input is a note too
        let piped = try CLI.run(["notes", "add", "-", "--json"], stdin: try Data(contentsOf: wav), environment: env)
        XCTAssertEqual(piped.status, 0, piped.stderr)
        let added = try JSONSerialization.jsonObject(with: Data(piped.stdout.utf8)) as! [[String: Any]]
        XCTAssertEqual(added.first?["source"] as? String, "stdin")
    }
}
