@testable import EarshotLanguage
import EarshotCore
import XCTest

/// Several questions about one text answered together (one sequence each, one batch per step): each reply keeps its
/// own grammar, limit and end, the same questions get the same replies from a fresh model, through the runner and
/// again from the same model, and a reply asked alone afterwards is the reply of a fresh model.
final class RepliesTogetherTests: XCTestCase {
    static let rules = "You file voice notes. Answer with exactly what is asked, nothing else."
    static let note = "Call with Maria about the kitchen. The new tiles arrive on Tuesday and Maria will book the fitter by Friday."

    static func ask(_ question: String) -> [ChatMessage] {
        [ChatMessage("system", rules), ChatMessage("user", "Voice note transcript:\n\n\"\"\"\(note)\"\"\"\n\n\(question)")]
    }

    static let questions = [
        ReplyRequest(ask("Action items?"), maxTokens: 60, grammar: #"root ::= "[" ( "\"" [^"\\\x00-\x1f]{3,80} "\"" ( ", " "\"" [^"\\\x00-\x1f]{3,80} "\"" )* )? "]""#),
        ReplyRequest(ask("Summary?"), maxTokens: 80, end: .sentences(1, after: nil)),
        ReplyRequest(ask("Title, in a few words?"), maxTokens: 4),
    ]

    func testEachReplyKeepsItsGrammarLimitAndEndAndTheSameQuestionsGetTheSameReplies() throws {
        guard LanguageModelChoice.small.path() != nil else { throw XCTSkip("the small language model is not installed (make setup)") }
        let model = try LanguageModel(.small)
        let replies = try model.replies(to: Self.questions)
        XCTAssertEqual(replies.count, 3)
        XCTAssertNoThrow(try JSONDecoder().decode([String].self, from: Data(replies[0].utf8)), "the grammar holds: \(replies[0])")
        XCTAssertFalse(replies[1].isEmpty)
        XCTAssertLessThanOrEqual(ReplyText.sentencesOnOneLine(replies[1]).count, 2, "stopped once a second sentence began: \(replies[1])")
        XCTAssertLessThanOrEqual(model.tokenCount(replies[2]), 5, "at most 4 tokens (and a space trimmed): \(replies[2])")
        XCTAssertGreaterThanOrEqual(model.generatedTokens, 3)

        XCTAssertEqual(try LanguageModel(.small).replies(to: Self.questions), replies, "a fresh model")
        XCTAssertEqual(try model.replies(to: Self.questions), replies, "the same model, from the beginning it kept")
        XCTAssertEqual(try RunnerChatModel(.small).replies(to: Self.questions), replies, "the runner")

        // the context holds nothing of the other sequences afterwards: a question alone reads as on a fresh model
        let alone = [ChatMessage("user", "Name three colours of the rainbow.")]
        XCTAssertEqual(try model.reply(to: alone, maxTokens: 20), try LanguageModel(.small).reply(to: alone, maxTokens: 20))
        let follow = Self.ask("Who books the fitter?")
        XCTAssertEqual(try model.reply(to: follow, maxTokens: 20), try LanguageModel(.small).reply(to: follow, maxTokens: 20),
                       "a question about the same note reuses only what a fresh model would have decoded the same way")
    }

    func testRepliesLeaveNoCellsBehindNoteAfterNote() throws {
        guard LanguageModelChoice.small.path() != nil else { throw XCTSkip("the small language model is not installed (make setup)") }
        // a context of 512 tokens holds a note's three prompts and replies (~250 cells) once: cells left behind by a
        // note's other sequences would fill it within three notes, and decoding would fail
        let model = try LanguageModel(.small, contextTokens: 512)
        let first = try model.replies(to: Self.questions)
        for round in 1...6 { XCTAssertEqual(try model.replies(to: Self.questions), first, "note \(round + 1)") }
    }

    func testQuestionsThatDoNotFitTogetherAreAnsweredInTurn() throws {
        guard LanguageModelChoice.small.path() != nil else { throw XCTSkip("the small language model is not installed (make setup)") }
        let model = try LanguageModel(.small)
        // five questions: more than the context's sequences, so each is read alone, as `reply` reads it
        let many = (1...5).map { ReplyRequest([ChatMessage("user", "Say the number \($0) in words.")], maxTokens: 6) }
        let replies = try model.replies(to: many)
        let fresh = try LanguageModel(.small)
        XCTAssertEqual(replies, try many.map { try fresh.reply(to: $0.messages, maxTokens: 6) })
    }
}
