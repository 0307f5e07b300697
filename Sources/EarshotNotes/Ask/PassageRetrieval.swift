import Foundation

/// Which passages answer a question best: by the words they share with it (BM25 over the candidates, words cut to
/// their stems) and by meaning (cosine of MiniLM embeddings), the passages of the people the question is about
/// first.
struct PassageRetrieval {
    struct Ranked {
        var passage: Passage
        var score: Double
        /// BM25 of the question's words in the passage (0: none shared).
        var words: Double
        var cosine: Float
    }

    /// How much the words count beside the meaning, whose cosine is 0–1: a passage holding the question's rarest
    /// words gets `wordsWeight` more.
    static let wordsWeight = 0.3
    /// What being said by the person asked about adds.
    static let speakerBonus = 0.15

    /// `vectors`: each passage's embedding (nil: none, the model is not installed), `question` the question's.
    /// `voices`: passages said by these (note, label) pairs come first.
    static func rank(_ question: String, _ passages: [Passage], vectors: [[Float]?], questionVector: [Float]?,
                     voices: Set<NoteVoice> = []) -> [Ranked] {
        let asked = Set(stems(question))
        let documents = passages.map { stems($0.text + " " + ($0.speaker ?? "")) }
        let averageLength = max(1, Double(documents.reduce(0) { $0 + $1.count }) / Double(max(1, documents.count)))
        var frequency: [String: Int] = [:]
        for document in documents { for stem in Set(document) where asked.contains(stem) { frequency[stem, default: 0] += 1 } }
        let n = Double(passages.count)
        let bm25 = documents.map { document -> Double in
            var counts: [String: Int] = [:]
            for stem in document where asked.contains(stem) { counts[stem, default: 0] += 1 }
            return counts.reduce(0) { sum, entry in
                let idf = log((n - Double(frequency[entry.key]!) + 0.5) / (Double(frequency[entry.key]!) + 0.5) + 1)
                let tf = Double(entry.value)
                return sum + idf * tf * 2.2 / (tf + 1.2 * (0.25 + 0.75 * Double(document.count) / averageLength))
            }
        }
        let best = max(bm25.max() ?? 0, 1e-9)
        return passages.indices.map { i in
            let cosine = zip(vectors[i] ?? [], questionVector ?? []).reduce(Float(0)) { $0 + $1.0 * $1.1 }
            let said = passages[i].speaker.map { voices.contains(NoteVoice(note: passages[i].note, label: $0)) } ?? false
            let score = Double(cosine) + wordsWeight * bm25[i] / best + (said ? speakerBonus : 0)
            return Ranked(passage: passages[i], score: score, words: bm25[i], cosine: cosine)
        }.sorted { ($0.score, -$0.passage.note, -$0.passage.start) > ($1.score, -$1.passage.note, -$1.passage.start) }
    }

    /// A voice of a note: the note and the label its segments carry.
    struct NoteVoice: Hashable {
        var note: Int
        var label: String
    }

    /// The content words of a text, each cut to a stem ("promised", "promises" → "promis"), so that a question and a
    /// passage that say a word differently still share it.
    static func stems(_ text: String) -> [String] {
        Titles.words(text).filter { Titles.isContentWord($0) || Int($0) != nil }.map(stem)
    }

    static func stem(_ word: String) -> String {
        var word = word.replacingOccurrences(of: "'s", with: "")
        for suffix in ["ing", "ed", "es", "s", "e", "y"] where word.count > suffix.count + 3 && word.hasSuffix(suffix) {
            word.removeLast(suffix.count)
            break
        }
        return word
    }
}
