internal import CLlama
import EarshotCore
import Foundation

/// The local instruction-following models, installed by setup as GGUF files (THIRD_PARTY.md lists them).
public enum LanguageModelChoice: String, Sendable, CaseIterable {
    /// Qwen2.5-Coder-1.5B-Instruct Q4_K_M: good titles and summaries, ~30 tokens/s on 2 threads.
    case standard = "default"
    /// SmolLM2-135M-Instruct Q4_1: ten times faster, tends to echo the transcript.
    case small

    public var file: String {
        switch self {
        case .standard: return "models/llm/qwen2.5-coder-1.5b-instruct-q4_k_m.gguf"
        case .small: return "models/llm/SmolLM2-135M-Instruct.Q4_1.gguf"
        }
    }

    public var displayName: String {
        switch self {
        case .standard: return "qwen2.5-1.5b-instruct"
        case .small: return "smollm2-135m-instruct"
        }
    }

    public init(named name: String) throws {
        guard let choice = Self(rawValue: name) else {
            throw ModelError.unknown(name: name, choices: Self.allCases.map(\.rawValue))
        }
        self = choice
    }

    /// The model's path, or nil when it is not installed.
    public func path(in store: ModelStore = ModelStore()) -> String? {
        try? store.file(file, of: "\(displayName) (language model)")
    }
}

/// A chat model run with llama.cpp in this process: greedy decoding (the same transcript gives the same title),
/// optionally constrained by a GBNF grammar so the output always parses. The notes pipeline runs it in a
/// process of its own (`RunnerChatModel`), so that a crash in llama.cpp cannot take the caller down.
public final class LanguageModel: ChatModel {
    public typealias Message = ChatMessage

    public let choice: LanguageModelChoice
    public let contextTokens: Int
    private let model: OpaquePointer
    private let context: OpaquePointer
    private let vocab: OpaquePointer
    /// Reads every prompt (its logits after a prompt choose a reply's first token); where it has a plain copy of the
    /// weights, the prompt's cells are then copied into `context`.
    private let reader: PromptReader
    private let template: String?
    /// The tokens whose keys and values are in the context now: a request that starts the same way (the
    /// same transcript, another question) decodes only what differs.
    private var cached: [llama_token] = []
    /// The length of the prompt at the start of `cached`: its batches up to any of its cuts (`promptCuts`) are what
    /// a fresh run of a prompt starting the same way would decode.
    private var cachedPromptCount = 0
    /// Where the beginning this model shares between prompts is kept for the next load (nil: nowhere), and what it holds.
    private let savedPrompt: SavedPrompt?
    private var savedTokens: ArraySlice<llama_token> = []
    /// The longest batch a prompt is read in between blank lines. Longer batches read faster (the default model, a
    /// 200-token prompt on 2 Xeon cores: 103 tokens/s in 64-token batches, 134 in 256-token ones, plain layout;
    /// BENCHMARKS.md), but a prompt that agrees with the one before up to no blank line reuses only what lies before
    /// its last cut.
    static let promptChunk = 256
    /// Tokens generated and seconds spent, over this model's life (for tokens/s reports).
    public private(set) var generatedTokens = 0
    /// Tokens guessed by prompt lookup and checked, and those of them the model agreed with.
    public private(set) var draftedTokens = 0
    public private(set) var acceptedTokens = 0
    /// The longest guess checked at once (0 turns prompt lookup off): 3 where this CPU decodes a step's extra tokens
    /// cheaply enough, else 0 (`StepCosts`, measured once per machine, model and thread count; 3 when they cannot be
    /// measured). `EARSHOT_LANGUAGE_DRAFT` sets it for the runner's models too, to measure it.
    public var draftTokens: Int
    public private(set) var promptTokens = 0
    public private(set) var generationSeconds = 0.0
    public var usage: GenerationUsage {
        var usage = GenerationUsage()
        (usage.promptTokens, usage.generatedTokens, usage.seconds) = (promptTokens, generatedTokens, generationSeconds)
        return usage
    }
    private let generationLock: URL

