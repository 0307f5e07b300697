import EarshotCore
import EarshotLanguage
import Foundation

/// Finds notes by their words (SQLite FTS5, BM25 ranking, accents and case ignored), by meaning (MiniLM
/// embeddings, cosine), or both, merged by reciprocal rank.
public final class NotesSearch {
    public enum Mode: String, Sendable, CaseIterable, Codable { case words, meaning, both }

    public struct Hit: Sendable, Equatable, Codable {
        public var id: Int
        public var title: String
        public var created: Date
        /// Where the words matched, with each match between `highlight` marks; for meaning-only hits, the summary.
        public var snippet: String
        /// BM25 (lower is better) for words, cosine for meaning, fused rank score for both.
        public var score: Double
    }

    /// The marks put around each matching word in a snippet: "[" and "]" unless the caller says otherwise
    /// (a terminal may want bold, a web page `<mark>`).
    public struct Highlight: Sendable, Equatable {
        public var open: String
        public var close: String
        public init(open: String, close: String) { self.open = open; self.close = close }
        public static let brackets = Highlight(open: "[", close: "]")
    }

    public let store: NotesStore
    private let index = SemanticIndex()
    private var embedder: (any SentenceEmbedding)?
    private let modelStore: ModelStore
    /// Texts embedded so far (a question's passages are embedded when it is asked, and the next question about the
    /// same notes finds them here).
    private var embedded: [String: [Float]] = [:]

    public init(store: NotesStore, modelStore: ModelStore = ModelStore()) {
        self.store = store
        self.modelStore = modelStore
    }

    /// `among`: only these notes (those a person is heard in, say); nil searches them all.
    public func search(_ query: String, mode: Mode = .both, limit: Int = 10, highlight: Highlight = .brackets,
                       among: Set<Int>? = nil) throws -> [Hit] {
        let query = query.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !query.isEmpty else { throw NotesError.emptyQuery }
        if let among, among.isEmpty { return [] }
        switch mode {
        case .words: return try words(query, limit: limit, highlight: highlight, among: among)
        case .meaning: return try meaning(query, limit: limit, among: among)
        case .both:
            let w = try words(query, limit: limit * 2, highlight: highlight, among: among)
            // without the embedding model installed, the default search still answers by words
            let m: [Hit]
            do { m = try meaning(query, limit: limit * 2, among: among) } catch is ModelError { m = [] }
            var fused: [Int: (hit: Hit, score: Double)] = [:]
            for list in [w, m] {
                for (rank, hit) in list.enumerated() {
                    let add = 1.0 / Double(60 + rank + 1)
                    if let old = fused[hit.id] {
                        // keep the word snippet (it shows the match), add up the rank scores
                        fused[hit.id] = (old.hit, old.score + add)
                    } else {
                        fused[hit.id] = (hit, add)
                    }
                }
            }
            return fused.values.sorted { ($0.score, -$0.hit.id) > ($1.score, -$1.hit.id) }.prefix(limit).map {
                var hit = $0.hit
                hit.score = $0.score
                return hit
            }
        }
    }

    // MARK: words

    /// Plain words are each quoted (so "can't" or "C++" are words, not syntax) and must all appear; if no
    /// note has them all, any of them will do. Stop words are dropped when the query has other words. A query written in FTS5 syntax (quotes, parentheses, AND,
    /// OR, NOT, NEAR, prefix*) is passed through, and a malformed one gets a clear error.
    func words(_ query: String, limit: Int, highlight: Highlight, among: Set<Int>? = nil) throws -> [Hit] {
        do {
            return try indexedWords(query, limit: limit, highlight: highlight, among: among)
        } catch let error as NotesError {
            // read-only because damaged, and the index is on a damaged page: read what can be read instead
            guard case .needsRepair = error, store.damage != nil else { throw error }
            return Array(scannedWords(query, limit: among == nil ? limit : Int.max, highlight: highlight)
                .filter { among?.contains($0.id) ?? true }.prefix(limit))
        }
    }

