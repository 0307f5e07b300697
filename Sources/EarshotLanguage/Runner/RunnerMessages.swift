import Foundation

/// What a language-model runner is asked, one JSON object a line: by a client of the host over its socket, and
/// by the host of its worker on the worker's standard input.
struct RunnerRequest: Codable, Sendable {
    enum Operation: String, Codable, Sendable { case reply, replies, count, embed }
    var op: Operation
    var text: String?
    var messages: [ChatMessage]?
    var maxTokens: Int?
    var grammar: String?
    var end: ReplyEnd?
    /// The questions of a `replies` request, answered together.
    var requests: [ReplyRequest]?
    /// Seconds the worker may take to answer (the asking process's EARSHOT_LANGUAGE_TIMEOUT); the host stops a
    /// worker that takes longer.
    var timeout: Double?
    /// A `reply` whose pieces are sent as they are generated (answers with `partial`) before the whole answer.
    var stream: Bool?
}

/// A runner's answer to one request, one JSON object a line on its standard output. The first line a runner
/// writes, once its model is loaded, is an answer with `ready` set (or `error`, and the runner exits).
struct RunnerResponse: Codable, Sendable {
    var ready: Bool?
    var error: String?
    var text: String?
    /// A piece of a streamed reply (`RunnerRequest.stream`): more lines follow, the last one the whole answer.
    var partial: String?
    /// The answers to a `replies` request, in its order.
    var texts: [String]?
    var count: Int?
    var vector: [Float]?
    var usage: GenerationUsage?
    /// From the host: the worker that answered (or was asked), and how it ended when it crashed or hung.
    var pid: Int32?
    var crash: RunnerCrash?
}

/// How a worker ended while it had a request: the host is its parent, so it knows the signal or exit code.
struct RunnerCrash: Codable, Sendable {
    var signal: Int32?
    var exitCode: Int32?
    var doing: String
    /// Set when the host stopped a worker that did not answer within this many seconds.
    var timedOutAfter: Double?

    init(_ error: LanguageError) {
        switch error {
        case let .runnerCrashed(signal, exitCode, doing): self.signal = signal; self.exitCode = exitCode; self.doing = doing
        case let .runnerTimedOut(seconds, doing): self.doing = doing; timedOutAfter = seconds
        default: doing = "answering"
        }
    }

    var error: LanguageError {
        timedOutAfter.map { .runnerTimedOut(seconds: $0, doing: doing) } ?? .runnerCrashed(signal: signal, exitCode: exitCode, doing: doing)
    }
}

/// A chat message: "system", "user" or "assistant", and its text.
public struct ChatMessage: Codable, Sendable, Equatable {
    public var role: String
    public var content: String
    public init(_ role: String, _ content: String) { self.role = role; self.content = content }
}

/// Tokens read and written by a model and the seconds it took, added up over its life (tokens/s reports).
public struct GenerationUsage: Codable, Sendable, Equatable {
    public var promptTokens = 0
    public var generatedTokens = 0
    public var seconds = 0.0
    public init() {}
}
