import EarshotCore
import Foundation

/// The Whisper models setup installs (converted from CTranslate2 to ONNX, MatMul weights as uint8).
public enum WhisperModel: String, Sendable, CaseIterable, Codable {
    /// English-only, fastest; measured more accurate than base on English read speech (see BENCHMARKS.md).
    case tinyEn = "tiny.en"
    /// Multilingual base model.
    case base

    public static let `default`: WhisperModel = .tinyEn

    public init(named name: String) throws {
        guard let model = WhisperModel(rawValue: name) else {
            throw ModelError.unknown(name: name, choices: WhisperModel.allCases.map(\.rawValue))
        }
        self = model
    }

    public var isMultilingual: Bool { self == .base }

    /// Whisper's language codes (the multilingual models' 99).
    public static let languages: Set<String> = [
        "en", "zh", "de", "es", "ru", "ko", "fr", "ja", "pt", "tr", "pl", "ca", "nl", "ar", "sv", "it", "id", "hi", "fi", "vi",
        "he", "uk", "el", "ms", "cs", "ro", "da", "hu", "ta", "no", "th", "ur", "hr", "bg", "lt", "la", "mi", "ml", "cy", "sk",
        "te", "fa", "lv", "bn", "sr", "az", "sl", "kn", "et", "mk", "br", "eu", "is", "hy", "ne", "mn", "bs", "kk", "sq", "sw",
        "gl", "mr", "pa", "si", "km", "sn", "yo", "so", "af", "oc", "ka", "be", "tg", "sd", "gu", "am", "yi", "lo", "uz", "fo",
        "ht", "ps", "tk", "nn", "mt", "sa", "lb", "my", "bo", "tl", "mg", "as", "tt", "haw", "ln", "ha", "ba", "jw", "su",
    ]

    /// Refuses a language this model cannot transcribe ("auto" detects it with the multilingual model);
    /// the engine would otherwise end the process on an unknown code.
    public func check(language: String) throws {
        if language == "auto" || language == "en" { return }
        guard isMultilingual else { throw SpeechError.unsupportedLanguage(language, model: self) }
        guard Self.languages.contains(language) else { throw SpeechError.unsupportedLanguage(language, model: self) }
    }

    struct Files {
        let encoder, decoder, vocabulary, description: String
        /// The int8 vocabulary projection of the shipped models (LogitsProjection); the float references have none
        /// (their decoders compute the logits). The model's description says which it needs.
        let projection: String?
    }

    /// - Parameter floatReference: the float conversion setup keeps beside the shipped (uint8) one, which
    ///   the tests compare transcripts with.
    func files(in store: ModelStore, floatReference: Bool = false) throws -> Files {
        let dir = "\(floatReference ? "reference" : "models")/whisper-\(rawValue)"
        let label = "whisper \(rawValue)\(floatReference ? " (float reference)" : "")"
        return Files(encoder: try store.file("\(dir)/model-encoder.onnx", of: label),
                     decoder: try store.file("\(dir)/model-decoder.onnx", of: label),
                     vocabulary: try store.file("\(dir)/model-vocabulary.txt", of: label),
                     description: try store.file("\(dir)/model-whisper.json", of: label),
                     projection: try store.fileIfPresent("\(dir)/model-projection.bin", of: label))
    }
}

enum VADModel {
    static func path(in store: ModelStore) throws -> String {
        try store.file("models/silero-vad/silero_vad.onnx", of: "silero VAD")
    }
}

/// What Whisper writes: the words as spoken, or their English translation (multilingual models only).
public enum WhisperTask: String, Sendable, Codable, Hashable, CaseIterable {
    case transcribe, translate
}

public enum SpeechError: Error, LocalizedError, Equatable {
    case unsupportedLanguage(String, model: WhisperModel)
    case cannotTranslate(model: WhisperModel)

    public var errorDescription: String? {
        switch self {
        case let .unsupportedLanguage(code, model) where !model.isMultilingual:
            return "\(model.rawValue) understands English only, not '\(code)'; the base model is multilingual"
        case let .unsupportedLanguage(code, _):
            return "'\(code)' is not one of Whisper's language codes (en, de, fr, es, zh, ja, ... or auto to detect)"
        case let .cannotTranslate(model):
            return "\(model.rawValue) cannot translate (it understands English only); the base model translates into English"
        }
    }
}
