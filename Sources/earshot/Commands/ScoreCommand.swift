import EarshotCore
import EarshotSpeech
import EarshotVoice
import Foundation

/// Word error rate of transcripts against references: measure accuracy on your own recordings.
enum ScoreCommand {
    static let command = Command(
        name: "score",
        abstract: "Word error rate of transcripts, or diarization error rate of speaker turns, against references.",
        usage: "[options] <references.tsv> <hypotheses.tsv|.json> | <reference.rttm> <hypothesis.rttm>",
        discussion: """
        References: a TSV whose header has 'path' and 'transcript' columns, or two columns 'file<TAB>text'.
        Hypotheses: the same TSV form, or the output of 'earshot transcribe --json'. Files are matched by
        name. Case, punctuation and hyphens are ignored and digits are read as words, so "1469" matches
        "fourteen sixty-nine".

        Two RTTM files (what 'earshot diarize' writes) are scored by diarization error rate: missed speech,
        false alarm and speaker confusion over the reference's speech, files matched by their RTTM file id,
        speakers mapped one-to-one to agree most (or by name with --by-name), --collar seconds around every
        reference boundary left out (0.25 by default), overlapping reference speech counted.
        """,
        options: [
            Option(name: "json", value: nil, help: "Print the result as JSON."),
            Option(name: "per-file", value: nil, help: "Also list each file's errors and words (or DER)."),
            Option(name: "collar", value: "s", help: "RTTM: seconds left out around each reference boundary (default 0.25)."),
            Option(name: "by-name", value: nil, help: "RTTM: a named speaker is right only under its own name (voices nobody named, SPEAKER_nn, are mapped among the reference's SPEAKER_nn)."),
        ],
        examples: [
            "earshot transcribe --json data/*.flac > hyp.json && earshot score data/transcripts.tsv hyp.json",
            "earshot diarize meeting.wav > hyp.rttm && earshot score meeting.rttm hyp.rttm",
        ],
        run: run)

    static func run(_ args: ParsedArguments) async throws -> Int32 {
        guard args.positionals.count == 2 else {
            throw UsageError(message: "give a reference file and a hypothesis file", path: args.path)
        }
        if args.positionals.allSatisfy({ $0.lowercased().hasSuffix(".rttm") }) { return try scoreTurns(args) }
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

    /// One file's (or the whole set's) diarization error, as JSON.
    struct TurnScore: Encodable {
        let file: String
        let der: Double, missed: Double, falseAlarm: Double, confusion: Double, referenceSeconds: Double
        enum CodingKeys: String, CodingKey {
            case file, der, missed, confusion
            case falseAlarm = "false_alarm", referenceSeconds = "reference_seconds"
        }
        init(_ file: String, _ rates: [DiarizationErrorRate]) {
            func r(_ x: Double) -> Double { (x * 10_000).rounded() / 10_000 }
            let total = rates.map(\.referenceSeconds).reduce(0, +)
            let (m, f, c) = (rates.map(\.missed).reduce(0, +), rates.map(\.falseAlarm).reduce(0, +), rates.map(\.confusion).reduce(0, +))
            self.file = file
            der = r(total > 0 ? (m + f + c) / total : 0)
            missed = r(m); falseAlarm = r(f); confusion = r(c); referenceSeconds = r(total)
        }
    }

    static func scoreTurns(_ args: ParsedArguments) throws -> Int32 {
        let collar = try args.double("collar", default: 0.25, range: 0...5)
        func read(_ path: String) throws -> [String: [SpeakerTurn]] {
            let text: String
            do { text = try String(contentsOfFile: path, encoding: .utf8) } catch {
                throw UsageError(message: "cannot read \(path): \(error.localizedDescription)", path: args.path)
            }
            var byFile: [String: [SpeakerTurn]] = [:]
            for line in text.split(separator: "\n") where line.hasPrefix("SPEAKER") {
                let file = String(line.split(separator: " ", omittingEmptySubsequences: true).dropFirst().first ?? "")
                byFile[file, default: []] += try DiarizationErrorRate.turns(rttm: String(line))
            }
            return byFile
        }
        let reference = try read(args.positionals[0]), hypothesis = try read(args.positionals[1])
        let files = reference.keys.sorted()
        let rates = files.map { DiarizationErrorRate(reference: reference[$0]!, hypothesis: hypothesis[$0] ?? [], collar: collar,
                                                     byName: args.flag("by-name")) }
        let missing = files.filter { hypothesis[$0] == nil }
        let perFile = zip(files, rates).map { TurnScore($0, [$1]) }
        let total = TurnScore("all", rates)
        if args.flag("json") {
            struct Document: Encodable { let total: TurnScore; let files: [TurnScore]?; let collar: Double }
            try JSONOutput.document(Document(total: total, files: args.flag("per-file") ? perFile : nil, collar: collar))
        } else {
            if args.flag("per-file") { for f in perFile { print(String(format: "%@\tDER %.2f%%", f.file, f.der * 100)) } }
            print(String(format: "DER %.2f%% (collar %.2f s; missed %.2f s, false alarm %.2f s, confusion %.2f s of %.2f s; %d files)",
                         total.der * 100, collar, total.missed, total.falseAlarm, total.confusion, total.referenceSeconds, files.count))
        }
        if !missing.isEmpty { StandardError.write("no hypothesis for \(missing.count) reference file(s): \(missing.prefix(5).joined(separator: ", "))\n") }
        return missing.isEmpty ? 0 : 1
    }
}
