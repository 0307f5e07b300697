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
        var score = try TranscriptScore(referencesAt: args.positionals[0], hypothesesAt: args.positionals[1])
        if args.flag("json") {
            if !args.flag("per-file") { score.perFile = [] }
            try JSONOutput.document(score)
        } else {
            if args.flag("per-file") {
                for r in score.perFile { print("\(r.file)\t\(r.errors)/\(r.words)") }
            }
            print(String(format: "WER %.2f%% (%d errors / %d words, %d files)", score.wer * 100, score.errors, score.words, score.files))
            if !score.missing.isEmpty {
                StandardError.write("no hypothesis for \(score.missing.count) reference file(s): \(score.missing.prefix(5).joined(separator: ", "))\n")
            }
        }
        return score.missing.isEmpty ? 0 : 1
    }
}
