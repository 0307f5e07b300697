import EarshotLanguage
import Foundation

/// A template's sections: each asked as a short list, each point kept only where the note says it.
extension NoteWriter {
    /// Points a section holds at most.
    static let pointsPerSection = 5

    func sectionRequest(_ heading: String, of template: SummaryTemplate, body: String, grammar: String) -> ReplyRequest {
        ReplyRequest(Self.request(body, template.question(for: heading) + " A JSON array of short points."), maxTokens: 200, grammar: grammar)
    }

    /// The points of a section's reply that the note says, each once. Under "Terms" a point must give a meaning
    /// ("Chlorophyll: the green pigment…"): the model also lists bare nouns.
    static func readPoints(_ reply: String, said transcript: String, heading: String = "") -> [String] {
        let items = (try? JSONDecoder().decode([String].self, from: Data(reply.utf8))) ?? []
        var kept: [String] = [], seen: [Set<String>] = []
        for item in items {
            let point = item.trimmingCharacters(in: .whitespacesAndNewlines)
            guard Self.supported(point, by: transcript) else { continue }
            if heading == "Terms", !Self.definesTerm(point) { continue }
            let stems = Set(PassageRetrieval.stems(point))
            if seen.contains(where: { stems.isSubset(of: $0) }) { continue }
            seen.append(stems)
            kept.append(point.prefix(1).uppercased() + point.dropFirst())
        }
        return kept
    }

    /// Whether the note says `point`: it has content words, at most 30 words, and two thirds of its content words (by
    /// stem) are the note's. The model's own words ("discussed", "the team") may join the note's, its facts may not.
    static func supported(_ point: String, by transcript: String) -> Bool {
        let stems = PassageRetrieval.stems(point)
        guard !stems.isEmpty, Titles.words(point).count <= 30 else { return false }
        let said = Set(PassageRetrieval.stems(transcript))
        return Double(stems.filter(said.contains).count) >= Double(stems.count) * 2 / 3
    }

    /// "Term: meaning", "Term – meaning", or "Term is/means …" with words after it.
    static func definesTerm(_ point: String) -> Bool {
        point.range(of: #"^[^:–-]{1,60}(:| – | - | is | are | means )\s*\S+(\s+\S+)+"#, options: .regularExpression) != nil
    }

    /// The summary as a note keeps it: the short summary, then each section that kept a point, as a heading and a list.
    static func laidOut(_ summary: String, _ sections: [(heading: String, points: [String])]) -> String {
        let lists = sections.filter { !$0.points.isEmpty }.map { "\($0.heading):\n" + $0.points.map { "- " + $0 }.joined(separator: "\n") }
        return ([summary] + lists).filter { !$0.isEmpty }.joined(separator: "\n\n")
    }
}
