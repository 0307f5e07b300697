import EarshotSpeech
import Foundation

/// A few sentences of one voice in a note, with when they were said: what a question is answered from, and what an
/// answer cites (short enough that a citation points at the moment, long enough to hold a whole thought).
public struct Passage: Sendable, Equatable, Codable {
    public var note: Int
    /// The note's title, as it was when the question was asked.
    public var title: String
    /// When the note was recorded.
    public var created: Date
    /// Seconds into the recording.
    public var start: Double
    public var end: Double
    /// Who said it: a person's name, `SPEAKER_nn`, or nil in a note whose voices were not told apart.
    public var speaker: String?
    public var text: String

    /// The most words a passage takes before the next sentence starts another.
    static let maxWords = 45

    /// A note's passages, in order: its sentences (cut where a word ends one, timed by their words), joined while the
    /// same voice goes on and the passage stays under `maxWords`. A note with a transcript and no segments is one.
    static func passages(of note: Note) -> [Passage] {
        var units = note.segments.flatMap(sentences)
        if units.isEmpty, !note.transcript.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty {
            units = [(0, note.duration, nil, note.transcript.trimmingCharacters(in: .whitespacesAndNewlines))]
        }
        var passages: [Passage] = []
        for unit in units {
            if var last = passages.last, last.speaker == unit.speaker,
               Titles.words(last.text).count + Titles.words(unit.text).count <= maxWords {
                last.end = unit.end
                last.text += " " + unit.text
                passages[passages.count - 1] = last
            } else {
                passages.append(Passage(note: note.id, title: note.title, created: note.created, start: unit.start, end: unit.end,
                                        speaker: unit.speaker, text: unit.text))
            }
        }
        return passages
    }

    /// A segment's sentences with their times: by its words' times where it has them, else the segment's own.
    private static func sentences(of segment: TranscriptSegment) -> [(start: Double, end: Double, speaker: String?, text: String)] {
        let text = segment.text.trimmingCharacters(in: .whitespacesAndNewlines)
        guard let words = segment.words, !words.isEmpty else { return text.isEmpty ? [] : [(segment.start, segment.end, segment.speaker, text)] }
        var result: [(start: Double, end: Double, speaker: String?, text: String)] = [], current: [TranscriptWord] = []
        func close() {
            let said = current.map { $0.word.trimmingCharacters(in: .whitespaces) }.joined(separator: " ")
            if !said.isEmpty { result.append((current[0].start, current[current.count - 1].end, segment.speaker, said)) }
            current = []
        }
        for word in words {
            current.append(word)
            if let last = word.word.trimmingCharacters(in: .whitespaces).last, ".?!".contains(last) { close() }
        }
        close()
        return result
    }
}
