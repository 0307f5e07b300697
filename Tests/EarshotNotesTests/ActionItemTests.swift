@testable import EarshotNotes
import EarshotSpeech
import Foundation
import XCTest

/// Action items: what the language model proposes is kept only when a sentence of the note commits someone to it,
/// the owner is read from who said it and how, and items are ticked off and listed by person in the store. The
/// model's proposals here are written out (as the 1.5B model wrote them for these notes, wrong owners and all), so
/// what is tested is the checking, exactly; how well the whole runs with the model is bench/owners.py's measure.
final class ActionItemTests: XCTestCase {
    /// Segments of a conversation, a turn each, five seconds apart, with a time per word.
    static func segments(_ turns: [(String?, String)]) -> [TranscriptSegment] {
        turns.enumerated().map { i, turn in
            let words = turn.1.split(separator: " ").enumerated().map { k, w in
                TranscriptWord(word: " " + w, start: Double(i * 5) + Double(k) * 0.3, end: Double(i * 5) + Double(k) * 0.3 + 0.25, probability: 1)
            }
            var segment = TranscriptSegment(start: Double(i * 5), end: Double(i * 5 + 4), text: turn.1, words: words)
            segment.speaker = turn.0
            return segment
        }
    }

    static let meeting = segments([
        ("Maria", "Okay, the spring launch is three weeks out. The budget stays at five thousand euros."),
        ("SPEAKER_01", "I will update the press release and send it to Maria by Thursday."),
        ("Maria", "Good. Tom, can you post the support job description by Friday?"),
        ("Tom", "Sure. I'll get two quotes from vendors before next Monday as well."),
    ])

    func testEachItemIsOwnedByWhoeverCommittedToItAndLinksToWhenItWasSaid() {
        let proposed = ["Maria: Update the press release", "Tom: Post the support job description by Friday",
                        "Get two quotes from vendors before next Monday", "Copy the 5,000 euros to the budget sheet"]
        let items = Commitments.check(proposed, in: NoteSentence.sentences(of: Self.meeting))
        XCTAssertEqual(items.map(\.line), ["SPEAKER_01: Update the press release", "Tom: Post the support job description by Friday",
                                           "Tom: Get two quotes from vendors before next Monday"])
        // "Can you…" is said at 0:10 (after "Good."), "I'll get two quotes" at 0:15 plus "Sure."
        XCTAssertEqual(items.map(\.start), [5, 10.3, 15.3])
    }

    func testAQuestionAnsweredByAnotherVoiceIsTheirsAndWeIsNobodys() {
        let sentences = NoteSentence.sentences(of: Self.segments([
            ("Priya", "Can you book the meeting room for Tuesday?"), ("SPEAKER_01", "Yes, no problem."),
            ("Priya", "Let's all read the brief before then."),
        ]))
        let items = Commitments.check(["Priya: Book the meeting room for Tuesday", "Priya: Read the brief"], in: sentences)
        XCTAssertEqual(items.map(\.line), ["SPEAKER_01: Book the meeting room for Tuesday", "Read the brief"])
    }

    func testAReadingOrAChatGetsNoItemsWhateverTheModelProposes() {
        for turns in [[("Priya", "But, I am hugely pleased that you have seen my lady."),
                       ("SPEAKER_01", "The hallway smelt of boiled cabbage and old rag mats.")],
                      [("SPEAKER_00", "Did you see the match last night?"), ("SPEAKER_01", "I did, what a finish.")]] {
            let sentences = NoteSentence.sentences(of: Self.segments(turns))
            let proposed = turns.map { "\($0.0): \($0.1)" } + ["Watch the match", "Buy a new rag mat"]
            XCTAssertEqual(Commitments.check(proposed, in: sentences), [], "\(turns)")
        }
    }

