import Foundation

extension NotesSearch {
    /// Words search on a store opened read-only because its database is damaged, when the search index itself cannot
    /// be read: every note that can still be read is scanned for the query's words (case and accents folded, all of
    /// them, or any when no note has all), best first by how often they occur. Slower than the index and without its
    /// ranking, but it shows what the damage left, as list and show do.
    func scannedWords(_ query: String, limit: Int, highlight: Highlight) -> [Hit] {
        let all = Titles.words(query), content = all.filter { !Titles.stopWords.contains($0) }
        let terms = (content.isEmpty ? all : content).map(Self.folded)
        guard !terms.isEmpty else { return [] }
        let rows = store.readableRows("SELECT id, created, title, summary, transcript FROM notes WHERE 1", [])
        func hits(needingAll: Bool) -> [Hit] {
            rows.compactMap { row -> Hit? in
                let title = row[2].string ?? "", text = [title, row[3].string ?? "", row[4].string ?? ""].joined(separator: " ")
                let words = Titles.words(text)
                let folded = words.map(Self.folded)
                let counts = terms.map { term in folded.filter { $0 == term }.count }
                guard needingAll ? counts.allSatisfy({ $0 > 0 }) : counts.contains(where: { $0 > 0 }) else { return nil }
                let first = folded.firstIndex { terms.contains($0) } ?? 0
                let shown = words[max(0, first - 5)..<min(words.count, first + 7)].map { word in
                    terms.contains(Self.folded(word)) ? highlight.open + word + highlight.close : word
                }
                return Hit(id: row[0].int ?? 0, title: title, created: Date(timeIntervalSince1970: row[1].double ?? 0),
                           snippet: shown.joined(separator: " "), score: -Double(counts.reduce(0, +)))
            }
        }
        let found = hits(needingAll: true)
        let chosen = found.isEmpty && terms.count > 1 ? hits(needingAll: false) : found
        return Array(chosen.sorted { ($0.score, $0.id) < ($1.score, $1.id) }.prefix(limit))
    }

    static func folded(_ word: String) -> String { word.folding(options: [.caseInsensitive, .diacriticInsensitive], locale: nil) }
}