    /// `remembersPrompts`: keep the beginning that consecutive prompts share on disk (`SavedPrompt`) and start from
    /// the one kept there; the runner host does, so that it does not read the note writer's rules again at each start.
    public init(_ choice: LanguageModelChoice = .standard, store: ModelStore = ModelStore(), threads: Int = 2,
                contextTokens: Int = 4096, remembersPrompts: Bool = false) throws {
        let path = try store.file(choice.file, of: "\(choice.displayName) (language model)")
        let (model, context) = try LlamaRuntime.load(path, contextTokens: contextTokens, threads: threads, embeddings: false, sequences: Self.sequences)
        reader = PromptReader(path, for: context, contextTokens: contextTokens, threads: threads)
        self.choice = choice
        self.contextTokens = contextTokens
        generationLock = store.home.appendingPathComponent("locks/language-model.lock")
        self.model = model
        self.context = context
        vocab = llama_model_get_vocab(model)
        template = llama_model_chat_template(model, nil).map { String(cString: $0) }
        savedPrompt = remembersPrompts ? SavedPrompt(modelPath: path, home: store.home) : nil
        // measured while the context is still empty (before the saved prompt is loaded)
        let drafts = ProcessInfo.processInfo.environment["EARSHOT_LANGUAGE_DRAFT"].flatMap(Int.init).map { max(0, $0) }
        let costs = drafts == nil ? StepCosts.kept(in: StepCosts.file(modelPath: path, home: store.home, threads: LlamaRuntime.threads(threads)),
                                                   measuring: context, vocab: vocab) : nil
        draftTokens = drafts ?? costs?.draftTokens ?? StepCosts.guessLength
        if let saved = savedPrompt?.load(into: reader.context, capacity: contextTokens), reader.copy(into: context) {
            (cached, cachedPromptCount, savedTokens) = (saved, saved.count, saved[...])
        } else {
            reader.forget()
        }
    }

    deinit {
        llama_free(context)
        llama_model_free(model)
    }

    /// Where a prompt's decode batches end (before its last token): every `promptChunk` tokens, counted from the start
    /// and again from each paragraph break (a token that completes a blank line: Qwen writes ".\n\n" as one token,
    /// SmolLM2 "\n" twice). Each cut depends only on the tokens before it, so two prompts that begin alike are cut
    /// alike as far as they agree; and since the note writer's requests are one transcript followed by a blank line
    /// and then a question, a second question about the same transcript decodes only the question (with cuts every
    /// 64 tokens alone, it also decoded up to 63 tokens of the transcript again: a second per note on a 2-core machine).
    static func promptCuts(_ pieces: [[CChar]]) -> [Int] {
        var cuts: [Int] = [], start = 0, last: CChar = 0  // the text's last byte so far
        for (i, piece) in pieces.enumerated() where i + 1 < pieces.count {
            let end = i + 1
            let text = [last] + piece
            let blankLine = zip(text, text.dropFirst()).contains { $0 == 10 && $1 == 10 }
            last = piece.last ?? last
            if blankLine || (end - start) % promptChunk == 0 {
                cuts.append(end)
                if blankLine { start = end }
            }
        }
        return cuts
    }

    /// Greedy choice of the next token. With a grammar, the best token is checked alone first and the
    /// grammar is applied to the whole vocabulary only when it refuses it: applying it to all 151k tokens
    /// at every step costs more than the model itself.
    /// `row`: which token of the last batch decoded the logits come from (-1: its last); `from`: the context that
    /// decoded it (nil: the generating one).
    private func nextToken(grammar: UnsafeMutablePointer<llama_sampler>?, row: Int32 = -1, from decoder: OpaquePointer? = nil) -> llama_token {
        let count = Int(llama_vocab_n_tokens(vocab))
        let logits = UnsafeBufferPointer(start: llama_get_logits_ith(decoder ?? context, row)!, count: count)
        func argmax(_ values: UnsafeBufferPointer<Float>) -> Int {
            var best = 0
            for i in 1..<values.count where values[i] > values[best] { best = i }
            return best
        }
        var token = llama_token(argmax(logits))
        guard let grammar else { return token }
        var single = llama_token_data(id: token, logit: logits[Int(token)], p: 0)
        let accepted: Bool = withUnsafeMutablePointer(to: &single) { p in
            var one = llama_token_data_array(data: p, size: 1, selected: -1, sorted: false)
            llama_sampler_apply(grammar, &one)
            return p.pointee.logit.isFinite
        }
        if !accepted {
            var all = (0..<count).map { llama_token_data(id: llama_token($0), logit: logits[$0], p: 0) }
            all.withUnsafeMutableBufferPointer { b in
                var array = llama_token_data_array(data: b.baseAddress, size: count, selected: -1, sorted: false)
                llama_sampler_apply(grammar, &array)
            }
            token = all.max { $0.logit < $1.logit }!.id
        }
        llama_sampler_accept(grammar, token)
        return token
    }

