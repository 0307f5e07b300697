import EarshotCore
import EarshotLanguage
import Foundation

/// What happens while a question is answered: the passages found (at once), then the answer's text as the model
/// writes it.
public enum AskEvent: Sendable {
    case passages([Passage])
    case text(String)
}

/// The language model that answers questions, on an executor of its own: an answer takes seconds, and the library's
/// reads and edits must not wait for it.
actor AnswerWriter {
    private let answerer: NoteAnswerer
    private let executor = DispatchQueueExecutor(label: "earshot.notes.ask")
    nonisolated var unownedExecutor: UnownedSerialExecutor { executor.asUnownedSerialExecutor() }

    init(_ choice: LanguageModelChoice, store: ModelStore, threads: Int) throws {
        answerer = NoteAnswerer(model: try RunnerChatModel(choice, store: store, threads: threads))
    }

    func answer(_ question: String, passages: [Passage], people: Set<String>, now: Date, onText: @escaping @Sendable (String) -> Void) throws -> Answer {
        try answerer.answer(question, passages: passages, people: people, now: now, onText: onText)
    }
}
