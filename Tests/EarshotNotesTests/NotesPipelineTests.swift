import EarshotCore
import EarshotLanguage
@testable import EarshotNotes
import EarshotVoice
import EarshotTestSupport
import Foundation
import XCTest

/// The staged pipeline on real models: end to end on synthesised speech, exactly-once stages across
/// kill -9, concurrent writers, search by meaning, and the title rules.
final class NotesPipelineTests: XCTestCase {
    var fixture: NotesFixture!
    override func setUpWithError() throws { fixture = try NotesFixture() }
    override func tearDown() { fixture.remove() }

    static let meeting = """
        Notes from the budget meeting. The marketing budget for next quarter is cut by ten percent. \
        Anna will send the revised plan to finance by Thursday, and I need to cancel the trade fair booking.
        """

    func smallModelOrSkip() throws {
        guard LanguageModelChoice.small.path() != nil else { throw XCTSkip("the small language model is not installed (make setup)") }
    }

    func pipeline(_ store: NotesStore) -> NotesPipeline {
        var options = NotesPipeline.Options()
        options.languageModel = .small
        return NotesPipeline(store: store, options: options, modelStore: fixture.modelStore)
    }

    /// A stage runs for seconds; reading a note through the library meanwhile answers at once, not after the stage
    /// (the page once waited 30 s for a note while another was transcribed).
    func testTheLibraryAnswersWhileAStageRuns() async throws {
        let store = try fixture.store()
        let speech = Sentences.all.prefix(6).joined(separator: " ")
        let id = try store.add(path: try fixture.speech(speech, name: "long.wav"))
        var options = NotesPipeline.Options()
        options.languageModel = .small
        let library = try NotesLibrary(directory: fixture.notesDirectory, options: options, modelStore: fixture.modelStore)
        let work = Task { try await library.process() }
        while try store.note(id).stages.first?.state != .running { try await Task.sleep(for: .milliseconds(20)) }
        let seen = try await library.note(id)
        XCTAssertEqual(seen.stages.first?.state, .running, "the read waited for the stage to end")
        let summary = try await work.value
        XCTAssertGreaterThanOrEqual(summary.stages, 1)
    }

    func testAddedNoteIsTranscribedTitledSummarisedAndEmbedded() async throws {
        try smallModelOrSkip()
        let store = try fixture.store()
        let id = try store.add(path: try fixture.speech(Self.meeting, name: "budget.wav"))
        let ran = try await pipeline(store).run()
        XCTAssertEqual(ran, 3)
        let note = try store.note(id)
        XCTAssertTrue(note.stages.allSatisfy { $0.state == .done && $0.completions == 1 }, "\(note.stages)")
        let transcript = note.transcript.lowercased()
        for word in ["budget", "marketing", "thursday", "finance"] { XCTAssertTrue(transcript.contains(word), transcript) }
        XCTAssertFalse(note.segments.isEmpty)
        XCTAssertFalse(note.title.isEmpty)
        XCTAssertLessThanOrEqual(note.title.split(separator: " ").count, NoteWriter.maxTitleWords, note.title)
        XCTAssertFalse(NoteWriter.copiesOpening(note.title, of: note.transcript), note.title)
        XCTAssertFalse(note.summary.isEmpty)
        // an owner is named only when the note names one (an example name in the prompt was once copied into every note)
        for action in note.actions {
            if let name = action.owner {
                XCTAssertTrue(transcript.contains(name.lowercased()) || note.speakers.contains(name), "'\(action.line)' names someone the note does not")
            }
        }
        XCTAssertEqual(note.languageModel, LanguageModelChoice.small.displayName)
        XCTAssertEqual(try store.db.query("SELECT length(embedding) FROM notes WHERE id = ?", [.integer(Int64(id))]).first?.first?.int, 384 * 4)
        print("title: \(note.title) | summary: \(note.summary) | actions: \(note.actions)")
    }

