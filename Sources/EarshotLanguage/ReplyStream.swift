internal import CLlama
import Foundation

/// One reply as a model generates it, beside others or alone: the prompt it follows in its sequence of the context,
/// the tokens chosen so far, its grammar, its limits and where it ends.
final class ReplyStream {
    let sequence: llama_seq_id
    let promptCount: Int
    /// The prompt, then each token chosen for the reply.
    private(set) var tokens: [llama_token]
    let maxTokens: Int
    let grammar: UnsafeMutablePointer<llama_sampler>?
    private let end: ReplyEnd?
    private let vocab: OpaquePointer
    /// The token the model chose next, not yet kept.
    var next: llama_token = 0
    private(set) var finished = false
    var backoff = DraftBackoff()
    private var text: [UInt8] = []
    /// Told each piece of the reply as it is chosen (whole characters only: a token may end inside one).
    var onText: ((String) -> Void)?
    private var unsent: [UInt8] = []

    init(prompt: [llama_token], sequence: llama_seq_id, request: ReplyRequest, vocab: OpaquePointer) throws {
        if let rules = request.grammar {
            guard let sampler = llama_sampler_init_grammar(vocab, rules, "root") else { throw LanguageError.failed("invalid grammar") }
            grammar = sampler
        } else {
            grammar = nil
        }
        self.sequence = sequence
        promptCount = prompt.count
        tokens = prompt
        maxTokens = request.maxTokens
        end = request.end
        self.vocab = vocab
    }

    deinit { if let grammar { llama_sampler_free(grammar) } }

    var generated: Int { tokens.count - promptCount }

    /// Keeps `next` when the reply goes on with it, and says whether the reply is finished (at its limit, at the
    /// model's end of turn, or at `end` with this token: nothing after it needs decoding).
    func keepNext() -> Bool {
        guard !finished else { return true }
        guard generated < maxTokens && !llama_vocab_is_eog(vocab, next) else { finished = true; return true }
        tokens.append(next)
        let piece = end != nil || onText != nil ? LlamaRuntime.piece(next, vocab: vocab).map { UInt8(bitPattern: $0) } : []
        if let onText {
            unsent += piece
            if let whole = String(bytes: unsent, encoding: .utf8) { onText(whole); unsent = [] }
        }
        if let end {
            text += piece
            finished = end.isReached(by: String(decoding: text, as: UTF8.self))
        }
        return finished
    }

    var reply: String {
        let bytes = tokens[promptCount...].flatMap { LlamaRuntime.piece($0, vocab: vocab).map { UInt8(bitPattern: $0) } }
        return String(decoding: bytes, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
    }
}
