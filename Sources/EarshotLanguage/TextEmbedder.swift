internal import CLlama
import EarshotCore
import Foundation

/// Sentence embeddings with all-MiniLM-L6-v2 (converted to GGUF by setup) through llama.cpp: WordPiece
/// tokens, BERT encoder, mean pooling, then L2 normalisation, so a dot product is the cosine.
public final class TextEmbedder: SentenceEmbedding {
    public static let file = "models/text-embedding/all-minilm-l6-v2.gguf"
    public static let identity = "all-minilm-l6-v2"
    /// BERT's position limit.
    public static let maxTokens = 512
    public let dimension: Int
    private let model: OpaquePointer
    private let context: OpaquePointer
    private let vocab: OpaquePointer

    public init(store: ModelStore = ModelStore(), threads: Int = 2) throws {
        let path = try store.file(Self.file, of: "all-MiniLM-L6-v2 (text embeddings)")
        let (model, context) = try LlamaRuntime.load(path, contextTokens: Self.maxTokens, threads: threads, embeddings: true)
        self.model = model
        self.context = context
        vocab = llama_model_get_vocab(model)
        dimension = Int(llama_model_n_embd(model))
    }

    deinit {
        llama_free(context)
        llama_model_free(model)
    }

    /// The unit-length embedding of a text. Text past 510 word pieces is embedded in pieces whose vectors
    /// are averaged, so a long transcript counts whole.
    public func embed(_ text: String) throws -> [Float] {
        var tokens = LlamaRuntime.tokenize(text, vocab: vocab, special: true)
        guard tokens.count > 2 else { return [Float](repeating: 0, count: dimension) }
        let (first, last) = (tokens.removeFirst(), tokens.removeLast())  // [CLS] ... [SEP]
        let body = Self.maxTokens - 2
        var sum = [Float](repeating: 0, count: dimension)
        for start in stride(from: 0, to: tokens.count, by: body) {
            var piece = [first] + tokens[start..<min(tokens.count, start + body)] + [last]
            llama_memory_clear(llama_get_memory(context), true)
            let rc = piece.withUnsafeMutableBufferPointer { llama_encode(context, llama_batch_get_one($0.baseAddress, Int32($0.count))) }
            guard rc == 0, let vector = llama_get_embeddings_seq(context, 0) else {
                throw LanguageError.failed("embedding failed (\(rc))")
            }
            let v = Self.normalised(Array(UnsafeBufferPointer(start: vector, count: dimension)))
            for i in sum.indices { sum[i] += v[i] }
        }
        return Self.normalised(sum)
    }

    public static func normalised(_ v: [Float]) -> [Float] {
        let norm = v.reduce(0) { $0 + $1 * $1 }.squareRoot()
        return norm > 0 ? v.map { $0 / norm } : v
    }
}
