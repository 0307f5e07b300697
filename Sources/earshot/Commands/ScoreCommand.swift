import EarshotCore
import EarshotSpeech
import Foundation

/// Word error rate of transcripts against references: measure accuracy on your own recordings.
enum ScoreCommand {
    static let command = Command(
        name: "score",
        abstract: "Word error rate of transcripts against reference texts.",
        usage: "[options] <references.tsv> <hypotheses.tsv|.json>",
        discussion: """
        References: a TSV whose header has 'path' and 'transcript' columns, or two columns 'file<TAB>text'.
        Hypotheses: the same TSV form, or the output of 'earshot transcribe --json'. Files are matched by
        name. Case, punctuation and hyphens are ignored and digits are read as words, so "1469" matches
        "fourteen sixty-nine".
        """,
        options: [
            Option(name: "json", value: nil, help: "Print the result as JSON."),
            Option(name: "per-file", value: nil, help: "Also list each file's errors and words."),
        ],
        examples: [
            "earshot transcribe --json data/*.flac > hyp.json && earshot score data/transcripts.tsv hyp.json",
        ],
        run: run)

    static func run(_ args: ParsedArguments) async throws -> Int32 {
        guard args.positionals.count == 2 else {
            throw UsageError(message: "give a reference file and a hypothesis file", path: args.path)
        }
        let references = try readTexts(args.positionals[0])
        let hypotheses = try readTexts(args.positionals[1])
        var errors = 0, words = 0
        var missing: [String] = []
        var rows: [[String: Any]] = []
        for (name, reference) in references.sorted(by: { $0.key < $1.key }) {
            guard let hypothesis = hypotheses[name] else { missing.append(name); continue }
            let c = WordErrorRate.counts(reference: reference, hypothesis: hypothesis)
            errors += c.errors
            words += c.words
            rows.append(["file": name, "errors": c.errors, "words": c.words])
        }
        let wer = words == 0 ? 0 : Double(errors) / Double(words)
        if args.flag("json") {
            var object: [String: Any] = ["wer": (wer * 1e5).rounded() / 1e5, "errors": errors, "words": words,
                                         "files": rows.count, "missing": missing]
            if args.flag("per-file") { object["per_file"] = rows }
            JSONOutput.document(object)
        } else {
            if args.flag("per-file") {
                for r in rows { print("\(r["file"]!)\t\(r["errors"]!)/\(r["words"]!)") }
            }
            print(String(format: "WER %.2f%% (%d errors / %d words, %d files)", wer * 100, errors, words, rows.count))
            if !missing.isEmpty { StandardError.write("no hypothesis for \(missing.count) reference file(s): \(missing.prefix(5).joined(separator: ", "))\n") }
        }
        return missing.isEmpty ? 0 : 1
    }

    /// File name → text, from a TSV (with or without header) or transcribe's JSON output.
    static func readTexts(_ path: String) throws -> [String: String] {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw AudioError.unreadable(path: path, reason: "no such file")
        }
        let key = { (p: String) in (p as NSString).lastPathComponent }
        if let json = try? JSONSerialization.jsonObject(with: data) {
            let docs = (json as? [[String: Any]]) ?? [(json as? [String: Any]) ?? [:]]
            return Dictionary(docs.compactMap { d in
                guard let s = d["source"] as? String, let t = d["text"] as? String else { return nil }
                return (key(s), t)
            }, uniquingKeysWith: { a, _ in a })
        }
        let lines = String(decoding: data, as: UTF8.self).split(separator: "\n").map { $0.split(separator: "\t", omittingEmptySubsequences: false).map(String.init) }
        guard let header = lines.first else { return [:] }
        let pathColumn = header.firstIndex(of: "path"), textColumn = header.firstIndex(of: "transcript") ?? header.firstIndex(of: "text")
        let (p, t, body) = pathColumn != nil && textColumn != nil ? (pathColumn!, textColumn!, lines.dropFirst()) : (0, 1, lines[...])
        var texts: [String: String] = [:]
        for fields in body where fields.count > max(p, t) { texts[key(fields[p])] = fields[t] }
        guard !texts.isEmpty else {
            throw UsageError(message: "\(path): expected 'path<TAB>transcript' lines or transcribe --json output", path: ["earshot", "score"])
        }
        return texts
    }
}
