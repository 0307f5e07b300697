import EarshotCore

/// The Whisper models setup installs (converted from CTranslate2 to sherpa-onnx ONNX, MatMul weights as uint8).
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

    /// - Parameter floatReference: the float conversion setup keeps beside the shipped (uint8) one, which
    ///   the tests compare transcripts with.
    func files(in store: ModelStore, floatReference: Bool = false) throws -> Files {
        let dir = "\(floatReference ? "reference" : "models")/whisper-\(rawValue)"
        let label = "whisper \(rawValue)\(floatReference ? " (float reference)" : "")"
        return Files(encoder: try store.file("\(dir)/model-encoder.onnx", of: label),
                     decoder: try store.file("\(dir)/model-decoder.onnx", of: label),
                     tokens: try store.file("\(dir)/model-tokens.txt", of: label))
    }
}

enum VADModel {
    static func path(in store: ModelStore) throws -> String {
        try store.file("models/silero-vad/silero_vad.onnx", of: "silero VAD")
    }
}