    func testANoteOfOneVoiceHasNoOwnerForItsAuthorAndNamesOnlyWhoItSays() {
        let sentences = NoteSentence.sentences(of: """
            Call with Sarah from the printing company. She will email the final proof tomorrow, and I have to approve it \
            by Wednesday. Reminder for Friday. Pick up the parcel at the post office.
            """)
        let items = Commitments.check(["Wednesday: Email the final proof tomorrow", "Jake: Approve the proof by Wednesday",
                                       "Pick up the parcel at the post office"], in: sentences)
        XCTAssertEqual(items.map(\.line), ["Sarah: Email the final proof tomorrow", "Approve the proof by Wednesday",
                                           "Pick up the parcel at the post office"])
    }

    func testItemsAreTickedOffListedByPersonAndFollowARename() throws {
        let fixture = try NotesFixture()
        defer { fixture.remove() }
        let store = try fixture.store()
        let id = try fixture.note(store, title: "launch", transcript: Self.meeting.map(\.text).joined(separator: " "))
        // a note stored before items had owners keeps plain strings: they read as items without one
        try store.db.query("UPDATE notes SET segments = ?, actions = ? WHERE id = ?",
                           [.text(String(decoding: try JSONEncoder().encode(Self.meeting), as: UTF8.self)),
                            .text(#"["Tom: Post the job description", "Book the venue"]"#), .integer(Int64(id))])
        XCTAssertEqual(try store.note(id).actions, [ActionItem(text: "Tom: Post the job description"), ActionItem(text: "Book the venue")])

        let items = Commitments.check(["Update the press release", "Post the support job description by Friday"],
                                      in: NoteSentence.sentences(of: Self.meeting))
        try store.db.query("UPDATE notes SET actions = ? WHERE id = ?",
                           [.text(String(decoding: try JSONEncoder().encode(try store.owned(items, in: store.note(id))), as: UTF8.self)),
                            .integer(Int64(id))])
        XCTAssertEqual(try store.markAction(id, item: 2, done: true).line, "Tom: Post the support job description by Friday")
        XCTAssertThrowsError(try store.markAction(id, item: 3, done: true)) { XCTAssertEqual($0 as? NotesError, .unknownAction(note: id, item: 3, count: 2)) }
        XCTAssertEqual(try store.actions(open: true).map(\.action.line), ["SPEAKER_01: Update the press release"])
        XCTAssertEqual(try store.actions().map(\.item), [1, 2])

        // naming the voice names the owner; a summary written again keeps what was ticked off
        try store.renameSpeaker(id, from: "SPEAKER_01", to: "Dana")
        XCTAssertEqual(try store.note(id).actions.map(\.line), ["Dana: Update the press release", "Tom: Post the support job description by Friday"])
        let rewritten = try store.owned(Commitments.check(["Post the support job description by Friday"], in: NoteSentence.sentences(of: store.note(id).segments)),
                                        in: store.note(id))
        XCTAssertEqual(rewritten.map(\.done), [true])

        // the JSON clients read: every key, null where unknown
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        let json = String(decoding: try encoder.encode(ActionItem(text: "Book the venue")), as: UTF8.self)
        XCTAssertEqual(json, #"{"done":false,"owner":null,"person":null,"start":null,"text":"Book the venue"}"#)
    }

    func testASummaryNeverOpensBySayingItIsOne() {
        XCTAssertEqual(NoteWriter.withoutPreamble("The summary of the voice note is: Priya reads a passage about a ship."),
                       "Priya reads a passage about a ship.")
        XCTAssertEqual(NoteWriter.withoutPreamble("Here is a short summary: the launch moves."), "The launch moves.")
        XCTAssertEqual(NoteWriter.withoutPreamble("The voice note describes Emma's garden in June."), "Emma's garden in June.")
        XCTAssertEqual(NoteWriter.withoutPreamble("The launch moves to March."), "The launch moves to March.")
        XCTAssertEqual(NoteWriter.withoutPreamble("The note is long."), "The note is long.")
    }
}
