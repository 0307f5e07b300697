import EarshotCore
@testable import EarshotNotes
import EarshotSpeech
import EarshotTestSupport
import Foundation
import XCTest

/// Corrections of a transcript: a segment's words or speaker changed by hand, its times kept, the transcript and
/// word search following at once and meaning search once re-embedded, every correction kept and the last undone.
final class CorrectionTests: XCTestCase {
    var fixture: NotesFixture!
    override func setUpWithError() throws { fixture = try NotesFixture() }
    override func tearDown() { fixture.remove() }

    /// A transcribed note of three segments, each word timed, two voices.
    func transcribedNote(_ store: NotesStore) throws -> Int {
        let lines = [("SPEAKER_01", "Send the deck to Pria by Friday."), ("SPEAKER_02", "I will book the venue."), ("SPEAKER_01", "Thanks, see you then.")]
        let segments = lines.enumerated().map { i, line -> TranscriptSegment in
            let start = Double(i) * 4
            var s = TranscriptSegment(start: start, end: start + 3, text: line.1, words: line.1.split(separator: " ").enumerated().map { j, w in
                var word = TranscriptWord(word: " " + w, start: start + Double(j) * 0.5, end: start + Double(j) * 0.5 + 0.4, probability: 0.9)
                word.speaker = line.0
                return word
            })
            s.speaker = line.0
            return s
        }
        let id = try fixture.note(store, title: "Launch", transcript: lines.map(\.1).joined(separator: " "))
        try store.db.query("UPDATE notes SET segments = ? WHERE id = ?",
                           [.text(String(decoding: try JSONEncoder().encode(segments), as: UTF8.self)), .integer(Int64(id))])
        try store.db.query("UPDATE stages SET state = 'done' WHERE note_id = ?", [.integer(Int64(id))])
        return id
    }

    func pending(_ store: NotesStore, _ id: Int) throws -> [NoteStage] {
        try store.note(id).stages.filter { $0.state == .pending }.map(\.stage)
    }

    func testACorrectedSegmentKeepsItsTimesAndTheNoteIsFoundByTheCorrectedWord() throws {
        let store = try fixture.store()
        let id = try transcribedNote(store)
        let search = NotesSearch(store: store, modelStore: fixture.modelStore)
        XCTAssertEqual(try search.search("Pria", mode: .words).map(\.id), [id])

        // as many words: each keeps its time
        let fixed = try store.correct(id, segment: 1, text: "Send the deck to Priya by Friday.")
        let note = try store.note(id)
        XCTAssertEqual(note.segments[0].text, "Send the deck to Priya by Friday.")
        XCTAssertEqual(note.segments[0].words?.map(\.word), [" Send", " the", " deck", " to", " Priya", " by", " Friday."])
        XCTAssertEqual(note.segments[0].words?.map(\.start), fixed.before.words?.map(\.start))
        XCTAssertEqual(note.segments[0].words?.compactMap(\.speaker), Array(repeating: "SPEAKER_01", count: 7))
        XCTAssertEqual(note.segments[0].start, 0)
        XCTAssertEqual(note.transcript, "Send the deck to Priya by Friday. I will book the venue. Thanks, see you then.")
        XCTAssertEqual(try search.search("Priya", mode: .words).map(\.id), [id], "found by the corrected word at once")
        XCTAssertEqual(try search.search("Pria", mode: .words).map(\.id), [], "and no longer by the misheard one")
        XCTAssertEqual(try pending(store, id), [.embed], "meaning search follows once re-embedded; the summary stays")

        // other words: shared evenly over the segment's time; the speaker corrected too, with the summary rewritten
        try store.correct(id, segment: 2, text: "Dana will book the venue on Monday.", speaker: "Dana", rewriteSummary: true)
        let second = try store.note(id).segments[1]
        XCTAssertEqual(second.words?.count, 7)
        XCTAssertEqual(second.words?.first?.start, 4)
        XCTAssertEqual(second.words?.last?.end, 7)
        XCTAssertEqual(second.speaker, "Dana")
        XCTAssertTrue(second.words!.allSatisfy { $0.speaker == "Dana" })
        XCTAssertEqual(try pending(store, id), [.summarise, .embed])
        // a voice the note has is a speaker too
        try store.correct(id, segment: 3, speaker: "Dana")
        XCTAssertEqual(try store.note(id).speakers, ["SPEAKER_01", "Dana"])

        // every correction kept, oldest first; undone from the last
        XCTAssertEqual(try store.corrections(of: id).map(\.segment), [1, 2, 3])
        XCTAssertEqual(try store.undoCorrection(id)?.segment, 3)
        XCTAssertEqual(try store.note(id).segments[2].speaker, "SPEAKER_01")
        XCTAssertEqual(try store.undoCorrection(id)?.segment, 2)
        XCTAssertEqual(try store.note(id).segments[1].text, "I will book the venue.")
        XCTAssertEqual(try store.note(id).segments[1].words?.map(\.start), [4, 4.5, 5, 5.5, 6], "the words as they were, times and all")
        XCTAssertEqual(try store.undoCorrection(id)?.segment, 1)
        XCTAssertEqual(try store.undoCorrection(id), nil, "nothing left to undo")
        XCTAssertEqual(try search.search("Pria", mode: .words).map(\.id), [id])
    }

    func testWhatCannotBeACorrectionIsRefusedAndChangesNothing() throws {
        let store = try fixture.store()
        let id = try transcribedNote(store)
        let before = try store.note(id)
        XCTAssertThrowsError(try store.correct(id, segment: 4, text: "x")) {
            XCTAssertEqual($0 as? NotesError, .unknownSegment(note: id, segment: 4, count: 3))
        }
        XCTAssertThrowsError(try store.correct(id, segment: 0, text: "x"))
        for bad in ["", "   ", "two\nlines", "a\u{1B}[31mb", String(repeating: "a", count: NotesStore.maximumCorrectionCharacters + 1)] {
            XCTAssertThrowsError(try store.correct(id, segment: 1, text: bad), bad) { XCTAssertTrue($0 is NotesError) }
        }
        XCTAssertThrowsError(try store.correct(id, segment: 1), "nothing to change")
        XCTAssertThrowsError(try store.correct(id, segment: 1, speaker: "SPEAKER_09"), "a numbered voice the note does not have")
        XCTAssertThrowsError(try store.correct(999, segment: 1, text: "x")) { XCTAssertEqual($0 as? NotesError, .unknownNote(999)) }
        let waiting = try store.add(path: try fixture.speech("Not yet transcribed.", name: "later.wav"))
        XCTAssertThrowsError(try store.correct(waiting, segment: 1, text: "x")) { XCTAssertEqual($0 as? NotesError, .notTranscribed(waiting)) }
        XCTAssertEqual(try store.note(id).segments, before.segments)
        XCTAssertEqual(try store.corrections(of: id), [])

        // a segment changed since its correction (its transcript made again) is not overwritten by an undo
        try store.correct(id, segment: 1, text: "Send the deck to Priya by Friday.")
        try store.db.query("UPDATE notes SET segments = ? WHERE id = ?",
                           [.text(String(decoding: try JSONEncoder().encode(before.segments.reversed()), as: UTF8.self)), .integer(Int64(id))])
        XCTAssertThrowsError(try store.undoCorrection(id)) { XCTAssertTrue($0 is NotesError) }
    }
}
