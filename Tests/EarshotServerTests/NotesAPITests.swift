import EarshotCore
import EarshotNotes
import EarshotServer
import EarshotTestSupport
import Foundation
import XCTest

/// A note through the API as the Notes page uses it: upload, background processing, search, audio with Range,
/// edit, export, delete.
final class NotesAPITests: XCTestCase {
    func testANoteGoesFromUploadToSearchAndAway() throws {
        let fixture = try ServerFixture(processNotes: true)
        defer { fixture.stop() }
        let client = fixture.client
        let clip = try fixture.speech("Remember to buy fresh tomatoes and basil for the pasta dinner on Friday.", name: "shopping.wav")
        let created = try client.request("POST", "/api/notes", form: [("tags", "home, food")], files: [("file", clip)])
        XCTAssertEqual(created.status, 201, created.text)
        let id = try XCTUnwrap(created.json["id"] as? Int)
        XCTAssertEqual(created.json["source"] as? String, "shopping.wav")
        XCTAssertEqual(created.json["tags"] as? [String], ["food", "home"])

        // the server's background worker transcribes, titles and indexes it
        var note: [String: Any] = [:]
        for _ in 0..<600 {
            note = try client.get("/api/notes/\(id)").json
            let stages = note["stages"] as? [[String: Any]] ?? []
            if !stages.isEmpty && stages.allSatisfy({ ["done", "failed"].contains($0["state"] as? String) }) { break }
            Thread.sleep(forTimeInterval: 0.5)
        }
        let stages = note["stages"] as? [[String: Any]] ?? []
        XCTAssertTrue(stages.allSatisfy { $0["state"] as? String == "done" }, "\(stages)")
        XCTAssertTrue((note["transcript"] as? String ?? "").lowercased().contains("tomatoes"), "\(note)")
        XCTAssertFalse((note["title"] as? String ?? "").isEmpty)

        let hits = try client.get("/api/notes?q=TOMATOES&mode=words").jsonArray
        XCTAssertEqual(hits.first?["id"] as? Int, id)
        XCTAssertTrue((hits.first?["snippet"] as? String ?? "").contains("\u{E000}"), "matches are marked for the page")
        let meaning = try client.get("/api/notes?q=groceries%20for%20cooking&mode=meaning").jsonArray
        XCTAssertEqual(meaning.first?["id"] as? Int, id)
        XCTAssertEqual(try client.get("/api/notes?q=%20").status, 400)

        // the recording, whole and in a range
        let whole = try client.get("/api/notes/\(id)/audio")
        XCTAssertEqual(whole.status, 200)
        XCTAssertEqual(whole.headers["accept-ranges"], "bytes")
        let part = try client.get("/api/notes/\(id)/audio", headers: ["Range": "bytes=100-199"])
        XCTAssertEqual(part.status, 206)
        XCTAssertEqual(part.body, whole.body.subdata(in: 100..<200))
        XCTAssertEqual(part.headers["content-range"], "bytes 100-199/\(whole.body.count)")
        XCTAssertEqual(try client.get("/api/notes/\(id)/audio", headers: ["Range": "bytes=999999999-"]).status, 416)

        let edited = try client.request("PATCH", "/api/notes/\(id)", headers: ["Content-Type": "application/json"],
                                        body: Data(#"{"title": "Pasta shopping", "add_tags": ["friday"]}"#.utf8))
        XCTAssertEqual(edited.status, 200, edited.text)
        XCTAssertEqual(edited.json["title"] as? String, "Pasta shopping")
        XCTAssertEqual(try client.request("PATCH", "/api/notes/\(id)", headers: ["Content-Type": "application/json"],
                                          body: Data(#"{"title": 5}"#.utf8)).status, 400)

        // one voice nobody enrolled: the note is not labelled, so there is no voice to name
        let rename = try client.request("POST", "/api/notes/\(id)/speakers", headers: ["Content-Type": "application/json"],
                                        body: Data(#"{"from": "SPEAKER_01", "to": "Ruth"}"#.utf8))
        XCTAssertEqual(rename.status, 400, rename.text)
        XCTAssertTrue(rename.errorMessage.contains("has no speaker 'SPEAKER_01'"), rename.errorMessage)
        XCTAssertEqual(try client.request("POST", "/api/notes/9999/speakers", headers: ["Content-Type": "application/json"],
                                          body: Data(#"{"from": "SPEAKER_01", "to": "Ruth"}"#.utf8)).status, 404)
        XCTAssertEqual(try client.request("POST", "/api/notes/\(id)/speakers", headers: ["Content-Type": "application/json"],
                                          body: Data(#"{"from": "SPEAKER_01"}"#.utf8)).status, 400)

        // the voice is a person nonetheless: named through People, the note is labelled with the name
        let people = try client.get("/api/people")
        XCTAssertEqual(people.status, 200, people.text)
        let everyone = try XCTUnwrap(try JSONSerialization.jsonObject(with: people.body) as? [[String: Any]])
        XCTAssertEqual(everyone.count, 1, people.text)
        XCTAssertTrue(everyone[0]["name"] is NSNull, people.text)
        XCTAssertEqual(everyone[0]["notes"] as? [Int], [id])
        let person = try XCTUnwrap(everyone[0]["id"] as? Int)
        let named = try client.request("PATCH", "/api/people/\(person)", headers: ["Content-Type": "application/json"],
                                       body: Data(#"{"name": "Ruth"}"#.utf8))
        XCTAssertEqual(named.status, 200, named.text)
        XCTAssertEqual(named.json["notes"] as? [Int], [id])
        XCTAssertEqual((named.json["person"] as? [String: Any])?["name"] as? String, "Ruth")
        let labelled = try client.get("/api/notes/\(id)").json["segments"] as? [[String: Any]]
        XCTAssertEqual(Set((labelled ?? []).compactMap { $0["speaker"] as? String }), ["Ruth"])
        XCTAssertEqual(try client.get("/api/people/9999").status, 404)
        XCTAssertEqual(try client.request("PATCH", "/api/people/\(person)", headers: ["Content-Type": "application/json"],
                                          body: Data(#"{"name": "SPEAKER_09"}"#.utf8)).status, 400)
        XCTAssertEqual(try client.request("POST", "/api/people/\(person)/merge", headers: ["Content-Type": "application/json"],
                                          body: Data(#"{"other": 9999}"#.utf8)).status, 404)

        // action items across notes, and one ticked off: every item has the same keys, null where unknown
        let items = (try client.get("/api/notes/\(id)").json["actions"] as? [[String: Any]]) ?? []
        for item in items { XCTAssertEqual(Set(item.keys), ["text", "owner", "person", "start", "done"], "\(item)") }
        let listed = try client.get("/api/actions")
        XCTAssertEqual(listed.status, 200, listed.text)
        XCTAssertEqual(listed.jsonArray.filter { $0["note"] as? Int == id }.count, items.count)
        if !items.isEmpty {
            let ticked = try client.request("PATCH", "/api/notes/\(id)/actions/1", headers: ["Content-Type": "application/json"],
                                            body: Data(#"{"done": true}"#.utf8))
            XCTAssertEqual(ticked.status, 200, ticked.text)
            XCTAssertEqual(ticked.json["done"] as? Bool, true)
            XCTAssertFalse(try client.get("/api/actions?open=true").jsonArray.contains { $0["note"] as? Int == id && $0["item"] as? Int == 1 })
        }
        let missing = try client.request("PATCH", "/api/notes/\(id)/actions/99", headers: ["Content-Type": "application/json"],
                                         body: Data(#"{"done": true}"#.utf8))
        XCTAssertEqual(missing.status, 404, missing.text)
        XCTAssertTrue(missing.errorMessage.contains("has no action item 99"), missing.errorMessage)
        XCTAssertEqual(try client.request("PATCH", "/api/notes/\(id)/actions/1", headers: ["Content-Type": "application/json"],
                                          body: Data(#"{"done": "yes"}"#.utf8)).status, 400)
        XCTAssertEqual(try client.get("/api/actions?open=maybe").status, 400)
        XCTAssertEqual(try client.get("/api/actions?person=9999").status, 404)
        XCTAssertEqual(try client.get("/api/actions?person=\(person)").status, 200)

        let srt = try client.get("/api/notes/\(id)/export?format=srt")
        XCTAssertEqual(srt.status, 200)
        XCTAssertTrue(srt.text.contains(" --> "))
        XCTAssertTrue(srt.headers["content-disposition"]?.contains(".srt") == true)
        XCTAssertEqual(try client.get("/api/notes/\(id)/export?format=doc").status, 400)

        try askTheNotes(client, about: id)

        XCTAssertEqual(try client.request("DELETE", "/api/notes/\(id)").status, 204)
        let gone = try client.get("/api/notes/\(id)")
        XCTAssertEqual(gone.status, 404)
        XCTAssertTrue(gone.errorMessage.contains("no note with id \(id)"))
        XCTAssertEqual(try client.get("/api/notes/abc").status, 404)
    }

    /// A question as the Notes page asks it (server-sent events: the passages, the answer as it is written, then the
    /// checked answer) and as a plain JSON request; questions the endpoint refuses.
    func askTheNotes(_ client: HTTPClient, about id: Int) throws {
        let json = ["Content-Type": "application/json"]
        let streamed = try client.request("POST", "/api/notes/ask", headers: json.merging(["Accept": "text/event-stream"]) { $1 },
                                          body: Data(#"{"question": "What do I need for the pasta dinner?"}"#.utf8))
        XCTAssertEqual(streamed.status, 200, streamed.text)
        XCTAssertEqual(streamed.headers["content-type"], "text/event-stream")
        let events = streamed.text.components(separatedBy: "\n\n").compactMap { block -> (String, String)? in
            let lines = block.split(separator: "\n")
            guard let name = lines.first(where: { $0.hasPrefix("event: ") }), let data = lines.first(where: { $0.hasPrefix("data: ") }) else { return nil }
            return (String(name.dropFirst(7)), String(data.dropFirst(6)))
        }
        XCTAssertEqual(events.first?.0, "passages", streamed.text)
        XCTAssertEqual(events.last?.0, "done", streamed.text)
        let passages = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(events[0].1.utf8)) as? [[String: Any]])
        XCTAssertEqual(passages.first?["note"] as? Int, id, "the note about the dinner is the closest")
        XCTAssertTrue(events.dropFirst().dropLast().allSatisfy { $0.0 == "token" }, "\(events.map(\.0))")
        XCTAssertFalse(events.filter { $0.0 == "token" }.isEmpty, "the answer is sent as it is written")
        let answer = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(events.last!.1.utf8)) as? [String: Any])
        XCTAssertEqual(Set(answer.keys).intersection(["question", "answer", "answered", "citations", "passages"]).count, 5, "\(answer)")
        for citation in answer["citations"] as? [[String: Any]] ?? [] {
            XCTAssertEqual(citation["note"] as? Int, id, "a citation is a passage of the notes: \(answer)")
        }

        let plain = try client.request("POST", "/api/notes/ask", headers: json, body: Data(#"{"question": "What is the capital of Australia?"}"#.utf8))
        XCTAssertEqual(plain.status, 200, plain.text)
        XCTAssertEqual(plain.json["answered"] as? Bool, false, plain.text)
        for (body, status) in [(#"{"question": "  "}"#, 400), (#"{"question": "When?", "note": 9999}"#, 404), (#"{"question": "When?", "since": "soon"}"#, 400),
                               (#"{"question": "When?", "person": 9999}"#, 404), (#"{"q": "When?"}"#, 400)] {
            XCTAssertEqual(try client.request("POST", "/api/notes/ask", headers: json, body: Data(body.utf8)).status, status, body)
        }
        XCTAssertEqual(try client.request("POST", "/api/notes/ask", body: Data(#"{"question": "When?"}"#.utf8)).status, 400, "not sent as JSON")
    }

    func testNotesAddedByAnotherProcessAreProcessedByTheServer() throws {
        let fixture = try ServerFixture(processNotes: true)
        defer { fixture.stop() }
        let clip = try fixture.speech("The plumber comes on Monday to fix the kitchen sink.", name: "plumber.wav")
        // the Notes page's event stream, open before the note arrives
        let events = try RawHTTPConnection(port: fixture.server.port)
        XCTAssertTrue(events.send("GET /api/notes/events HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept: text/event-stream\r\n\r\n"))
        var pushed = events.read(seconds: 1).text
        XCTAssertTrue(pushed.hasPrefix("HTTP/1.1 200") && pushed.contains("event: ready"), pushed)
        // what `earshot notes add` does: the store on disk, from another process (no processing there)
        let added = try CLI.run(["notes", "add", clip.path], environment: ["EARSHOT_HOME": fixture.home.path])
        XCTAssertEqual(added.status, 0, added.stderr)
        var status = ""
        for _ in 0..<600 {
            status = (try fixture.client.get("/api/notes").jsonArray.first?["status"] as? String) ?? ""
            if status == "ready" || status.hasSuffix("failed") { break }
            Thread.sleep(forTimeInterval: 0.5)
        }
        XCTAssertEqual(status, "ready", "the server's background worker processed the CLI's note")
        // every stage was pushed to the page as it started and finished
        pushed += events.read(seconds: 1).text
        for stage in ["transcribe", "summarise", "embed"] {
            XCTAssertTrue(pushed.contains(#"{"change":"started","note":1,"stage":"\#(stage)"}"#), "\(stage) started: \(pushed)")
            XCTAssertTrue(pushed.contains(#"{"change":"done","note":1,"stage":"\#(stage)"}"#), "\(stage) done: \(pushed)")
        }
        XCTAssertTrue((try fixture.client.get("/api/notes?q=plumber&mode=words").jsonArray.first?["title"] as? String)?.isEmpty == false)
    }

    /// The language model runs in a process of its own: when it crashes (here: SIGILL, what an instruction the CPU
    /// cannot run gives), that note's stage fails with the reason, the server stays up, and a retry works.
    func testACrashedLanguageRunnerFailsTheNoteWithItsReasonAndTheServerStaysUp() throws {
        let lines = Locked<[String]>([])
        let fixture = try ServerFixture(processNotes: true, log: ServerLog(format: .json) { line in lines.withLock { $0.append(line) } })
        defer { fixture.stop() }
        let client = fixture.client
        let clip = try fixture.speech("Call the dentist on Tuesday to move the appointment.", name: "dentist.wav")
        let id = try XCTUnwrap(try client.request("POST", "/api/notes", files: [("file", clip)]).json["id"] as? Int)

        // the model's worker, under the host this server started (`earshot-language-runner host chat …`)
        let runner = try XCTUnwrap(ChildProcesses.wait(for: ["earshot-language-runner chat", fixture.home.path], seconds: 300),
                                   "the summarise stage started a language-model runner")
        kill(runner, SIGILL)
        var stages: [[String: Any]] = []
        for _ in 0..<600 {
            stages = try client.get("/api/notes/\(id)").json["stages"] as? [[String: Any]] ?? []
            if stages.count == 3, stages[1]["state"] as? String == "failed" { break }
            Thread.sleep(forTimeInterval: 0.2)
        }
        XCTAssertEqual(stages.map { $0["state"] as? String }, ["done", "failed", "pending"], "\(stages)")
        let error = stages.count == 3 ? stages[1]["error"] as? String ?? "" : ""
        XCTAssertTrue(error.contains("the language model crashed") && error.contains("illegal instruction (signal 4)"), error)
        XCTAssertEqual(try client.get("/api/health").status, 200, "the server is still up")

        // the worker's log line says what happened
        let jobs = lines.withLock { $0 }.compactMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
            .filter { $0["kind"] as? String == "job" }
        XCTAssertTrue(jobs.contains { $0["note"] as? Int == id && $0["stage"] as? String == "summarise" && $0["outcome"] as? String == "failed"
                && ($0["detail"] as? String ?? "").contains("signal 4") }, "\(jobs)")
        let requests = lines.withLock { $0 }.filter { $0.contains(#""kind":"request""#) }
        XCTAssertTrue(requests.contains { $0.contains(#""path":"\/api\/health""#) && $0.contains(#""status":200"#) }, "\(requests.prefix(3))")

        // once retried, a new runner writes the note
        XCTAssertEqual(try client.request("POST", "/api/notes/\(id)/retry").status, 200)
        for _ in 0..<900 {
            stages = try client.get("/api/notes/\(id)").json["stages"] as? [[String: Any]] ?? []
            if stages.allSatisfy({ ["done", "failed"].contains($0["state"] as? String) }) { break }
            Thread.sleep(forTimeInterval: 0.2)
        }
        XCTAssertEqual(stages.map { $0["state"] as? String }, ["done", "done", "done"], "\(stages)")
    }

    /// Stopping the server stops its notes work: when `stop` returns nothing runs on, the stage that was running
    /// finished or was given back (not failed), no later stage began, and the next server takes the rest up. Before,
    /// a stopped server's worker went on claiming and running every waiting stage.
    func testStoppingTheServerLeavesNoNotesWorkRunning() throws {
        let fixture = try ServerFixture(processNotes: true)
        defer { fixture.stop() }
        let clip = try fixture.speech("The boiler needs its yearly service before the first cold week of November.", name: "boiler.wav")
        let id = try XCTUnwrap(try fixture.client.request("POST", "/api/notes", files: [("file", clip)]).json["id"] as? Int)
        for _ in 0..<600 {
            let stages = try fixture.client.get("/api/notes/\(id)").json["stages"] as? [[String: Any]] ?? []
            if let first = stages.first?["state"] as? String, first != "pending" { break }
            Thread.sleep(forTimeInterval: 0.05)
        }
        fixture.server.stop()

        let library = try NotesStore(directory: fixture.server.configuration.notesDirectory)  // a reader of its own
        let stopped = try library.note(id).stages
        XCTAssertFalse(stopped.contains { $0.state == .running || $0.state == .failed }, "\(stopped)")
        XCTAssertEqual(stopped.last?.state, .pending, "the last stage had not begun: \(stopped)")
        Thread.sleep(forTimeInterval: 3)
        XCTAssertEqual(try library.note(id).stages, stopped, "no stage began or ended after stop returned")

        let next = try AppServer(fixture.server.configuration)
        defer { next.stop() }
        var stages = stopped
        for _ in 0..<1200 where !stages.allSatisfy({ $0.state == .done || $0.state == .failed }) {
            Thread.sleep(forTimeInterval: 0.25)
            stages = try library.note(id).stages
        }
        XCTAssertEqual(stages.map(\.state), [.done, .done, .done], "\(stages)")
        XCTAssertEqual(stages.map(\.completions), [1, 1, 1], "\(stages)")
    }

    func testNonAudioUploadStoresNothing() throws {
        let fixture = try ServerFixture()
        defer { fixture.stop() }
        let text = try fixture.file("minutes.txt", Data("not a recording".utf8))
        let response = try fixture.client.request("POST", "/api/notes", files: [("file", text)])
        XCTAssertEqual(response.status, 400)
        XCTAssertTrue(response.errorMessage.hasPrefix("minutes.txt:"), response.errorMessage)
        XCTAssertTrue(response.errorMessage.contains("nothing was stored"))
        XCTAssertEqual(try fixture.client.get("/api/notes").jsonArray.count, 0)
    }

    func testAnImportIsDatedWhenRecordedAndTheSameAudioIsSkipped() throws {
        let fixture = try ServerFixture()
        defer { fixture.stop() }
        let client = fixture.client
        let wav = try fixture.speech("The plumber comes on Thursday morning to fix the kitchen tap.", name: "memo.wav")
        let m4a = wav.deletingLastPathComponent().appendingPathComponent("memo.m4a")
        try TestAudio.run("ffmpeg", ["-v", "error", "-y", "-i", wav.path, "-metadata", "creation_time=2025-06-01T08:30:00Z", m4a.path])
        let imported = try client.request("POST", "/api/notes/import", form: [("modified", "1700000000000"), ("tags", "phone")], files: [("file", m4a)])
        XCTAssertEqual(imported.status, 201, imported.text)
        XCTAssertEqual(imported.json["outcome"] as? String, "imported")
        XCTAssertEqual(imported.json["recorded"] as? String, "2025-06-01T08:30:00Z", "the container's time wins over the file's")
        XCTAssertEqual(imported.json["date_from"] as? String, "container")
        let id = try XCTUnwrap(imported.json["note"] as? Int)
        let note = try client.get("/api/notes/\(id)").json
        XCTAssertEqual(note["source"] as? String, "memo.m4a")
        XCTAssertEqual(note["tags"] as? [String], ["phone"])

        // the same recording as the original WAV: skipped, naming the note
        let again = try client.request("POST", "/api/notes/import", form: [("modified", "1700000000000")], files: [("file", wav)])
        XCTAssertEqual(again.status, 200, again.text)
        XCTAssertEqual(again.json["outcome"] as? String, "duplicate")
        XCTAssertEqual(again.json["note"] as? Int, id)

        // no time in the container: the file's own time, as the browser gave it
        let other = try fixture.speech("Buy stamps and envelopes at the post office.", name: "other.wav")
        let dated = try client.request("POST", "/api/notes/import", form: [("modified", "1700000000000")], files: [("file", other)])
        XCTAssertEqual(dated.status, 201, dated.text)
        XCTAssertEqual(dated.json["recorded"] as? String, "2023-11-14T22:13:20Z")
        XCTAssertEqual(dated.json["date_from"] as? String, "file")

        let text = try fixture.file("minutes.txt", Data("not a recording".utf8))
        let refused = try client.request("POST", "/api/notes/import", files: [("file", text)])
        XCTAssertEqual(refused.status, 400)
        XCTAssertTrue(refused.errorMessage.hasPrefix("minutes.txt:"), refused.errorMessage)
        XCTAssertEqual(try client.request("POST", "/api/notes/import", form: [("modified", "yesterday")], files: [("file", other)]).status, 400)
        XCTAssertEqual(try client.get("/api/notes").jsonArray.count, 2)
    }

    func testTemplatesAreListedKeptAndChosenForANote() throws {
        let fixture = try ServerFixture()
        defer { fixture.stop() }
        let client = fixture.client
        let listed = try client.get("/api/templates").jsonArray
        XCTAssertEqual(listed.compactMap { $0["name"] as? String }, ["memo", "meeting", "one-to-one", "lecture", "call"])
        XCTAssertEqual(listed[1]["sections"] as? [String], ["Decisions", "Discussed"])
        XCTAssertEqual(listed[1]["built_in"] as? Bool, true)
        let made = try client.request("POST", "/api/templates", headers: ["Content-Type": "application/json"],
                                      body: Data(#"{"name": "standup", "instructions": "A daily standup.", "sections": ["Done", "Next"]}"#.utf8))
        XCTAssertEqual(made.status, 201, made.text)
        XCTAssertEqual(made.json["sections"] as? [String], ["Done", "Next"])
        let refused = try client.request("POST", "/api/templates", headers: ["Content-Type": "application/json"],
                                         body: Data(#"{"name": "meeting", "instructions": "mine"}"#.utf8))
        XCTAssertEqual(refused.status, 400)
        XCTAssertTrue(refused.errorMessage.contains("built-in"), refused.errorMessage)

        let clip = try fixture.speech("Done: the login page. Next: the settings page.", name: "standup.wav")
        let id = try XCTUnwrap(try client.request("POST", "/api/notes", files: [("file", clip)]).json["id"] as? Int)
        let edited = try client.request("PATCH", "/api/notes/\(id)", headers: ["Content-Type": "application/json"],
                                        body: Data(#"{"template": "Standup"}"#.utf8))
        XCTAssertEqual(edited.status, 200, edited.text)
        XCTAssertEqual(edited.json["template"] as? String, "standup")
        let unknown = try client.request("PATCH", "/api/notes/\(id)", headers: ["Content-Type": "application/json"],
                                         body: Data(#"{"template": "sonnet"}"#.utf8))
        XCTAssertEqual(unknown.status, 404)
        XCTAssertTrue(unknown.errorMessage.contains("standup"), "the error lists the templates there are: \(unknown.errorMessage)")
        let removed = try client.request("DELETE", "/api/templates/standup")
        XCTAssertEqual(removed.status, 200, removed.text)
        XCTAssertEqual(removed.json["notes"] as? [Int], [id])
        XCTAssertEqual(try client.get("/api/notes/\(id)").json["template"] as? String, "memo")
        XCTAssertEqual(try client.request("DELETE", "/api/templates/lecture").status, 400)
        XCTAssertEqual(try client.request("DELETE", "/api/templates/nothing").status, 404)
    }
}