    /// A note spoken by someone enrolled says who spoke: its segments carry the name, the language model reads
    /// "Ruth: …", and the exports show it; a voice nobody enrolled, alone, leaves the note unlabelled.
    func testAnEnrolledVoiceIsNamedInTheNoteAndInWhatTheModelReads() async throws {
        try smallModelOrSkip()
        let enrollment = try SpeakerEnrollment(encoder: try SpeakerEncoder.shared(), store: fixture.modelStore)
        let clips = try (0..<3).map { i in
            try fixture.speech(Sentences.all[i] + " " + Sentences.all[i + 4], name: "ruth\(i).wav", voice: "en-us+m5")
        }
        try VoiceRoster(enrollment: enrollment, store: VoiceProfileStore(store: fixture.modelStore))
            .enroll(name: "Ruth", clips: clips, background: try BackgroundSpeakers().windows(using: enrollment))
        let store = try fixture.store()
        let hers = try store.add(path: try fixture.speech("I will send the updated spreadsheet to the finance team on Friday.",
                                                          name: "ruth-note.wav", voice: "en-us+m5"))
        // a voice the diarization network tells from Ruth's: to it, espeak-ng's variants of one voice (en-gb+f4 and
        // Ruth's en-us+m5) come close to the naming threshold
        let other = try store.add(path: try fixture.speech(Self.meeting, name: "other.wav", voice: "en-029+f3"))
        _ = try await pipeline(store).run()
        let note = try store.note(hers)
        XCTAssertEqual(note.speakers, ["Ruth"], "\(note.segments)")
        XCTAssertTrue(note.segments.allSatisfy { $0.speaker == "Ruth" })
        XCTAssertTrue(note.transcriptForReading.hasPrefix("Ruth: "), note.transcriptForReading)
        XCTAssertTrue(try NotesExporter.render(note, format: .txt).contains("Speakers: Ruth"))
        XCTAssertTrue(try NotesExporter.render(note, format: .md).contains("**Ruth:** "))
        let unlabelled = try store.note(other)
        XCTAssertEqual(unlabelled.speakers, [], "one voice nobody enrolled is not labelled")
        XCTAssertEqual(unlabelled.transcriptForReading, unlabelled.transcript)
        print("Ruth's note: \(note.title) | \(note.actions)")

        // a voice renamed in the note: segments, words and the speaker filter follow, and the summary is written again
        XCTAssertEqual(try store.renameSpeaker(hers, from: "Ruth", to: "  Ruth Jones "), note.segments.count)
        let renamed = try store.note(hers)
        XCTAssertEqual(renamed.speakers, ["Ruth Jones"])
        XCTAssertTrue(renamed.segments.flatMap { $0.words ?? [] }.allSatisfy { $0.speaker == nil || $0.speaker == "Ruth Jones" })
        XCTAssertEqual(try store.list(speaker: "Ruth Jones").map(\.id), [hers])
        XCTAssertEqual(try store.list(speaker: "Ruth").map(\.id), [])
        XCTAssertEqual(renamed.stages.filter { $0.state == .pending }.map(\.stage), [.summarise, .embed])
        XCTAssertThrowsError(try store.renameSpeaker(hers, from: "Ruth", to: "Ann")) {
            XCTAssertEqual($0 as? NotesError, .unknownSpeaker(note: hers, speaker: "Ruth", speakers: ["Ruth Jones"]))
        }
        for bad in ["", "SPEAKER_03", "two\nlines", String(repeating: "x", count: 81), "Ru\u{1B}[31mth", "Ruth\u{202E}"] {
            XCTAssertThrowsError(try store.renameSpeaker(hers, from: "Ruth Jones", to: bad)) {
                XCTAssertEqual($0 as? NotesError, .badSpeakerName(bad.trimmingCharacters(in: .whitespacesAndNewlines)))
            }
        }
        XCTAssertThrowsError(try store.renameSpeaker(other, from: "SPEAKER_01", to: "Ann")) {
            XCTAssertEqual($0 as? NotesError, .unknownSpeaker(note: other, speaker: "SPEAKER_01", speakers: []))
        }
        _ = try await pipeline(store).run()
        let rewritten = try store.note(hers)
        XCTAssertEqual(rewritten.status, "ready")
        XCTAssertTrue(rewritten.transcriptForReading.hasPrefix("Ruth Jones: "), rewritten.transcriptForReading)

        // enrolled from the note's own speech under another name: a profile, and the note says so
        let library = try NotesLibrary(directory: fixture.notesDirectory, modelStore: fixture.modelStore)
        let profiles = VoiceProfileStore(store: fixture.modelStore)
        let voices = try VoiceID(profiles: profiles, background: BackgroundSpeakers(), store: fixture.modelStore)
        let enrolled = try await library.enrollSpeaker(hers, speaker: "Ruth Jones", as: "R. Jones", voices: voices)
        XCTAssertEqual(enrolled.clips, 3)
        XCTAssertTrue(profiles.loadAll().profiles.contains { $0.name == "R. Jones" })
        XCTAssertEqual(try store.note(hers).speakers, ["R. Jones"])
        do {
            _ = try await library.enrollSpeaker(other, speaker: "SPEAKER_01", as: "Ann", voices: voices)
            XCTFail("a note with no labelled voices has nobody to enrol")
        } catch {
            XCTAssertEqual(error as? NotesError, .unknownSpeaker(note: other, speaker: "SPEAKER_01", speakers: []))
        }
        XCTAssertFalse(profiles.loadAll().profiles.contains { $0.name == "Ann" })
    }

