import EarshotCore
@testable import EarshotLanguage
import XCTest

/// Generation that stops where the kept part of a reply ends: the kept part is what the whole reply would have given.
final class ReplyEndTests: XCTestCase {
    func testASentenceCountIsReachedWhenTheNextSentenceBegins() {
        let two = ReplyEnd.sentences(2, after: nil)
        XCTAssertFalse(two.isReached(by: "The car goes in on Friday."))
        XCTAssertFalse(two.isReached(by: "The car goes in on Friday. Ben orders the pads."), "two whole, the next not begun")
        XCTAssertTrue(two.isReached(by: "The car goes in on Friday. Ben orders the pads. The"))
        XCTAssertTrue(two.isReached(by: "The car goes in on Friday.\n\nBen orders the pads.\nThe"), "lines are spaces")
        XCTAssertFalse(two.isReached(by: "It costs 2.50 euros. Ben"), "a decimal point ends nothing")
        let labelled = ReplyEnd.sentences(1, after: "Summary:")
        XCTAssertFalse(labelled.isReached(by: "Action items: [\"Call Ben\"]\nSummary: The car goes in on Friday."))
        XCTAssertTrue(labelled.isReached(by: "Action items: [\"Call Ben\"]\nSummary: The car goes in on Friday. It"))
        XCTAssertFalse(labelled.isReached(by: "Ben calls. The car goes in. Summary: Friday"), "a later label starts the count again")
    }

    func testAStoppedReplyKeepsWhatTheWholeOneGivesWithFewerTokensInThisProcessAndInTheRunner() throws {
        guard LanguageModelChoice.small.path() != nil else { throw XCTSkip("the small language model is not installed (make setup)") }
        let question = [ChatMessage("user", "Describe a day at the seaside in five sentences.")]
        let whole = try LanguageModel(.small)
        let reply = try whole.reply(to: question, maxTokens: 120)
        XCTAssertGreaterThan(ReplyText.sentences(reply).count, 2, "the model writes more than it is asked to keep: \(reply)")

        let stopping = try LanguageModel(.small)
        let stopped = try stopping.reply(to: question, maxTokens: 120, end: .sentences(2, after: nil))
        XCTAssertEqual(ReplyText.firstSentences(stopped, count: 2), ReplyText.firstSentences(reply, count: 2))
        XCTAssertTrue(reply.hasPrefix(stopped), "greedy: the stopped reply is the beginning of the whole one\n\(stopped)\n\(reply)")
        XCTAssertLessThan(stopping.generatedTokens, whole.generatedTokens)
        // the same again (a stop leaves nothing behind in the context), and the rule reaches the runner's process
        XCTAssertEqual(try stopping.reply(to: question, maxTokens: 120, end: .sentences(2, after: nil)), stopped)
        XCTAssertEqual(try RunnerChatModel(.small).reply(to: question, maxTokens: 120, end: .sentences(2, after: nil)), stopped)
    }
}
