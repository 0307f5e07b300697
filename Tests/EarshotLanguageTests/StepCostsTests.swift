@testable import EarshotLanguage
import CLlama
import EarshotCore
import XCTest

/// Whether prompt-lookup guesses are checked on this CPU: from the measured cost of a step of one token and of four.
final class StepCostsTests: XCTestCase {
    func testGuessesAreCheckedWhereAStepsExtraTokensCostLittle() {
        XCTAssertEqual(StepCosts(oneToken: 0.072, fourTokens: 0.123).draftTokens, 3, "the Intel Xeon's steps")
        XCTAssertEqual(StepCosts(oneToken: 0.033, fourTokens: 0.090).draftTokens, 0, "the Zen 4's")
    }

    /// Measured once into the file, the context left empty; read back from the file after that, whatever the context.
    func testCostsAreMeasuredOnceAndKept() throws {
        guard let path = LanguageModelChoice.small.path() else { throw XCTSkip("the small language model is not installed (make setup)") }
        let (model, context) = try LlamaRuntime.load(path, contextTokens: 512, threads: 1, embeddings: false)
        defer { llama_free(context); llama_model_free(model) }
        let vocab = llama_model_get_vocab(model)!
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("earshot-steps-\(UUID().uuidString)/costs.json")
        defer { try? FileManager.default.removeItem(at: file.deletingLastPathComponent()) }
        let costs = try XCTUnwrap(StepCosts.kept(in: file, measuring: context, vocab: vocab))
        XCTAssertGreaterThan(costs.oneToken, 0)
        XCTAssertGreaterThan(costs.fourTokens, 0)
        XCTAssertEqual(llama_memory_seq_pos_max(llama_get_memory(context), 0), -1, "the context is left empty")
        XCTAssertEqual(try JSONDecoder().decode(StepCosts.self, from: Data(contentsOf: file)), costs)
        let kept = StepCosts(oneToken: 1, fourTokens: 5)
        try JSONEncoder().encode(kept).write(to: file)
        XCTAssertEqual(StepCosts.kept(in: file, measuring: context, vocab: vocab), kept, "read, not measured again")
    }
}