    /// Token count of a text (to cut long transcripts into chunks that fit).
    public func tokenCount(_ text: String) -> Int { LlamaRuntime.tokenize(text, vocab: vocab, special: false).count }

    /// The chat formatted with the model's own template, ready for the assistant's reply.
    func prompt(_ messages: [Message]) throws -> String {
        var cStrings: [UnsafeMutablePointer<CChar>] = []
        defer { cStrings.forEach { free($0) } }
        let chat = messages.map { m -> llama_chat_message in
            let role = strdup(m.role)!, content = strdup(m.content)!
            cStrings += [role, content]
            return llama_chat_message(role: role, content: content)
        }
        var buffer = [CChar](repeating: 0, count: messages.reduce(256) { $0 + 2 * ($1.content.utf8.count + 32) })
        var n = llama_chat_apply_template(template, chat, chat.count, true, &buffer, Int32(buffer.count))
        if n > buffer.count {
            buffer = [CChar](repeating: 0, count: Int(n) + 1)
            n = llama_chat_apply_template(template, chat, chat.count, true, &buffer, Int32(buffer.count))
        }
        guard n > 0 else { throw LanguageError.failed("the model has no usable chat template") }
        return String(decoding: buffer.prefix(Int(n)).map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// The assistant's reply to `messages`, at most `maxTokens` long; `grammar` (GBNF, root rule "root")
    /// restricts what may be generated, and generation stops once the reply reaches `end`.
    ///
    /// One reply at a time on this machine: llama.cpp's threads of two processes (or two models in one) spin
    /// against each other on the same cores (two `notes process` at once crawled at 0.4–1 tokens/s, far
    /// slower in total than one after the other). A lock file under `EARSHOT_HOME/locks` makes them take turns.
    public func reply(to messages: [Message], maxTokens: Int = 256, grammar: String? = nil, end: ReplyEnd? = nil) throws -> String {
        try FileLock.withExclusiveLock(at: generationLock) {
            try replyAlone(ReplyRequest(messages, maxTokens: maxTokens, grammar: grammar, end: end))
        }
    }

    /// The same, telling `onText` each piece of the reply as it is generated (an answer shown while it is written).
    public func reply(to request: ReplyRequest, onText: @escaping (String) -> Void) throws -> String {
        try FileLock.withExclusiveLock(at: generationLock) { try replyAlone(request, onText: onText) }
    }

    /// The replies to several questions, decoded together: the beginning their prompts share is read once and its
    /// cells are shared by one sequence per question; then each step decodes, in one batch, every unfinished reply's
    /// chosen token and its draft. A step of three tokens costs little more than a step of one on a CPU (the weights
    /// are read once): the note writer's three questions took a fifth to a quarter less time than asked in turn
    /// (BENCHMARKS.md). Each reply is greedy, and the same questions always get the same replies; they can differ
    /// from a reply asked alone, as any change of batch does.
    public func replies(to requests: [ReplyRequest]) throws -> [String] {
        try FileLock.withExclusiveLock(at: generationLock) {
            guard requests.count > 1 else { return try requests.map { try replyAlone($0) } }
            return try repliesTogether(requests)
        }
    }

    private func replyAlone(_ request: ReplyRequest, onText: ((String) -> Void)? = nil) throws -> String {
        let started = Date()
        let tokens = try tokens(of: request)
        let stream = try ReplyStream(prompt: tokens, sequence: 0, request: request, vocab: vocab)
        stream.onText = onText
        try decodePrompt(tokens, through: tokens.count)
        stream.next = nextToken(grammar: stream.grammar, from: reader.context)  // the prompt's last batch was read there
        try generate([stream])
        cached = stream.tokens
        generatedTokens += stream.generated
        generationSeconds += Date().timeIntervalSince(started)
        return stream.reply
    }

    private func repliesTogether(_ requests: [ReplyRequest]) throws -> [String] {
        let started = Date()
        let prompts = try requests.map { try tokens(of: $0) }
        var common = 0
        let shortest = prompts.map(\.count).min()! - 1
        while common < shortest && prompts.allSatisfy({ $0[common] == prompts[0][common] }) { common += 1 }
        let shared = Self.promptCuts(prompts[0].prefix(common + 1).map { LlamaRuntime.piece($0, vocab: vocab) }).last { $0 <= common } ?? 0
        let ends = prompts.map { $0.count - shared }
        let needed = shared + zip(ends, requests).reduce(0) { $0 + $1.0 + $1.1.maxTokens }
        // one batch takes every prompt's end; one that would not fit (or too many questions) is answered in turn
        let batchTokens = Int(llama_n_batch(context))
        guard requests.count <= Self.sequences, ends.reduce(0, +) <= batchTokens, needed <= contextTokens else {
            return try requests.map { try replyAlone($0) }
        }
        let streams = try zip(prompts, requests).enumerated().map { i, pair in
            try ReplyStream(prompt: pair.0, sequence: llama_seq_id(i), request: pair.1, vocab: vocab)
        }
        try decodePrompt(prompts[0], through: shared)
        let memory = llama_get_memory(context)
        let batch = DecodeBatch(capacity: batchTokens)
        var lastRows: [Int32] = []  // where each prompt's last token, whose logits choose its first reply token, sits
        for (stream, end) in zip(streams, ends) {
            if stream.sequence > 0 {
                _ = llama_memory_seq_rm(memory, stream.sequence, -1, -1)
                llama_memory_seq_cp(memory, 0, stream.sequence, 0, Int32(shared))
            }
            let first = batch.add(stream.tokens[shared...], from: shared, sequence: stream.sequence, logitsOfLastOnly: true)
            lastRows.append(first + Int32(end - 1))
        }
        // sequence 0 keeps only the shared beginning afterwards: the cells of every prompt's end were decoded in a batch
        // a prompt asked alone is never decoded in, so no later prompt may reuse them (`decodePrompt`)
        defer {
            for stream in streams { _ = llama_memory_seq_rm(memory, stream.sequence, stream.sequence == 0 ? Int32(shared) : -1, -1) }
        }
        let rc = batch.decode(in: context)
        guard rc == 0 else { forgetContext(); throw LanguageError.failed("decoding the prompts failed (\(rc))") }
        promptTokens += ends.reduce(0, +)
        for (stream, row) in zip(streams, lastRows) { stream.next = nextToken(grammar: stream.grammar, row: row) }
        try generate(streams)  // `cached` stays the shared beginning, as `decodePrompt` left it
        generatedTokens += streams.reduce(0) { $0 + $1.generated }
        generationSeconds += Date().timeIntervalSince(started)
        return streams.map(\.reply)
    }

    /// The most replies decoded together.
    static let sequences = 4

    /// A request's prompt as tokens, or an error when it and its longest reply would not fit the context.
    private func tokens(of request: ReplyRequest) throws -> [llama_token] {
        let tokens = LlamaRuntime.tokenize(try prompt(request.messages), vocab: vocab, special: true)
        guard tokens.count + request.maxTokens <= contextTokens else {
            throw LanguageError.failed("the prompt (\(tokens.count) tokens) does not fit the \(contextTokens)-token context")
        }
        return tokens
    }

    /// Brings sequence 0 of the context to hold `tokens[..<limit]`: the reader decodes what it does not hold yet, and
    /// its cells are copied here.
    ///
    /// The prompt is decoded in batches cut where its own tokens say (`promptCuts`): llama.cpp computes a batch with
    /// kernels that depend on its size, so the same prompt must always be cut the same way for the same answer. What
    /// the context already holds is kept only up to a cut of an earlier prompt, so reusing it gives exactly the
    /// numbers a fresh run would (when the prompt is read to its end, at least its last token is decoded again, for
    /// its logits).
    private func decodePrompt(_ tokens: [llama_token], through limit: Int) throws {
        let cuts = Self.promptCuts(tokens.map { LlamaRuntime.piece($0, vocab: vocab) })
        var common = 0
        let reusable = min(cachedPromptCount, cached.count, limit == tokens.count ? limit - 1 : limit)
        while common < reusable && cached[common] == tokens[common] { common += 1 }
        var position = cuts.last { $0 <= common } ?? 0
        if !reader.keep(first: position) { position = 0 }
        cached = Array(tokens[..<position])
        // a beginning this prompt shares with the one before is what the next start of this model may share too. Only
        // a new one is written: one that merely extends what is kept (a transcript before its next question, after
        // the rules already kept) adds nothing a later prompt would reuse, so the notes write once, not per note.
        let shared = tokens[..<position]
        if let savedPrompt, position > 0, savedTokens.isEmpty || !shared.starts(with: savedTokens) {
            savedPrompt.save(shared, from: reader.context)
            savedTokens = shared
        }
        promptTokens += limit - position
        // read by the reader (`PromptReader`: where this CPU reads prompts fastest), whose last batch's logits choose a
        // reply's first token; then its cells are copied here, where the reply is generated
        for end in cuts.filter({ $0 < limit }) + [limit] where end > position {
            let rc = reader.decode(tokens, position..<end)
            guard rc == 0 else { forgetContext(); throw LanguageError.failed("decoding the prompt failed (\(rc))") }
            position = end
        }
        guard reader.copy(into: context) else { forgetContext(); throw LanguageError.failed("copying the prompt's cells failed") }
        cached = Array(tokens[..<limit])
        cachedPromptCount = limit
    }

    /// After a failed decode nothing in the context can be trusted: the next prompt starts from nothing.
    private func forgetContext() {
        llama_memory_clear(llama_get_memory(context), true)
        reader.forget()
        cached = []
        cachedPromptCount = 0
    }

    /// Greedy generation of every stream until each is finished. Each step decodes, in one batch, every unfinished
    /// reply's chosen token together with a draft of what may follow it (PromptLookup): the draft's tokens are kept
    /// while the model's own choice after each agrees, and the context forgets the rest.
    private func generate(_ streams: [ReplyStream]) throws {
        let longestGuess = max(0, draftTokens)
        let batch = DecodeBatch(capacity: streams.count * (longestGuess + 1))
        var guessed: [(stream: ReplyStream, guesses: [llama_token], row: Int32)] = []
        while true {
            guessed.removeAll(keepingCapacity: true)
            for stream in streams where !stream.keepNext() {
                let room = stream.backoff.shouldGuess() ? min(longestGuess, stream.maxTokens - stream.generated) : 0
                let guesses = Array(PromptLookup.draft(after: stream.tokens, count: room).prefix { !llama_vocab_is_eog(vocab, $0) && !llama_vocab_is_control(vocab, $0) })
                let row = batch.add([stream.next] + guesses, from: stream.tokens.count - 1, sequence: stream.sequence)
                guessed.append((stream, guesses, row))
            }
            guard !batch.isEmpty else { return }
            let rc = batch.decode(in: context)
            guard rc == 0 else { forgetContext(); throw LanguageError.failed("decoding failed (\(rc))") }
            for (stream, guesses, row) in guessed {
                var kept = 0
                stream.next = nextToken(grammar: stream.grammar, row: row)
                while kept < guesses.count && stream.next == guesses[kept] && stream.generated < stream.maxTokens {
                    kept += 1  // this guess is kept
                    if stream.keepNext() { break }
                    stream.next = nextToken(grammar: stream.grammar, row: row + Int32(kept))
                }
                draftedTokens += guesses.count
                acceptedTokens += kept
                stream.backoff.record(guessed: guesses.count, kept: kept)
                if kept < guesses.count { _ = llama_memory_seq_rm(llama_get_memory(context), stream.sequence, Int32(stream.tokens.count), -1) }
            }
        }
    }
}
