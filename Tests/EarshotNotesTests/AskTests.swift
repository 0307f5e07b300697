import EarshotCore
import EarshotLanguage
@testable import EarshotNotes
import EarshotSpeech
import EarshotTestSupport
import Foundation
import XCTest

/// Asking the notes: passages cut by voice and sentence with their times, the model's reply checked against the
/// passages it was given, spans of time read from the question, and a real question answered by the default model.
final class AskTests: XCTestCase {
    var fixture: NotesFixture!
    override func setUpWithError() throws { fixture = try NotesFixture() }
    override func tearDown() { fixture.remove() }

    /// A segment whose words are timed half a second apart from `start`.
    func segment(_ speaker: String?, _ text: String, at start: Double) -> TranscriptSegment {
        let words = text.split(separator: " ").enumerated().map { j, w in
            TranscriptWord(word: " " + w, start: start + Double(j) * 0.5, end: start + Double(j) * 0.5 + 0.4, probability: 0.9)
        }
        var s = TranscriptSegment(start: start, end: words.last!.end, text: text, words: words)
        s.speaker = speaker
        return s
    }

    func note(_ segments: [TranscriptSegment], id: Int = 1) -> Note {
        Note(id: id, created: Date(timeIntervalSince1970: 0), sourceName: "a.wav", audioPath: "", duration: 60, title: "Launch",
             titleBy: "user", summary: "", actions: [], transcript: segments.map(\.text).joined(separator: " "), segments: segments,
             languageModel: "", tags: [], stages: [])
    }

    func testPassagesFollowTheVoicesAndTheWordTimesOfTheirSentences() {
        let long = Array(repeating: "We talked about the plan.", count: 10).joined(separator: " ")  // 50 words
        let passages = Passage.passages(of: note([
            segment("Priya", "The launch moves to March. It was planned for February.", at: 0),
            segment("Priya", "Tom will check.", at: 6),
            segment("Tom", "I will send the quotes by Friday.", at: 9),
            segment("Tom", long, at: 14),
        ]))
        XCTAssertEqual(passages.map(\.speaker), ["Priya", "Tom", "Tom"], "one voice's sentences together, a new passage past 45 words")
        XCTAssertEqual(passages[0].text, "The launch moves to March. It was planned for February. Tom will check.")
        XCTAssertEqual(passages[0].start, 0)
        XCTAssertEqual(passages[0].end, 7.4, accuracy: 1e-9, "to the last word's end")
        XCTAssertEqual(passages[1].start, 9)
        XCTAssertTrue(passages[1].text.hasPrefix("I will send the quotes by Friday. We talked"))
        XCTAssertLessThanOrEqual(passages.map { Titles.words($0.text).count }.max()!, Passage.maxWords)
        XCTAssertEqual(passages[2].end, 14 + 49 * 0.5 + 0.4, accuracy: 1e-9)
        // a note with a transcript and no segments is one passage over the whole recording
        var plain = note([])
        plain.transcript = "Buy milk."
        XCTAssertEqual(Passage.passages(of: plain).map(\.text), ["Buy milk."])
        XCTAssertEqual(Passage.passages(of: plain).first?.end, 60)
    }