    /// Three synthesised voices, two of which sound alike to the diarization network (espeak-ng's variants of one
    /// synthesiser), so counting may find two; said to be three when the note is added, they are three.
    func testASpeakerCountGivenWithTheNoteSplitsItIntoThatManyVoices() async throws {
        try smallModelOrSkip()
        let loader = AudioFileLoader(sampleRate: 16_000)
        var samples: [Float] = []
        for (i, voice) in ["en-us+m5", "en-029+f3", "en-us+m5", "en-029+f3", "en-gb+f4"].enumerated() {
            samples += try loader.load(path: try fixture.speech(Sentences.all[i], name: "turn\(i).wav", voice: voice)).samples
            samples += [Float](repeating: 0, count: 8_000)
        }
        let meeting = fixture.home.appendingPathComponent("three.wav")
        try WAVWriter.pcm16(samples, sampleRate: 16_000).write(to: meeting)
        let store = try fixture.store()
        for bad in [0, Diarizer.maxSpeakers + 1] {
            XCTAssertThrowsError(try store.add(path: meeting.path, speakers: bad)) { XCTAssertEqual($0 as? NotesError, .badSpeakerCount(bad)) }
        }
        XCTAssertEqual(store.count, 0, "nothing stored for a count a recording cannot have")
        let counted = try store.add(path: meeting.path)
        let told = try store.add(path: meeting.path, speakers: 3)
        XCTAssertEqual(try store.speakerCount(of: counted), nil)
        XCTAssertEqual(try store.speakerCount(of: told), 3)
        _ = try await pipeline(store).run()
        print("counted: \(try store.note(counted).speakers), told three: \(try store.note(told).speakers)")
        XCTAssertEqual(try store.note(told).speakers.count, 3)
        XCTAssertNotNil(try store.person(inNote: told, label: "SPEAKER_03"), "each voice is someone")
    }

