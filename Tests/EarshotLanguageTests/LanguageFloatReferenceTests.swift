import CLlama
import EarshotCore
@testable import EarshotLanguage
import EarshotTestSupport
import XCTest

/// The shipped 4-bit language models against their float references (setup dequantises each file with gguf-py's
/// numpy code into `EARSHOT_HOME/reference/llm`). llama.cpp picks its quantised kernels by the CPU's extensions (AVX2,
/// AVX-512, VNNI; AMX, which faults, is left out), so a kernel that computes wrongly on some CPU shows here on that CPU
/// as next-token choices that part from the reference's. Both read the same text (transcripts of the judged notes in
/// bench/data, as a note's prompt holds one); at every position the shipped model's likeliest next token should be the
/// reference's, and its distribution close to it.
final class LanguageFloatReferenceTests: XCTestCase {
    /// What 4-bit weights alone cost, measured on the AMD EPYC (Zen 4, AVX-512) of BENCHMARKS.md ("Same answers on every CPU"):
    /// default 0.94 of positions agree, mean KL 0.03 nats; small 0.86, 0.07. The bounds leave room for other CPUs'
    /// rounding, and none for a kernel that computes something else (a wrong kernel parts at most positions).
    static let bounds: [LanguageModelChoice: (agreement: Double, divergence: Double)] = [
        .standard: (0.92, 0.10), .small: (0.90, 0.03),
    ]

    func testTheShippedModelsChooseTheirFloatReferencesNextTokens() throws {
        let store = ModelStore()
        let text = try Self.transcripts().prefix(10).joined(separator: "\n\n")
        for choice in LanguageModelChoice.allCases {
            let shipped = try store.file(choice.file, of: "\(choice.displayName) (language model)")
            let reference = try store.file(Self.referenceFile(of: choice), of: "\(choice.displayName) float reference")
            let (agreement, divergence, positions) = try Self.compare(shipped, reference, text: text)
            let bound = try XCTUnwrap(Self.bounds[choice])
            print("\(choice.rawValue): \(positions) positions, next token agrees at \(String(format: "%.3f", agreement)), " +
                  "mean KL \(String(format: "%.4f", divergence)) nats (bounds ≥ \(bound.agreement), ≤ \(bound.divergence))")
            XCTAssertGreaterThan(positions, 300, "too little text to judge \(choice.rawValue)")
            XCTAssertGreaterThanOrEqual(agreement, bound.agreement, "\(choice.rawValue): next tokens part from the float reference's")
            XCTAssertLessThanOrEqual(divergence, bound.divergence, "\(choice.rawValue): next-token distributions part from the float reference's")
        }
    }

    /// The judged notes' transcripts (`bench/data/judged-notes.json`).
    static func transcripts() throws -> [String] {
        let file = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("bench/data/judged-notes.json")
        let notes = try JSONSerialization.jsonObject(with: Data(contentsOf: file)) as? [[String: Any]] ?? []
        return notes.compactMap { $0["transcript"] as? String }
    }

    /// Where setup keeps `choice`'s float reference.
    static func referenceFile(of choice: LanguageModelChoice) -> String {
        "reference/llm/" + URL(fileURLWithPath: choice.file).deletingPathExtension().lastPathComponent + ".f16.gguf"
    }

    /// Both models read `text` in one pass; at each position, whether their likeliest next tokens agree and the
    /// Kullback-Leibler divergence of the shipped model's next-token distribution from the reference's.
    static func compare(_ shipped: String, _ reference: String, text: String) throws -> (agreement: Double, divergence: Double, positions: Int) {
        let a = try logits(shipped, text: text), b = try logits(reference, text: text)
        XCTAssertEqual(a.tokens, b.tokens, "the two files tokenise the text differently")
        let vocabulary = a.values.count / a.tokens
        var agree = 0, divergence = 0.0
        for position in 0..<a.tokens {
            let p = logSoftmax(b.values[(position * vocabulary)..<((position + 1) * vocabulary)])
            let q = logSoftmax(a.values[(position * vocabulary)..<((position + 1) * vocabulary)])
            if p.indices.max(by: { p[$0] < p[$1] }) == q.indices.max(by: { q[$0] < q[$1] }) { agree += 1 }
            divergence += zip(p, q).reduce(0) { $0 + exp($1.0) * ($1.0 - $1.1) }
        }
        return (Double(agree) / Double(a.tokens), divergence / Double(a.tokens), a.tokens)
    }

    /// Every position's next-token logits for `text`, read in batches of 64 on two threads.
    static func logits(_ path: String, text: String) throws -> (values: [Float], tokens: Int) {
        let (model, context) = try LlamaRuntime.load(path, contextTokens: 2048, threads: 2, embeddings: false)
        defer { llama_free(context); llama_model_free(model) }
        let vocab = llama_model_get_vocab(model)!
        let tokens = LlamaRuntime.tokenize(text, vocab: vocab, special: true)
        let vocabulary = Int(llama_vocab_n_tokens(vocab))
        var values = [Float](), position = 0
        let batch = DecodeBatch(capacity: 64)
        for chunk in stride(from: 0, to: tokens.count, by: 64).map({ tokens[$0..<min(tokens.count, $0 + 64)] }) {
            batch.add(chunk, from: position)
            XCTAssertEqual(batch.decode(in: context), 0, "llama_decode failed on \(path)")
            for row in 0..<chunk.count {
                values += UnsafeBufferPointer(start: llama_get_logits_ith(context, Int32(row)), count: vocabulary)
            }
            position += chunk.count
        }
        return (values, tokens.count)
    }

    static func logSoftmax(_ x: ArraySlice<Float>) -> [Double] {
        let top = Double(x.max()!)
        let sum = x.reduce(0.0) { $0 + exp(Double($1) - top) }
        return x.map { Double($0) - top - log(sum) }
    }
}
