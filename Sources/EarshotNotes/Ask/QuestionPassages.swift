import EarshotCore
import Foundation

/// The passages of the notes closest to a question, within its scope: the notes it may be about are found as a
/// search finds them (words and meaning, or all of a scope of a few notes), then their passages are ranked
/// (`PassageRetrieval`).
struct QuestionPassages {
    let store: NotesStore
    let search: NotesSearch

    /// A scope of at most this many notes is read whole; a wider one, through the notes a search finds first.
    static let wholeScope = 12
    static let searchedNotes = 10
    /// The least a question must share with its closest passage to be put to the model at all: a word, or a cosine of
    /// `meaningFloor` (the least at which a note is a match by meaning in search, raised for a passage's few words).
    static let meaningFloor: Float = 0.3

    struct Found {
        var ranked: [PassageRetrieval.Ranked]
        /// Whether the notes were narrowed to a note, a person or a span of time: a question about them ("What did I
        /// record yesterday?") is about whatever they hold, whether it shares a word with them or not.
        var narrowed = false
        /// Everyone's name words, lower case: an answer may name only those its passage does.
        var people: Set<String> = []
        /// Whether the closest passage is close enough to ask the model about.
        var closeEnough: Bool {
            ranked.first.map { narrowed || $0.words > 0 || $0.cosine >= QuestionPassages.meaningFloor } ?? false
        }

        /// The `count` closest passages, leaving out those scored under half the closest's: a small model given a
        /// passage about something else beside the right one sometimes answered from it.
        func closest(_ count: Int) -> [Passage] {
            let best = ranked.first?.score ?? 0
            return ranked.prefix(count).filter { $0.score >= best / 2 }.map(\.passage)
        }
    }

    func find(_ question: String, scope: AskScope, now: Date) throws -> Found {
        let question = question.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !question.isEmpty else { throw NotesError.emptyQuery }
        var among: Set<Int>?
        func narrow(_ ids: Set<Int>) { among = among.map { $0.intersection(ids) } ?? ids }
        if let note = scope.note { narrow([try store.note(note).id]) }
        var voices = Set<PassageRetrieval.NoteVoice>()
        if let id = scope.person {
            let person = try store.person(id)
            narrow(Set(person.notes))
            voices = Set(person.appearances.map { PassageRetrieval.NoteVoice(note: $0.note, label: $0.label) })
        }
        let span = scope.since != nil || scope.until != nil
            ? DateInterval(start: scope.since ?? .distantPast, end: max(scope.since ?? .distantPast, scope.until ?? .distantFuture))
            : QuestionDates.span(in: question, now: now)
        if let span { narrow(Set(try store.noteIDs(recordedIn: span))) }
        // the people the question names: the notes they are heard or named in, and their own words first
        let asked = " " + Titles.words(question).joined(separator: " ") + " "
        let everyone = try store.people()
        let people = Set(everyone.compactMap(\.name).flatMap(Titles.words))
        let named = everyone.filter { $0.name.map { asked.contains(" " + Titles.words($0).joined(separator: " ") + " ") } ?? false }
        for person in named {
            let mentioned = try search.words("\"\(person.name!.replacingOccurrences(of: "\"", with: ""))\"", limit: 1_000, highlight: .brackets)
            narrow(Set(person.notes + mentioned.map(\.id)))
            voices.formUnion(person.appearances.map { PassageRetrieval.NoteVoice(note: $0.note, label: $0.label) })
        }
        if among?.isEmpty == true { return Found(ranked: [], narrowed: true, people: people) }

        let candidates: [Int]
        if let among, among.count <= Self.wholeScope {
            candidates = among.sorted()
        } else {
            // the question's words without the search syntax a question may hold by chance ("?", quotes, a colon)
            let words = Titles.words(question).joined(separator: " ")
            candidates = words.isEmpty ? [] : try search.search(words, mode: .both, limit: Self.searchedNotes, among: among).map(\.id)
        }
        let passages = try candidates.map { try store.note($0) }.filter(\.isTranscribed).flatMap(Passage.passages)
        guard !passages.isEmpty else { return Found(ranked: [], narrowed: among != nil, people: people) }
        var vectors: [[Float]?] = passages.map { _ in nil }, questionVector: [Float]?
        do {
            questionVector = try search.embedding(of: question)
            vectors = try passages.map { try search.embedding(of: $0.text) }
        } catch is ModelError {
            questionVector = nil  // without the embedding model, by words alone
        }
        return Found(ranked: PassageRetrieval.rank(question, passages, vectors: vectors, questionVector: questionVector, voices: voices),
                     narrowed: among != nil, people: people)
    }
}

extension NotesStore {
    /// The notes recorded within a span of time.
    func noteIDs(recordedIn span: DateInterval) throws -> [Int] {
        try guarded {
            try db.query("SELECT id FROM notes WHERE created >= ? AND created < ?",
                         [.real(span.start.timeIntervalSince1970), .real(span.end.timeIntervalSince1970)]).compactMap { $0[0].int }
        }
    }
}