    func testTitlesFollowTheRulesOnSeveralTranscripts() throws {
        try smallModelOrSkip()
        let writer = NoteWriter(model: try LanguageModel(.small, store: fixture.modelStore))
        let transcripts = [
            Self.meeting,
            "So I was thinking about the garden. The roses need pruning before winter and the fence by the shed is falling apart.",
            "Okay, quick reminder. Pick up the kids at four, buy milk, and call the dentist about Tuesday's appointment.",
            "Today I finished reading a novel about a lighthouse keeper. The ending was sad but beautiful.",
        ]
        for transcript in transcripts {
            let text = try writer.write(transcript: transcript)
            print("title: \(text.title) | summary: \(text.summary) | actions: \(text.actions)")
            XCTAssertFalse(text.title.isEmpty)
            XCTAssertLessThanOrEqual(text.title.split(separator: " ").count, NoteWriter.maxTitleWords, text.title)
            XCTAssertFalse(NoteWriter.copiesOpening(text.title, of: transcript), text.title)
            XCTAssertFalse(NoteWriter.echoesInstructions(text.title), text.title)
            XCTAssertFalse(text.summary.isEmpty)
            XCTAssertLessThanOrEqual(ReplyText.sentences(text.summary).count, 2, text.summary)
            // the system message's two examples must stay examples: none of their words turn up in these notes
            let written = Set(Titles.words(([text.title, text.summary] + text.actions.map(\.line)).joined(separator: " ")))
            XCTAssertTrue(written.isDisjoint(with: ["brake", "brakes", "garage", "ben", "parcel", "library"]), "\(text)")
        }
        XCTAssertEqual(ReplyText.afterLabel("Summary:", in: "Action items: [\"Call Ben\"]\nSummary: The car goes in on Friday."),
                       "The car goes in on Friday.")
        XCTAssertEqual(ReplyText.afterLabel("Title:", in: "Garden Jobs"), "Garden Jobs")
        XCTAssertEqual(NoteWriter.cleanTitle("Title: \"Budget cuts for the marketing team next quarter and beyond.\""),
                       "Budget cuts for the marketing team next quarter")
        XCTAssertTrue(NoteWriter.copiesOpening("Notes from the budget", of: Self.meeting))
    }

    /// Replies about a note with no Chinese, Japanese or Korean in it hold none of those characters: the default model,
    /// asked outright, writes Chinese, and under the grammar a note's replies get it does not.
    func testANoteWithoutChineseGetsNoChineseFromTheModel() throws {
        guard LanguageModelChoice.standard.path() != nil else { throw XCTSkip("the default language model is not installed (make setup)") }
        func eastAsian(_ text: String) -> Bool { text.unicodeScalars.contains { c in NoteWriter.eastAsian.contains { $0.contains(c.value) } } }
        XCTAssertNil(NoteWriter.grammars(for: "买牛奶，然后回家。").text, "a Chinese note is answered in Chinese")
        let question = "How do you write 'thank you' and 'good morning' in Chinese characters? Answer with the characters only."
        let grammars = NoteWriter.grammars(for: question)
        let model = try LanguageModel(.standard, store: fixture.modelStore)
        let free = try model.reply(to: [ChatMessage("user", question)], maxTokens: 12)
        XCTAssertTrue(eastAsian(free), "the model writes Chinese when nothing stops it: \(free)")
        let held = try model.reply(to: [ChatMessage("user", question)], maxTokens: 12, grammar: grammars.text)
        XCTAssertFalse(held.isEmpty)
        XCTAssertFalse(eastAsian(held), held)
        // as action items are asked for: a JSON array under the items' grammar, with and without these characters
        let listed = "Translate 'thank you' and 'good morning' into Chinese characters. Reply with a JSON array of the two translations."
        let freeItems = try model.reply(to: [ChatMessage("user", listed)], maxTokens: 24, grammar: NoteWriter.actionsGrammar())
        XCTAssertTrue(eastAsian(freeItems), "the same in a JSON array: \(freeItems)")
        let items = try model.reply(to: [ChatMessage("user", listed)], maxTokens: 24, grammar: NoteWriter.grammars(for: listed).actions)
        XCTAssertNoThrow(try JSONDecoder().decode([String].self, from: Data(items.utf8)), items)
        XCTAssertFalse(eastAsian(items), items)
    }

