import EarshotCore
import Foundation

/// What writes text for notes: a chat model that answers messages (in this process or in a runner).
public protocol ChatModel: AnyObject {
    var choice: LanguageModelChoice { get }
    /// The assistant's reply, at most `maxTokens` long; `grammar` (GBNF, root rule "root") restricts it, and
    /// generation stops at `end` when the reply reaches it.
    func reply(to messages: [ChatMessage], maxTokens: Int, grammar: String?, end: ReplyEnd?) throws -> String
    /// The replies to several questions, in their order. A model that can decodes them together, one batch for all
    /// (`LanguageModel`); by default they are answered one after the other.
    func replies(to requests: [ReplyRequest]) throws -> [String]
    /// One reply, each piece told to `onText` as it is generated; by default the whole reply at once, at its end.
    func reply(to request: ReplyRequest, onText: @escaping (String) -> Void) throws -> String
    func tokenCount(_ text: String) throws -> Int
    /// Tokens and seconds so far.
    var usage: GenerationUsage { get }
}

extension ChatModel {
    /// The whole reply, up to `maxTokens`.
    public func reply(to messages: [ChatMessage], maxTokens: Int, grammar: String?) throws -> String {
        try reply(to: messages, maxTokens: maxTokens, grammar: grammar, end: nil)
    }

    public func replies(to requests: [ReplyRequest]) throws -> [String] {
        try requests.map { try reply(to: $0.messages, maxTokens: $0.maxTokens, grammar: $0.grammar, end: $0.end) }
    }

    public func reply(to request: ReplyRequest, onText: @escaping (String) -> Void) throws -> String {
        let text = try reply(to: request.messages, maxTokens: request.maxTokens, grammar: request.grammar, end: request.end)
        onText(text)
        return text
    }
}

/// What turns text into a unit-length vector for search by meaning.
public protocol SentenceEmbedding: AnyObject {
    func embed(_ text: String) throws -> [Float]
}

/// A chat model in its own process (`LanguageRunner`): what the notes pipeline uses.
public final class RunnerChatModel: ChatModel, Sendable {
    public let choice: LanguageModelChoice
    public let runner: LanguageRunner
    private let total = Locked(GenerationUsage())

    public init(_ choice: LanguageModelChoice = .standard, store: ModelStore = ModelStore(), threads: Int = 2) throws {
        _ = try store.file(choice.file, of: "\(choice.displayName) (language model)")  // a missing model is said at once
        self.choice = choice
        runner = LanguageRunner(.chat(choice), store: store, threads: threads)
    }

    public func reply(to messages: [ChatMessage], maxTokens: Int = 256, grammar: String? = nil, end: ReplyEnd? = nil) throws -> String {
        let response = try runner.ask(RunnerRequest(op: .reply, messages: messages, maxTokens: maxTokens, grammar: grammar, end: end))
        if let usage = response.usage { total.withLock { $0 = usage } }
        return response.text ?? ""
    }

    public func reply(to request: ReplyRequest, onText: @escaping (String) -> Void) throws -> String {
        var asked = RunnerRequest(op: .reply, messages: request.messages, maxTokens: request.maxTokens, grammar: request.grammar, end: request.end)
        asked.stream = true
        let response = try runner.ask(asked, onPartial: onText)
        if let usage = response.usage { total.withLock { $0 = usage } }
        return response.text ?? ""
    }

    public func replies(to requests: [ReplyRequest]) throws -> [String] {
        let response = try runner.ask(RunnerRequest(op: .replies, requests: requests))
        if let usage = response.usage { total.withLock { $0 = usage } }
        guard let texts = response.texts, texts.count == requests.count else {
            throw LanguageError.failed("the runner answered \(response.texts?.count ?? 0) of \(requests.count) questions")
        }
        return texts
    }

    public func tokenCount(_ text: String) throws -> Int {
        try runner.ask(RunnerRequest(op: .count, text: text)).count ?? 0
    }

    /// The runner's own count: it starts again from zero when a crashed runner is replaced.
    public var usage: GenerationUsage { total.withLock { $0 } }
}

/// all-MiniLM-L6-v2 in its own process (`LanguageRunner`).
public final class RunnerTextEmbedder: SentenceEmbedding, Sendable {
    public let runner: LanguageRunner

    public init(store: ModelStore = ModelStore(), threads: Int = 2) throws {
        _ = try store.file(TextEmbedder.file, of: "all-MiniLM-L6-v2 (text embeddings)")
        runner = LanguageRunner(.embed, store: store, threads: threads)
    }

    public func embed(_ text: String) throws -> [Float] {
        guard let vector = try runner.ask(RunnerRequest(op: .embed, text: text)).vector else {
            throw LanguageError.failed("the embedding runner answered without a vector")
        }
        return vector
    }
}
