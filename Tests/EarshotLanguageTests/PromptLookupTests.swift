@testable import EarshotLanguage
import EarshotCore
import XCTest

/// Prompt-lookup decoding: what is guessed, and that a reply copying its prompt is mostly guessed right by a real model.
final class PromptLookupTests: XCTestCase {
    func testTheLongestLatestMatchGivesTheGuess() {
        // only "c d" recurs at the end: its later earlier occurrence, followed by "x y q", wins over the first
        // ("x y z"); a three-token match ("q r s") is taken before any shorter one
        XCTAssertEqual(PromptLookup.draft(after: Array("abcdxyzcdxyqcd"), count: 3), Array("xyq"))
        XCTAssertEqual(PromptLookup.draft(after: Array("pqrsTUVqrs"), count: 2), Array("TU"))
        XCTAssertEqual(PromptLookup.draft(after: Array("abcdefcd"), count: 10), Array("efcd"), "up to the end of the text")
        XCTAssertEqual(PromptLookup.draft(after: Array("abcdefgh"), count: 4), [], "no earlier occurrence")
        XCTAssertEqual(PromptLookup.draft(after: Array("abcab"), count: 0), [])
        XCTAssertEqual(PromptLookup.draft(after: Array("ab"), count: 4), [])
        XCTAssertEqual(PromptLookup.draft(after: Array("xbcxb"), count: 4), Array("cxb"), "two tokens are enough")
    }

    func testAReplyThatCopiesItsPromptIsPartlyGuessedAndStillGreedy() throws {
        guard LanguageModelChoice.small.path() != nil else { throw XCTSkip("the small language model is not installed (make setup)") }
        let sentence = "Anna will send the revised marketing plan to the finance team by Thursday afternoon."
        let question = [ChatMessage("user", "Repeat this sentence exactly, nothing else: \(sentence)")]
        let model = try LanguageModel(.small)
        model.draftTokens = 3  // whether this CPU's steps make guesses pay or not (`StepCosts`)
        let reply = try model.reply(to: question, maxTokens: 40)
        // the small model rephrases ("The revised marketing plan will be sent to the finance team by Thursday
        // afternoon."): 7 of its 15 tokens were guessed
        XCTAssertTrue(reply.contains("to the finance team by Thursday afternoon"), reply)
        XCTAssertGreaterThan(model.acceptedTokens * 3, model.generatedTokens, "drafted \(model.draftedTokens), kept \(model.acceptedTokens) of \(model.generatedTokens)")
        // without guesses, the same greedy reply (the guessed tokens are only kept where the model agrees)
        let plain = try LanguageModel(.small)
        plain.draftTokens = 0
        XCTAssertEqual(try plain.reply(to: question, maxTokens: 40), reply)
        XCTAssertEqual(plain.draftedTokens, 0)
        // a grammar still holds over guessed tokens
        let list = try model.reply(to: [ChatMessage("user", "Put these words in a JSON array: apple, pear, plum.")], maxTokens: 40,
                                   grammar: #"root ::= "[" ( "\"" [a-z ]+ "\"" ( ", " "\"" [a-z ]+ "\"" )* )? "]""#)
        XCTAssertNoThrow(try JSONDecoder().decode([String].self, from: Data(list.utf8)), list)
    }

    func testMissesInARowWaitLongerAndAKeptGuessEndsTheWait() {
        var backoff = DraftBackoff()
        func turns(_ n: Int) -> [Bool] { (0..<n).map { _ in backoff.shouldGuess() } }
        XCTAssertEqual(turns(2), [true, true], "guesses from the start")
        backoff.record(guessed: 3, kept: 0)
        XCTAssertEqual(turns(2), [false, true], "one token alone after a miss")
        backoff.record(guessed: 3, kept: 0)
        XCTAssertEqual(turns(3), [false, false, true], "then two")
        backoff.record(guessed: 2, kept: 0)
        XCTAssertEqual(turns(5), [false, false, false, false, true], "then four")
        backoff.record(guessed: 3, kept: 1)
        XCTAssertEqual(turns(1), [true], "a guess kept in part: no wait")
        backoff.record(guessed: 3, kept: 0)
        XCTAssertEqual(turns(2), [false, true], "and the next miss starts again at one")
        backoff.record(guessed: 0, kept: 0)
        XCTAssertEqual(turns(1), [true], "no guess, nothing learnt")
        for _ in 0..<10 { backoff.record(guessed: 3, kept: 0); _ = turns(DraftBackoff.longestWait + 1) }
        backoff.record(guessed: 3, kept: 0)
        XCTAssertEqual(turns(DraftBackoff.longestWait + 1).filter { !$0 }.count, DraftBackoff.longestWait, "the wait is capped")
    }
}