    /// Owners and deadlines in action items must come from the note (items the 1.5B model wrote on the judged set).
    func testActionItemsKeepOnlyTheOwnersAndDeadlinesTheNoteSays() {
        let note = "Tom will post the job description by Friday. Everyone please review the onboarding document."
        XCTAssertEqual(NoteWriter.withoutInventions("Tom: Post the job description by Friday", said: note), "Tom: Post the job description by Friday")
        XCTAssertEqual(NoteWriter.withoutInventions("Everyone: Review the onboarding document", said: note), "Everyone: Review the onboarding document")
        XCTAssertEqual(NoteWriter.withoutInventions("John: Move the raspberries by April 15th", said: "Move the raspberries to the fence."),
                       "Move the raspberries")
        XCTAssertEqual(NoteWriter.withoutInventions("Sarah: prepare the action items; by 10 AM", said: note), "Prepare the action items")
        XCTAssertEqual(NoteWriter.withoutInventions("Send the invoice by the end of the month", said: "Send it before the end of the month."),
                       "Send the invoice by the end of the month")
    }

    func testLongTranscriptsAreCutIntoChunksBetweenSentences() {
        let sentence = "The quarterly figures were discussed at length by the whole team."  // 11 words
        let text = Array(repeating: sentence, count: 30).joined(separator: " ")
        let words: (String) -> Int = { $0.split(separator: " ").count }
        let chunks = NoteWriter.chunks(of: text, maxTokens: 100, count: words)
        XCTAssertEqual(chunks.count, 4, "330 words in chunks of at most 100: 9 sentences each")
        XCTAssertTrue(chunks.allSatisfy { words($0) <= 100 && $0.hasSuffix("team.") && $0.hasPrefix("The") })
        XCTAssertEqual(chunks.joined(separator: " "), text, "nothing lost or repeated")
        XCTAssertEqual(NoteWriter.chunks(of: sentence, maxTokens: 100, count: words), [sentence])
    }

    /// The same transcript gets the same title, summary and actions whatever the model wrote before it
    /// (the context it reuses from earlier prompts must not change a single number).
    func testSameTranscriptGivesTheSameTextWhateverCameBefore() throws {
        try smallModelOrSkip()
        let first = "We agreed to move the product launch to March. Priya will update the budget and Tom books the venue by Friday."
        let other = "The garden needs watering twice a week in summer, and the hedge should be trimmed before the neighbours complain."
        let writer = NoteWriter(model: try LanguageModel(.small, store: fixture.modelStore))
        let alone = try writer.write(transcript: first)
        _ = try writer.write(transcript: other)
        XCTAssertEqual(try writer.write(transcript: first), alone, "after another note")
        XCTAssertEqual(try writer.write(transcript: first), alone, "right after itself")
        let fresh = NoteWriter(model: try LanguageModel(.small, store: fixture.modelStore))
        XCTAssertEqual(try fresh.write(transcript: first), alone, "from a fresh model")
    }

    func testEmptyTranscriptNeedsNoModel() throws {
        try smallModelOrSkip()
        let writer = NoteWriter(model: try LanguageModel(.small, store: fixture.modelStore))
        XCTAssertEqual(try writer.write(transcript: "  "), NoteText(title: "Empty recording", summary: "No speech was found in this recording.", actions: []))
    }

