import EarshotCore

/// The Whisper models setup installs (converted from CTranslate2 to sherpa-onnx int8 ONNX).
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

    struct Files { let encoder, decoder, tokens: String }

    func files(in store: ModelStore) throws -> Files {
        let dir = "models/whisper-\(rawValue)"
        let label = "whisper \(rawValue)"
        return Files(encoder: try store.file("\(dir)/model-encoder.int8.onnx", of: label),
                     decoder: try store.file("\(dir)/model-decoder.int8.onnx", of: label),
                     tokens: try store.file("\(dir)/model-tokens.txt", of: label))
    }
}

enum VADModel {
    static func path(in store: ModelStore) throws -> String {
        try store.file("models/silero-vad/silero_vad.onnx", of: "silero VAD")
    }
}