    private func indexedWords(_ query: String, limit: Int, highlight: Highlight, among: Set<Int>?) throws -> [Hit] {
        let ftsQuery = { (match: String) in try self.ftsQuery(match, original: query, limit: limit, highlight: highlight, among: among) }
        if Self.usesSyntax(query) { return try ftsQuery(query) }
        // "in", "the", "to" match every note: leave them out unless the query is nothing else
        let all = Titles.words(query), content = all.filter { !Titles.stopWords.contains($0) }
        let terms = (content.isEmpty ? all : content).map { "\"\($0.replacingOccurrences(of: "\"", with: "\"\""))\"" }
        guard !terms.isEmpty else { throw NotesError.badQuery(query: query, problem: "it has no words to look for") }
        let every = try ftsQuery(terms.joined(separator: " "))
        if !every.isEmpty || terms.count == 1 { return every }
        return try ftsQuery(terms.joined(separator: " OR "))
    }

    static func usesSyntax(_ query: String) -> Bool {
        if query.contains(where: { "\"()*:^".contains($0) }) { return true }
        return query.split(separator: " ").contains { ["AND", "OR", "NOT", "NEAR"].contains(String($0)) }
    }

    private func ftsQuery(_ match: String, original: String, limit: Int, highlight: Highlight, among: Set<Int>?) throws -> [Hit] {
        // integers, not text from the query
        let only = among.map { " AND n.id IN (\($0.sorted().map(String.init).joined(separator: ",")))" } ?? ""
        do {
            return try store.db.query("""
                SELECT n.id, n.title, n.created, snippet(notes_fts, -1, ?, ?, '…', 12), bm25(notes_fts, 10.0, 4.0, 1.0) AS rank
                FROM notes_fts JOIN notes n ON n.id = notes_fts.rowid
                WHERE notes_fts MATCH ?\(only) ORDER BY rank LIMIT ?
                """, [.text(highlight.open), .text(highlight.close), .text(match), .integer(Int64(limit))]).map {
                Hit(id: $0[0].int ?? 0, title: $0[1].string ?? "", created: Date(timeIntervalSince1970: $0[2].double ?? 0),
                    snippet: $0[3].string ?? "", score: $0[4].double ?? 0)
            }
        } catch let error as SQLiteDatabase.Failure where !error.isBusy && !error.isDiskFull && !error.isCorrupt {
            let problem = error.message.replacingOccurrences(of: "fts5: ", with: "")
            throw NotesError.badQuery(query: original, problem: "malformed search syntax (\(problem)); quote words or drop the operators")
        } catch let error as SQLiteDatabase.Failure {
            throw store.failure(error)
        }
    }

    // MARK: meaning

    /// The least cosine at which a note is a match by meaning. MiniLM puts unrelated short texts at 0–0.2 and any
    /// note would otherwise be a hit (searching "dentist" listed a note about Mrs. Rachel Lind after the two about
    /// the dentist). Measured on 25 notes and 44 queries (36 with a related note that shares no words, 8 with none;
    /// BENCHMARKS.md): at 0.2, 38 of the 42 related pairs are kept and 66 of the 1,058 unrelated ones (0.15: 41 and
    /// 168; 0.25: 36 and 24).
    static let meaningFloor: Float = 0.2

    /// A text's embedding (a `ModelError` when the model is not installed).
    func embedding(of text: String) throws -> [Float] {
        if let vector = embedded[text] { return vector }
        if embedder == nil { embedder = try RunnerTextEmbedder(store: modelStore) }
        let vector = try embedder!.embed(text)
        if embedded.count >= 20_000 { embedded.removeAll() }
        embedded[text] = vector
        return vector
    }

    func meaning(_ query: String, limit: Int, among: Set<Int>? = nil) throws -> [Hit] {
        let vector = try embedding(of: query)
        try store.guarded { try index.refresh(store.db) }
        let nearest = index.nearest(vector, limit: limit, among: among).filter { $0.cosine >= Self.meaningFloor }
        guard !nearest.isEmpty else { return [] }
        let byId = try Dictionary(uniqueKeysWithValues: store.guarded {
            try store.db.query("SELECT id, title, created, summary, substr(transcript, 1, 160) FROM notes WHERE id IN (\(nearest.map { String($0.id) }.joined(separator: ",")))")
        }.map { ($0[0].int ?? 0, $0) })
        return nearest.compactMap { n in
            guard let row = byId[n.id] else { return nil }
            let summary = row[3].string ?? "", text = summary.isEmpty ? (row[4].string ?? "") : summary
            return Hit(id: n.id, title: row[1].string ?? "", created: Date(timeIntervalSince1970: row[2].double ?? 0),
                       snippet: text.count > 160 ? String(text.prefix(160)) + "…" : text, score: Double(n.cosine))
        }
    }
}