    func testSearchByMeaningFindsAParaphraseSharingNoWords() async throws {
        let store = try fixture.store()
        let vet = try fixture.note(store, title: "Vet", transcript: "The dog has to see the vet on Tuesday for his vaccinations.")
        try fixture.note(store, title: "Taxes", transcript: "File the tax return and keep the receipts from the accountant.")
        try fixture.note(store, title: "Holiday", transcript: "We booked a cottage by the sea in Cornwall for August.")
        try fixture.note(store, title: "Car", transcript: "The car is making a strange noise when braking.")
        let ran = try await pipeline(store).run()
        XCTAssertEqual(ran, 4, "only the embedding stages were left")
        let search = NotesSearch(store: store, modelStore: fixture.modelStore)
        let query = "puppy injections appointment animal doctor"
        XCTAssertEqual(try search.search(query, mode: .words).count, 0, "no word in common")
        let hits = try search.search(query, mode: .meaning)
        XCTAssertEqual(hits.first?.id, vet, "\(hits.map { ($0.title, $0.score) })")
        XCTAssertEqual(try search.search(query, mode: .both).first?.id, vet)
        // a note that shares neither words nor meaning with the query is no match (MiniLM still gives it a cosine)
        let dentist = try fixture.note(store, title: "Dentist", transcript: "Remember to call the dentist on Tuesday morning and move the appointment to next week.")
        let lind = try fixture.note(store, title: "Mrs. Rachel Lind", transcript: "Mrs. Rachel Lind is surprised to see Matthew Cuthbert driving over the hollow road in his best suit.")
        _ = try await pipeline(store).run()
        let teeth = try search.search("toothache", mode: .meaning)
        XCTAssertEqual(teeth.first?.id, dentist, "\(teeth.map { ($0.title, $0.score) })")
        for mode in [NotesSearch.Mode.meaning, .both] {
            let hits = try search.search("dentist", mode: mode)
            XCTAssertEqual(hits.first?.id, dentist, "\(mode)")
            XCTAssertFalse(hits.contains { $0.id == lind }, "\(mode): \(hits.map { ($0.title, $0.score) })")
        }
        XCTAssertEqual(try search.search("quantum physics", mode: .meaning).map(\.title), [], "nothing is about physics")
    }

    // MARK: durability

    /// Starts `earshot notes process`, waits until `stage` of note `id` is running in it, kills it with `signal`.
    func killDuring(_ stage: NoteStage, note id: Int, store: NotesStore, signal: Int32 = SIGKILL) throws {
        let p = Process()
        p.executableURL = CLI.executable
        p.arguments = ["notes", "process", "--llm", "small"]
        // Swift's crash reporter lets a process survive a SIGSEGV or SIGILL sent by kill() (not a real fault, so
        // nothing faults again after its handler): without it, the signal ends the worker as a real fault would
        p.environment = ProcessInfo.processInfo.environment.merging(fixture.environment) { $1 }.merging(["SWIFT_BACKTRACE": "enable=no"]) { $1 }
        p.standardOutput = FileHandle.nullDevice
        p.standardError = FileHandle.nullDevice
        try p.run()
        let deadline = Date().addingTimeInterval(120)
        while Date() < deadline {
            let row = try store.db.query("SELECT state, worker FROM stages WHERE note_id = ? AND stage = ?",
                                         [.integer(Int64(id)), .text(stage.rawValue)]).first
            if row?[0].string == "running", row?[1].int == Int(p.processIdentifier) { break }
            XCTAssertTrue(p.isRunning, "the worker ended before \(stage.rawValue) started")
            Thread.sleep(forTimeInterval: 0.02)
        }
        Thread.sleep(forTimeInterval: 0.2)  // inside the model's work
        kill(p.processIdentifier, signal)
        p.waitUntilExit()
        XCTAssertEqual(p.terminationReason, .uncaughtSignal)
    }

