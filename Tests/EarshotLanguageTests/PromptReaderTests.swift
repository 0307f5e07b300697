import CLlama
@testable import EarshotLanguage
import EarshotCore
import XCTest

/// A prompt read by the plain copy of the weights and copied into the generating context is the prompt a context
/// reading it itself would hold: the next token's logits after it are the same.
final class PromptReaderTests: XCTestCase {
    private static let text = String(repeating: "The team met on Monday to plan the spring launch, the budget and the hiring of two engineers. ", count: 16)

    /// The logits after `tokens`, the first `split` of them already in `context` (nothing when `split` is 0).
    private func logits(after tokens: [llama_token], split: Int, in context: OpaquePointer, vocabSize: Int) throws -> [Float] {
        var input = tokens
        let rc = input.withUnsafeMutableBufferPointer { llama_decode(context, llama_batch_get_one($0.baseAddress! + split, Int32(tokens.count - split))) }
        XCTAssertEqual(rc, 0)
        return Array(UnsafeBufferPointer(start: try XCTUnwrap(llama_get_logits_ith(context, -1)), count: vocabSize))
    }

    func testTheCopiedCellsGiveTheLogitsOfAContextThatReadThePromptItself() throws {
        // the small model's Q4_1 weights have no second layout on x86-64, so both contexts compute with the same kernels
        guard let path = LanguageModelChoice.small.path() else { throw XCTSkip("the small language model is not installed (make setup)") }
        let (model, copied) = try LlamaRuntime.load(path, contextTokens: 1024, threads: 2, embeddings: false)
        let (freshModel, fresh) = try LlamaRuntime.load(path, contextTokens: 1024, threads: 2, embeddings: false)
        defer { llama_free(copied); llama_model_free(model); llama_free(fresh); llama_model_free(freshModel) }
        let vocab = try XCTUnwrap(llama_model_get_vocab(model))
        let vocabSize = Int(llama_vocab_n_tokens(vocab))
        let tokens = LlamaRuntime.tokenize(Self.text, vocab: vocab, special: true)
        let split = LanguageModel.promptChunk
        XCTAssertGreaterThan(tokens.count, split + 10)

        let reader = PromptReader(path, for: copied, contextTokens: 1024, threads: 2, plainCopy: true)
        XCTAssertNotEqual(reader.context, copied, "a copy of its own")
        XCTAssertEqual(reader.decode(tokens, 0..<split), 0)
        XCTAssertTrue(reader.copy(into: copied))
        let afterCopy = try logits(after: tokens, split: split, in: copied, vocabSize: vocabSize)

        var input = tokens
        XCTAssertEqual(input.withUnsafeMutableBufferPointer { llama_decode(fresh, llama_batch_get_one($0.baseAddress!, Int32(split))) }, 0)
        let afterReading = try logits(after: tokens, split: split, in: fresh, vocabSize: vocabSize)
        let largest = zip(afterCopy, afterReading).map { abs($0 - $1) }.max()!
        XCTAssertLessThan(largest, 1e-3, "the copied prompt's logits differ from the read one's by \(largest)")

        // the check can fail: the prompt's end alone (its beginning lost) gives other logits
        llama_memory_clear(llama_get_memory(fresh), true)
        var end = Array(tokens[split...])
        XCTAssertEqual(end.withUnsafeMutableBufferPointer { llama_decode(fresh, llama_batch_get_one($0.baseAddress!, Int32($0.count))) }, 0)
        let alone = Array(UnsafeBufferPointer(start: try XCTUnwrap(llama_get_logits_ith(fresh, -1)), count: vocabSize))
        XCTAssertGreaterThan(zip(alone, afterReading).map { abs($0 - $1) }.max()!, 0.1)

        // a reader that has read nothing leaves the target empty
        reader.forget()
        XCTAssertTrue(reader.copy(into: copied))
        XCTAssertEqual(llama_memory_seq_pos_max(llama_get_memory(copied), 0), -1)
    }

    /// Where the plain layout is no faster (llama.cpp built without AVX-512), prompts are read where replies are
    /// generated, and nothing is copied.
    func testAReaderWithoutAPlainCopyReadsInTheGeneratingContext() throws {
        guard let path = LanguageModelChoice.small.path() else { throw XCTSkip("the small language model is not installed (make setup)") }
        let (model, context) = try LlamaRuntime.load(path, contextTokens: 512, threads: 2, embeddings: false)
        defer { llama_free(context); llama_model_free(model) }
        let reader = PromptReader(path, for: context, contextTokens: 512, threads: 2, plainCopy: false)
        XCTAssertEqual(reader.context, context)
        let tokens = LlamaRuntime.tokenize(Self.text, vocab: try XCTUnwrap(llama_model_get_vocab(model)), special: true)
        XCTAssertEqual(reader.decode(tokens, 0..<40), 0)
        XCTAssertTrue(reader.copy(into: context))
        XCTAssertEqual(llama_memory_seq_pos_max(llama_get_memory(context), 0), 39, "the cells read stay")
        XCTAssertTrue(reader.keep(first: 10))
        XCTAssertEqual(llama_memory_seq_pos_max(llama_get_memory(context), 0), 9)
    }
}