    func testTheReplyIsCheckedAgainstThePassagesItWasGiven() {
        let given = [
            Passage(note: 3, title: "Booth", created: Date(), start: 12, end: 18, speaker: "Tom", text: "I will get two quotes for the booth by Friday."),
            Passage(note: 5, title: "Menu", created: Date(), start: 0, end: 9, speaker: nil, text: "Salmon, lemons and dill for Saturday."),
        ]
        let right = NoteAnswerer.read("Tom will get two quotes by Friday [1]. Salmon is on the list [2].", question: "q", passages: given)
        XCTAssertTrue(right.answered)
        XCTAssertEqual(right.citations, given)
        XCTAssertEqual(right.answer, "Tom will get two quotes by Friday. [1] Salmon is on the list. [2]")

        // numbered as they are cited: the second passage alone is [1]
        let second = NoteAnswerer.read("Buy salmon and dill [2].", question: "q", passages: given)
        XCTAssertEqual(second.citations, [given[1]])
        XCTAssertEqual(second.answer, "Buy salmon and dill. [1]")

        // a number it was not given, or a passage the claim has nothing to do with, is no citation
        for reply in ["Tom will get two quotes by Friday [3].", "Dana books the venue on Monday [1].", "Tom will get two quotes by Friday."] {
            let checked = NoteAnswerer.read(reply, question: "q", passages: given)
            XCTAssertFalse(checked.answered, reply)
            XCTAssertEqual(checked.answer, NoteAnswerer.abstention, reply)
            XCTAssertEqual(checked.citations, [], reply)
            XCTAssertEqual(checked.passages, given, "the closest passages are shown instead")
            XCTAssertEqual(checked.reply, reply, "what the model wrote is kept apart")
        }
        // one claim cited wrongly beside one cited rightly: the answer stands, without the wrong number
        let mixed = NoteAnswerer.read("Tom will get two quotes [1]. Dana books the venue [2].", question: "q", passages: given)
        XCTAssertEqual(mixed.answer, "Tom will get two quotes. [1] Dana books the venue.")
        XCTAssertEqual(mixed.citations, [given[0]])
        XCTAssertFalse(NoteAnswerer.read(NoteAnswerer.abstention, question: "q", passages: given).answered)

        // a passage that shares words with the claim but not with the question, or lacks a person the claim names
        let kitchen = [Passage(note: 7, title: "", created: Date(timeIntervalSince1970: 43_200), start: 3, end: 6, speaker: "Marcus", text: "They are replacing the coffee machine and the sink.")]
        XCTAssertFalse(NoteAnswerer.read("The new coffee machine cost two hundred euros [1].", question: "How much did the new coffee machine cost?",
                                         passages: kitchen).answered, "the price is not in the passage")
        XCTAssertFalse(NoteAnswerer.read("Dana is replacing the coffee machine [1].", question: "Who is replacing the coffee machine?",
                                         passages: kitchen, people: ["dana", "marcus"]).answered, "Dana is not in the passage")
        let marcus = NoteAnswerer.read("Marcus said they are replacing the coffee machine and the sink [1].",
                                       question: "Why is the kitchen closed?", passages: kitchen, people: ["dana", "marcus"])
        XCTAssertFalse(marcus.answered, "kitchen and closed are not in the passage")
        XCTAssertTrue(NoteAnswerer.read("Marcus said they are replacing the coffee machine and the sink [1].", question: "What are they replacing?",
                                        passages: kitchen, people: ["dana", "marcus"]).answered, "its speaker is in the passage")
        XCTAssertTrue(NoteAnswerer.read("They are replacing the sink, recorded on Thursday 1 January 1970 [1].", question: "What are they replacing?",
                                        passages: kitchen).answered, "when it was recorded is the passage's too")
        XCTAssertFalse(NoteAnswerer.read("The new machine arrives on 1 January 1970 at 10:30 [1].", question: "When does the new coffee machine arrive?",
                                         passages: kitchen).answered, "but not its numbers, as if said in it")
    }

    func testTheGrammarAllowsOnlyCitedClaims() {
        let grammar = NoteAnswerer.grammar(passages: 3)
        XCTAssertTrue(grammar.contains("[1-3]"))
        XCTAssertFalse(grammar.contains(NoteAnswerer.abstention), "whether the notes say is decided in code")
    }

    func testSpansOfTimeAreReadFromTheQuestion() throws {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        let now = try XCTUnwrap(ISO8601DateFormatter().date(from: "2026-12-09T15:00:00Z"))  // a Wednesday
        func day(_ text: String) -> Date { ISO8601DateFormatter().date(from: text + "T00:00:00Z")! }
        XCTAssertEqual(QuestionDates.span(in: "What did I record yesterday?", now: now, calendar: calendar),
                       DateInterval(start: day("2026-12-08"), end: day("2026-12-09")))
        XCTAssertEqual(QuestionDates.span(in: "What did Priya promise last week?", now: now, calendar: calendar),
                       DateInterval(start: day("2026-11-30"), end: day("2026-12-07")))
        XCTAssertEqual(QuestionDates.span(in: "And this week?", now: now, calendar: calendar),
                       DateInterval(start: day("2026-12-07"), end: day("2026-12-10")))
        XCTAssertEqual(QuestionDates.span(in: "What came up two days ago?", now: now, calendar: calendar),
                       DateInterval(start: day("2026-12-07"), end: day("2026-12-08")))
        XCTAssertEqual(QuestionDates.span(in: "What was said last Wednesday?", now: now, calendar: calendar),
                       DateInterval(start: day("2026-12-02"), end: day("2026-12-03")), "a week ago, asked on a Wednesday")
        XCTAssertEqual(QuestionDates.span(in: "What did we decide last month?", now: now, calendar: calendar),
                       DateInterval(start: day("2026-11-01"), end: day("2026-12-01")))
        XCTAssertNil(QuestionDates.span(in: "What is due on Friday?", now: now, calendar: calendar), "a day alone may be a deadline")
        XCTAssertNil(QuestionDates.span(in: "Where is the booth?", now: now, calendar: calendar))
    }

