import Foundation

/// The word error rate of a set of transcripts against reference texts, matched by file name: what
/// `earshot score` reports.
public struct TranscriptScore: Sendable, Codable, Equatable {
    public struct File: Sendable, Codable, Equatable {
        public var file: String
        public var errors: Int
        public var words: Int
    }

    public var wer: Double
    public var errors: Int
    public var words: Int
    /// Files scored (those with both a reference and a hypothesis).
    public var files: Int
    /// Reference files with no hypothesis.
    public var missing: [String]
    public var perFile: [File]

    private enum CodingKeys: String, CodingKey { case wer, errors, words, files, missing, perFile = "per_file" }

    public enum InputError: Error, LocalizedError, Equatable {
        case unreadable(path: String)
        case unrecognised(path: String)

        public var errorDescription: String? {
            switch self {
            case let .unreadable(path): return "\(path): cannot read file"
            case let .unrecognised(path): return "\(path): expected 'path<TAB>transcript' lines or transcribe's JSON output"
            }
        }
    }

    /// Scores hypotheses against references (file name → text).
    public init(references: [String: String], hypotheses: [String: String]) {
        var errors = 0, words = 0
        var missing: [String] = [], rows: [File] = []
        for (name, reference) in references.sorted(by: { $0.key < $1.key }) {
            guard let hypothesis = hypotheses[name] else { missing.append(name); continue }
            let c = WordErrorRate.counts(reference: reference, hypothesis: hypothesis)
            errors += c.errors
            words += c.words
            rows.append(File(file: name, errors: c.errors, words: c.words))
        }
        self.init(wer: words == 0 ? 0 : Double(errors) / Double(words), errors: errors, words: words, files: rows.count,
                  missing: missing, perFile: rows)
    }

    init(wer: Double, errors: Int, words: Int, files: Int, missing: [String], perFile: [File]) {
        (self.wer, self.errors, self.words, self.files, self.missing, self.perFile) = (wer, errors, words, files, missing, perFile)
    }

    /// Scores the files at two paths: each a TSV ('path' and 'transcript'/'text' columns under a header, or
    /// 'file<TAB>text' lines) or the JSON that transcription writes (one transcript or a list).
    public init(referencesAt references: String, hypothesesAt hypotheses: String) throws {
        self.init(references: try Self.texts(at: references), hypotheses: try Self.texts(at: hypotheses))
    }

    /// File name → text from a TSV or transcription JSON.
    public static func texts(at path: String) throws -> [String: String] {
        guard let data = FileManager.default.contents(atPath: path) else { throw InputError.unreadable(path: path) }
        let key = { (p: String) in (p as NSString).lastPathComponent }
        if let json = try? JSONSerialization.jsonObject(with: data) {
            let docs = (json as? [[String: Any]]) ?? [(json as? [String: Any]) ?? [:]]
            return Dictionary(docs.compactMap { d in
                guard let s = d["source"] as? String, let t = d["text"] as? String else { return nil }
                return (key(s), t)
            }, uniquingKeysWith: { a, _ in a })
        }
        let lines = String(decoding: data, as: UTF8.self).split(separator: "\n")
            .map { $0.split(separator: "\t", omittingEmptySubsequences: false).map(String.init) }
        guard let header = lines.first else { return [:] }
        let pathColumn = header.firstIndex(of: "path"), textColumn = header.firstIndex(of: "transcript") ?? header.firstIndex(of: "text")
        let (p, t, body) = pathColumn != nil && textColumn != nil ? (pathColumn!, textColumn!, lines.dropFirst()) : (0, 1, lines[...])
        var texts: [String: String] = [:]
        for fields in body where fields.count > max(p, t) { texts[key(fields[p])] = fields[t] }
        guard !texts.isEmpty else { throw InputError.unrecognised(path: path) }
        return texts
    }
}
