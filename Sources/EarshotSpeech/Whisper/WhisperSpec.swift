import EarshotCore
import Foundation

/// What setup's conversion says about a Whisper model (`model-whisper.json` beside the ONNX files): its
/// sizes, special tokens, the tokens never to write, and the cross-attention heads that follow the audio.
struct WhisperSpec: Decodable, Sendable {
    struct Language: Decodable, Sendable { let code: String; let token: Int }

    let n_mels: Int
    let n_text_ctx: Int
    let n_vocab: Int
    let n_text_layer: Int
    let n_text_state: Int
    let n_text_head: Int
    let alignment_heads: [[Int]]
    let suppress_tokens: [Int]
    let suppress_tokens_at_start: [Int]
    let sot, eot, translate, transcribe, sot_prev, sot_lm, no_timestamps, no_speech, timestamp_begin: Int
    let languages: [Language]
    let multilingual: Bool
    /// The int8 vocabulary projection file beside the model (quantised models; nil: the decoder computes logits).
    let projection: String?

    /// Seconds per timestamp token and per encoder frame.
    static let timestampStep = 0.02

    static func load(_ path: String) throws -> WhisperSpec {
        do {
            return try JSONDecoder().decode(WhisperSpec.self, from: Data(contentsOf: URL(fileURLWithPath: path)))
        } catch {
            throw ModelError.failedToLoad(model: "whisper", detail: "\(path) is unreadable (\(error)); reinstall with `\(ModelStore.installCommand)`")
        }
    }

    func languageToken(_ code: String) -> Int? { languages.first { $0.code == code }?.token }

    /// The tokens that start every transcript: start, then language and task on multilingual models.
    func startSequence(language: String, task: WhisperTask) -> [Int] {
        guard multilingual else { return [sot] }
        return [sot, languageToken(language) ?? languageToken("en")!, task == .translate ? translate : transcribe]
    }

    /// Tokens never sampled: symbols that are not speech, and the special tokens that only the prompt may hold.
    var suppressedEverywhere: [Int] {
        Array(Set(suppress_tokens + [transcribe, translate, sot, sot_prev, sot_lm, no_speech]))
            .filter { $0 >= 0 && $0 < n_vocab }.sorted()
    }
}
