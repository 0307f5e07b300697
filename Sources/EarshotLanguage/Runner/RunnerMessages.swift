import Foundation

/// What a language-model runner is asked, one JSON object a line on its standard input.
struct RunnerRequest: Codable, Sendable {
    enum Operation: String, Codable, Sendable { case reply, count, embed }
    var op: Operation
    var text: String?
    var messages: [ChatMessage]?
    var maxTokens: Int?
    var grammar: String?
}

/// A runner's answer to one request, one JSON object a line on its standard output. The first line a runner
/// writes, once its model is loaded, is an answer with `ready` set (or `error`, and the runner exits).
struct RunnerResponse: Codable, Sendable {
    var ready: Bool?
    var error: String?
    var text: String?
    var count: Int?
    var vector: [Float]?
    var usage: GenerationUsage?
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
