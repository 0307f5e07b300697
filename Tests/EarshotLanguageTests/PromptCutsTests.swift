@testable import EarshotLanguage
import EarshotCore
import XCTest

/// Where a prompt's decode batches end, and what that lets a second question about the same text skip.
final class PromptCutsTests: XCTestCase {
    private func pieces(_ count: Int, blankLinesAt: Set<Int> = []) -> [[CChar]] {
        (0..<count).map { blankLinesAt.contains($0) ? Array(".\n\n".utf8CString.dropLast()) : Array(" word".utf8CString.dropLast()) }
    }

    func testCutsComeEveryChunkAndAfterEachBlankLine() {
        let n = LanguageModel.promptChunk
        XCTAssertEqual(LanguageModel.promptCuts(pieces(3 * n + 8)), [n, 2 * n, 3 * n])
        XCTAssertEqual(LanguageModel.promptCuts(pieces(3 * n + 8, blankLinesAt: [n + 35])), [n, n + 36, 2 * n + 36], "counted again after the blank line")
        XCTAssertEqual(LanguageModel.promptCuts(pieces(2 * n)), [n], "never at the end: the last token is always decoded")
        XCTAssertEqual(LanguageModel.promptCuts(pieces(3, blankLinesAt: [2])), [], "nor after a blank line that ends the prompt")
        XCTAssertEqual(LanguageModel.promptCuts([[46, 10], [], [10], [32], [32]]), [3], "a blank line over two tokens, and one between")
        // a cut depends only on what comes before it: prompts that begin alike are cut alike as far as they agree
        let long = LanguageModel.promptCuts(pieces(5 * n, blankLinesAt: [2 * n + 22, 4 * n]))
        let short = LanguageModel.promptCuts(pieces(3 * n + 40, blankLinesAt: [2 * n + 22]))
        XCTAssertEqual(short, long.filter { $0 < 3 * n + 40 })
    }

    /// The note writer asks three questions about one transcript: after the first, each decodes its question
    /// only, and answers exactly as a model that never saw the first would.
    func testASecondQuestionAboutTheSameTextDecodesOnlyTheQuestionAndAnswersAsAFreshModel() throws {
        guard LanguageModelChoice.small.path() != nil else { throw XCTSkip("the small language model is not installed (make setup)") }
        let text = String(repeating: "The team met on Monday to plan the spring launch, the budget and the hiring of two engineers. ", count: 3)
        func ask(_ question: String) -> [ChatMessage] {
            [ChatMessage("system", "Answer briefly."), ChatMessage("user", "Note:\n\"\"\"\(text)\"\"\"\n\n\(question)")]
        }
        let model = try LanguageModel(.small)
        _ = try model.reply(to: ask("What is this note about?"), maxTokens: 8, grammar: nil)
        let before = model.usage.promptTokens
        let second = try model.reply(to: ask("Who is hired?"), maxTokens: 8, grammar: nil)
        let decoded = model.usage.promptTokens - before
        let question = model.tokenCount("Who is hired?")
        XCTAssertLessThan(decoded, question + 12, "the question and the chat template's closing tokens, not the note (\(decoded) decoded)")
        let fresh = try LanguageModel(.small)
        XCTAssertEqual(try fresh.reply(to: ask("Who is hired?"), maxTokens: 8, grammar: nil), second)
        XCTAssertGreaterThan(fresh.usage.promptTokens, 64, "the fresh model decoded the whole prompt")
    }
}
