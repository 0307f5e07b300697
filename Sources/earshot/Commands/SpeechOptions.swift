import EarshotCore
import EarshotSpeech

/// Options shared by every command that runs Whisper.
enum SpeechOptions {
    static let all = [
        Option(name: "model", value: "name", help: "Whisper model: tiny.en (default, fastest) or base (multilingual)."),
        Option(name: "language", value: "code", help: "Spoken language for the base model (default en; 'auto' detects)."),
        Option(name: "threads", value: "n", help: "CPU threads for the model (default \(SpeechRecognizer.defaultThreadCount))."),
        Option(name: "beam-size", value: "n", help: "Hypotheses searched: 1 decodes greedily (default, fastest), 5 is more accurate."),
        Option(name: "prompt", value: "text", help: "Text Whisper reads first: names and spellings to follow, the style to write in."),
        Option(name: "hotwords", value: "words", help: "Words to favour, e.g. product or people's names."),
        Option(name: "temperature", value: "t", help: "First sampling temperature, 0-1 (default 0: the likeliest text)."),
    ]
    /// For recordings (live pieces never take the second look: their partial text must come quickly).
    static let recordings = all + [
        Option(name: "greedy-only", value: nil, help: "With beam size 1: no second look by beam search where Whisper is unsure."),
    ]

    static func read(_ args: ParsedArguments) throws -> Transcriber.Configuration {
        let model: WhisperModel
        do { model = try WhisperModel(named: args.value("model") ?? WhisperModel.default.rawValue) } catch {
            throw UsageError(message: error.localizedDescription, path: args.path)
        }
        let language = args.value("language") ?? "en"
        do { try model.check(language: language) } catch {
            throw UsageError(message: error.localizedDescription, path: args.path)
        }
        let beamSize = try args.int("beam-size", default: 1, range: 1...16)
        if args.flag("greedy-only") && beamSize > 1 {
            throw UsageError(message: "--greedy-only and --beam-size \(beamSize) ask for two decodings: keep one (greedy-only is beam size 1 without the second look)",
                             path: args.path)
        }
        return Transcriber.Configuration(model: model, threads: try args.int("threads", default: SpeechRecognizer.defaultThreadCount, range: 1...64),
                                         language: language, beamSize: beamSize,
                                         prompt: args.value("prompt"), hotwords: args.value("hotwords"),
                                         temperature: try args.double("temperature", default: 0, range: 0...1),
                                         secondLook: !args.flag("greedy-only"))
    }
}
