import EarshotCore
@testable import EarshotLanguage
import EarshotTestSupport
import XCTest

/// The beginning that prompts share, kept on disk by one model and read by the next one loaded (the runner host's
/// standing rules survive its restarts), without changing a single answer.
final class SavedPromptTests: XCTestCase {
    private let rules = String(repeating: "Answer in one short sentence, plainly, without lists or markdown. ", count: 4)

    private func ask(_ note: String) -> [ChatMessage] {
        [ChatMessage("system", rules), ChatMessage("user", "Note:\n\n\"\"\"\(note)\"\"\"\n\nWhen is it?")]
    }

    func testAModelLoadedLaterStartsFromTheSharedBeginningAndAnswersAsAFreshOne() throws {
        guard LanguageModelChoice.small.path() != nil else { throw XCTSkip("the small language model is not installed (make setup)") }
        let home = try TestHome.make()
        defer { try? FileManager.default.removeItem(at: home) }
        let store = ModelStore(home: home)
        let path = try XCTUnwrap(LanguageModelChoice.small.path(in: store))
        let file = SavedPrompt(modelPath: path, home: home).file
        // what an older llama.cpp build and a killed writer left, and what must stay: another model's file, and the
        // temporary file of a writer still running
        let folder = file.deletingLastPathComponent(), model = file.deletingPathExtension().lastPathComponent.dropLast(13)
        let gone = Process()
        gone.executableURL = URL(fileURLWithPath: "/bin/true")
        try gone.run()
        gone.waitUntilExit()
        let stale = ["\(model)-000000000000.state", SavedPrompt.temporaryName(of: "\(model)-000000000000.state", writer: gone.processIdentifier)]
        let kept = ["other-model-000000000000.state", SavedPrompt.temporaryName(of: file.lastPathComponent, writer: getppid())]
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        for name in stale + kept { try Data("old".utf8).write(to: folder.appendingPathComponent(name)) }

        let first = try LanguageModel(.small, store: store, remembersPrompts: true)
        _ = try first.reply(to: ask("The team meets on Monday at ten."), maxTokens: 6, grammar: nil)
        _ = try first.reply(to: ask("The shop closes at six tonight."), maxTokens: 6, grammar: nil)  // shares the rules: kept
        XCTAssertTrue(FileManager.default.fileExists(atPath: file.path), "the shared beginning was written")
        XCTAssertEqual(Set(try FileManager.default.contentsOfDirectory(atPath: folder.path)), Set(kept + [file.lastPathComponent]),
                       "the same model's other builds and dead writers' temporary files are removed")

        let question = ask("The train to Lyon leaves at nine fifteen.")
        let fresh = try LanguageModel(.small, store: store)
        let expected = try fresh.reply(to: question, maxTokens: 6, grammar: nil)
        let later = try LanguageModel(.small, store: store, remembersPrompts: true)
        XCTAssertEqual(try later.reply(to: question, maxTokens: 6, grammar: nil), expected)
        XCTAssertGreaterThanOrEqual(fresh.usage.promptTokens - later.usage.promptTokens, fresh.tokenCount(rules),
                                    "the rules came from the file (\(later.usage.promptTokens) of \(fresh.usage.promptTokens) decoded)")

        // a damaged file is read as none: the whole prompt is decoded, and the answer is the same
        try Data("not a llama.cpp state".utf8).write(to: file)
        let afterDamage = try LanguageModel(.small, store: store, remembersPrompts: true)
        XCTAssertEqual(try afterDamage.reply(to: question, maxTokens: 6, grammar: nil), expected)
        XCTAssertEqual(afterDamage.usage.promptTokens, fresh.usage.promptTokens)
    }
}