    func testKilledDuringTranscriptionAndDuringTitlingEveryStageCompletesExactlyOnce() throws {
        try smallModelOrSkip()
        let store = try fixture.store()
        let id = try store.add(path: try fixture.speech(Self.meeting + " " + Self.meeting, name: "long.wav"))

        try killDuring(.transcribe, note: id, store: store)
        var note = try store.note(id)
        XCTAssertEqual(note.stages[0].state, .running, "left claimed by the dead worker")
        XCTAssertEqual(note.transcript, "", "no half-written result is visible")

        try killDuring(.summarise, note: id, store: store)
        note = try store.note(id)
        XCTAssertEqual(note.stages[0].completions, 1)
        XCTAssertEqual(note.stages[1].state, .running)
        XCTAssertEqual(note.summary, "")

        let result = try CLI.run(["notes", "process", "--llm", "small"], environment: fixture.environment)
        XCTAssertEqual(result.status, 0, result.stderr)
        note = try store.note(id)
        XCTAssertEqual(note.stages.map(\.state), [.done, .done, .done])
        XCTAssertEqual(note.stages.map(\.completions), [1, 1, 1], "each stage completed exactly once")
        XCTAssertEqual(note.stages.map(\.attempts), [2, 2, 1], "the killed stages ran again")
        XCTAssertFalse(note.summary.isEmpty)
    }

    /// A note that kills its worker (a crash in a native library, say) must not kill every worker after it: a
    /// server that resumes it at start would never come up. After three deaths the stage is failed with the reason.
    func testAStageWhoseWorkerDiesThreeTimesIsFailedAndTheOtherNotesGoOn() throws {
        try smallModelOrSkip()
        let store = try fixture.store()
        let crashing = try store.add(path: try fixture.speech(Self.meeting + " " + Self.meeting, name: "crash.wav"))
        for signal in [SIGKILL, SIGSEGV, SIGILL] { try killDuring(.transcribe, note: crashing, store: store, signal: signal) }
        let other = try store.add(path: try fixture.speech("Buy milk and bread on the way home.", name: "milk.wav"))

        let result = try CLI.run(["notes", "process", "--llm", "small"], environment: fixture.environment)
        XCTAssertEqual(result.status, 1, "a failed stage is reported: \(result.stderr)")
        XCTAssertTrue(result.stderr.contains("ended before finishing it 3 times"), result.stderr)
        let failed = try store.note(crashing)
        XCTAssertEqual(failed.stages.map(\.state), [.failed, .pending, .pending])
        XCTAssertEqual(failed.stages[0].attempts, 3, "three tries, none a fourth")
        XCTAssertTrue(failed.stages[0].error?.contains("earshot notes retry \(crashing)") == true, failed.stages[0].error ?? "")
        XCTAssertEqual(try store.note(other).stages.map(\.state), [.done, .done, .done], "the other note was processed")

        // retry re-arms it: the same note now completes
        let retried = try CLI.run(["notes", "retry", String(crashing), "--llm", "small"], environment: fixture.environment)
        XCTAssertEqual(retried.status, 0, retried.stderr)
        XCTAssertEqual(try store.note(crashing).stages.map(\.state), [.done, .done, .done])
    }

    func testTwoAddProcessesAtOnce() throws {
        let files = try (0..<6).map { try fixture.speech("Note number \($0).", name: "n\($0).wav") }
        let processes = try [Array(files[0..<3]), Array(files[3..<6])].map { batch -> Process in
            let p = Process()
            p.executableURL = CLI.executable
            p.arguments = ["notes", "add"] + batch
            p.environment = ProcessInfo.processInfo.environment.merging(fixture.environment) { $1 }
            p.standardOutput = FileHandle.nullDevice
            p.standardError = FileHandle.nullDevice
            try p.run()
            return p
        }
        processes.forEach { $0.waitUntilExit() }
        XCTAssertEqual(processes.map(\.terminationStatus), [0, 0])
        let notes = try fixture.store().list()
        XCTAssertEqual(notes.count, 6)
        XCTAssertEqual(Set(notes.map(\.sourceName)), Set(files.map { URL(fileURLWithPath: $0).lastPathComponent }))
        XCTAssertTrue(notes.allSatisfy { FileManager.default.fileExists(atPath: $0.audioPath) && $0.stages.count == 3 })
    }
}
