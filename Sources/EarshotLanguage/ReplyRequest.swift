import Foundation

/// One question for a chat model: its messages, the most tokens its reply may take, the GBNF grammar that restricts
/// it (root rule "root") and where the part its reader keeps ends. Several are answered at once by
/// `ChatModel.replies(to:)`.
public struct ReplyRequest: Codable, Sendable, Equatable {
    public var messages: [ChatMessage]
    public var maxTokens: Int
    public var grammar: String?
    public var end: ReplyEnd?

    public init(_ messages: [ChatMessage], maxTokens: Int = 256, grammar: String? = nil, end: ReplyEnd? = nil) {
        self.messages = messages
        self.maxTokens = maxTokens
        self.grammar = grammar
        self.end = end
    }
}