    /// Two notes of two voices, the second a week old: the default model answers from the right passage and cites it;
    /// the person and date filters narrow the notes; a question the notes do not answer gets no answer.
    func testAQuestionIsAnsweredFromTheNotesWithACitationOfTheMoment() async throws {
        guard LanguageModelChoice.standard.path(in: fixture.modelStore) != nil else {
            throw XCTSkip("the default language model is not installed (make setup)")
        }
        let store = try fixture.store()
        let lines = [segment("Priya", "Let us start with the spring launch. We agreed it moves to March seventeenth.", at: 0),
                     segment("Dana", "I will send the press release to the agency by Thursday.", at: 8)]
        let launch = try fixture.note(store, title: "Launch", transcript: lines.map(\.text).joined(separator: " "))
        let kitchen = try fixture.note(store, title: "Kitchen", transcript: "The kitchen on the third floor is closed until Friday.")
        for (id, segments) in [(launch, lines), (kitchen, [segment(nil, "The kitchen on the third floor is closed until Friday.", at: 0)])] {
            try store.db.query("UPDATE notes SET segments = ? WHERE id = ?",
                               [.text(String(decoding: try JSONEncoder().encode(segments), as: UTF8.self)), .integer(Int64(id))])
        }
        let lastWeek = Date().addingTimeInterval(-8 * 86_400)
        try store.db.query("UPDATE notes SET created = ? WHERE id = ?", [.real(lastWeek.timeIntervalSince1970), .integer(Int64(kitchen))])
        var options = NotesPipeline.Options()
        options.languageModel = .standard
        let library = try NotesLibrary(directory: fixture.notesDirectory, options: options, modelStore: fixture.modelStore)

        let events = Locked<[String]>([])
        let answer = try await library.ask("Who will send the press release?") { event in
            switch event {
            case let .passages(found): events.withLock { $0.append("passages \(found.count)") }
            case .text: events.withLock { $0.append("text") }
            }
        }
        XCTAssertTrue(answer.answered, "\(answer)")
        XCTAssertTrue(answer.answer.contains("Dana"), answer.answer)
        XCTAssertTrue(answer.answer.contains("[1]"), answer.answer)
        XCTAssertEqual(answer.citations.first?.note, launch)
        XCTAssertEqual(answer.citations.first?.start, 8, "the moment Dana said it")
        XCTAssertEqual(answer.citations.first?.speaker, "Dana")
        let heard = events.withLock { $0 }
        XCTAssertEqual(heard.first?.hasPrefix("passages"), true, "the passages are told first, before any of the answer")
        XCTAssertTrue(heard.dropFirst().contains("text"), "the answer is told as it is written")

        // asked of last week's notes only, the launch is not there to answer from
        let dated = try await library.ask("When does the spring launch happen last week?")
        XCTAssertTrue(dated.passages.allSatisfy { $0.note == kitchen }, "\(dated.passages)")
        let scoped = try await library.ask("When does the spring launch happen?", scope: AskScope(note: kitchen))
        XCTAssertFalse(scoped.answered, "\(scoped)")

        let unanswerable = try await library.ask("What is the capital of Australia?")
        XCTAssertFalse(unanswerable.answered, "\(unanswerable)")
        XCTAssertEqual(unanswerable.answer, NoteAnswerer.abstention)
        do {
            _ = try await library.ask("   ")
            XCTFail("an empty question is refused")
        } catch NotesError.emptyQuery {}
    }
}
