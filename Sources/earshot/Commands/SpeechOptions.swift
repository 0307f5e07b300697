import EarshotCore
import EarshotSpeech

/// Options shared by every command that runs Whisper.
enum SpeechOptions {
    static let all = [
        Option(name: "model", value: "name", help: "Whisper model: tiny.en (default, fastest) or base (multilingual)."),
        Option(name: "language", value: "code", help: "Spoken language for the base model (default en; 'auto' detects)."),
        Option(name: "threads", value: "n", help: "CPU threads for the model (default \(SpeechRecognizer.defaultThreadCount))."),
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
        return Transcriber.Configuration(model: model, threads: try args.int("threads", default: SpeechRecognizer.defaultThreadCount, range: 1...64),
                                         language: language)
    }
}
