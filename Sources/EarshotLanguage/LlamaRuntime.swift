internal import CLlama
import EarshotCore
import Foundation

/// llama.cpp's process-wide set-up: the backend is initialised once and its log (hundreds of lines per
/// model load) is silenced; errors reach users through our own messages instead.
enum LlamaRuntime {
    private static let initialised: Bool = {
        llama_log_set(silentLog, nil)
        llama_backend_init()
        return true
    }()

    static func start() { _ = initialised }

    /// What tells one version of `path` and of setup's llama.cpp build from another: the file's size and modification
    /// time, and the stamp setup writes beside the libraries. What is named by it (a runner's socket, a saved prompt)
    /// is never used with another build.
    static func buildIdentity(of path: String, home: URL) -> Data {
        var identity = Data()
        if let attributes = try? FileManager.default.attributesOfItem(atPath: path) {
            identity.append(Data("\(attributes[.size] ?? 0) \((attributes[.modificationDate] as? Date)?.timeIntervalSince1970 ?? 0)".utf8))
        }
        identity.append((try? Data(contentsOf: home.appendingPathComponent("runtime/llama/.earshot-stamp"))) ?? Data())
        return identity
    }

    /// `EARSHOT_LANGUAGE_THREADS`: the threads every llama.cpp context computes with, whatever its caller asked (a
    /// host's worker, which inherits the variable from the client that started its host, or a model loaded in the
    /// caller's own process). One is the choice where other heavy work shares
    /// the cores: llama.cpp's threads wait for each other by spinning, and on 2 busy cores two of them crawl (beside
    /// two busy loops, four titles by the small model took 62 s on two threads; `make test` runs two lanes so).
    private static var threadsOverride: Int? {
        ProcessInfo.processInfo.environment["EARSHOT_LANGUAGE_THREADS"].flatMap(Int.init).map { max(1, $0) }
    }

    /// The threads a context asked to compute with `threads` gets (`threadsOverride` wins).
    static func threads(_ threads: Int) -> Int { threadsOverride ?? threads }

    /// A model file loaded on the CPU and a context over it, or an error naming the file. For embeddings
    /// the whole text is one batch and the output is pooled by mean.
    /// `sequences`: how many replies the context can hold at once (`LanguageModel.replies(to:)`), in one buffer of
    /// keys and values, so that they share the cells of the prompt they begin with. `repacked`: the weights in
    /// llama.cpp's interleaved layout where it has one (fastest for small batches; `PromptReader` says why not always).
    static func load(_ path: String, contextTokens: Int, threads: Int, embeddings: Bool, sequences: Int = 1,
                     repacked: Bool = true) throws -> (model: OpaquePointer, context: OpaquePointer) {
        start()
        let threads = Self.threads(threads)
        var params = llama_model_default_params()
        params.n_gpu_layers = 0
        params.use_extra_bufts = repacked
        guard let model = llama_model_load_from_file(path, params) else { throw LanguageError.failedToLoad(path: path) }
        var cparams = llama_context_default_params()
        cparams.n_ctx = UInt32(contextTokens)
        cparams.n_batch = UInt32(embeddings ? contextTokens : 512)
        if embeddings {
            cparams.n_ubatch = UInt32(contextTokens)
            cparams.embeddings = true
            cparams.pooling_type = LLAMA_POOLING_TYPE_MEAN
        }
        cparams.n_threads = Int32(threads)
        cparams.n_threads_batch = Int32(threads)
        cparams.no_perf = true
        if sequences > 1 {
            cparams.n_seq_max = UInt32(sequences)
            cparams.kv_unified = true
        }
        guard let context = llama_init_from_model(model, cparams) else {
            llama_model_free(model)
            throw LanguageError.failed("cannot create a context of \(contextTokens) tokens for \(path)")
        }
        return (model, context)
    }

    /// Text of a vocabulary token.
    static func piece(_ token: llama_token, vocab: OpaquePointer) -> [CChar] {
        var buffer = [CChar](repeating: 0, count: 64)
        var n = llama_token_to_piece(vocab, token, &buffer, Int32(buffer.count), 0, false)
        if n < 0 {
            buffer = [CChar](repeating: 0, count: Int(-n))
            n = llama_token_to_piece(vocab, token, &buffer, Int32(buffer.count), 0, false)
        }
        return Array(buffer.prefix(Int(max(0, n))))
    }

    /// Tokens of `text`; `special` adds the model's start token (and parses control tokens in templates).
    static func tokenize(_ text: String, vocab: OpaquePointer, special: Bool) -> [llama_token] {
        let utf8 = Array(text.utf8CString.dropLast())
        var tokens = [llama_token](repeating: 0, count: utf8.count + 8)
        var n = llama_tokenize(vocab, utf8, Int32(utf8.count), &tokens, Int32(tokens.count), special, special)
        if n < 0 {
            tokens = [llama_token](repeating: 0, count: Int(-n))
            n = llama_tokenize(vocab, utf8, Int32(utf8.count), &tokens, Int32(tokens.count), special, special)
        }
        return Array(tokens.prefix(Int(max(0, n))))
    }
}

/// A C callback cannot capture: a plain function that drops every log line.
private func silentLog(_ level: ggml_log_level, _ text: UnsafePointer<CChar>?, _ userData: UnsafeMutableRawPointer?) {}

public enum LanguageError: Error, LocalizedError, Equatable {
    case failedToLoad(path: String)
    case failed(String)
    /// The runner process ended while `doing` something: by a signal (a crash) or with an exit code.
    case runnerCrashed(signal: Int32?, exitCode: Int32?, doing: String)
    case runnerTimedOut(seconds: Double, doing: String)
    case runnerMissing(path: String)

    /// Whether the runner is gone after this error (the next request starts a new one).
    var endedRunner: Bool {
        switch self {
        case .runnerCrashed, .runnerTimedOut: return true
        default: return false
        }
    }

    public var errorDescription: String? {
        switch self {
        case let .runnerCrashed(signal?, _, doing):
            return "the language model crashed while \(doing): \(ProcessStatus.describe(signal: signal)) — `earshot doctor` checks the runtime on this CPU"
        case let .runnerCrashed(nil, code, doing):
            return "the language model's runner exited while \(doing) (exit code \(code.map(String.init) ?? "unknown")) — `earshot doctor` checks the runtime on this CPU"
        case let .runnerTimedOut(seconds, doing):
            return "the language model did not finish \(doing) within \(Int(seconds)) s and was stopped (EARSHOT_LANGUAGE_TIMEOUT sets the limit)"
        case let .runnerMissing(path):
            return "the language-model runner is missing (no \(path)): `\(ModelStore.installCommand)` builds it beside earshot; for your own program, build it with `swift build --product earshot-language-runner`, or set EARSHOT_LANGUAGE_RUNNER"
        case let .failedToLoad(path): return "\(path): llama.cpp could not load this model (damaged file? reinstall it with `\(ModelStore.installCommand)`)"
        case let .failed(what): return "language model: \(what)"
        }
    }
}

/// A llama.cpp batch: runs of tokens at consecutive positions, each run in one sequence (a chosen token and the draft
/// checked after it, or the end of a prompt). A batch of one run is the same whichever way it is filled.
final class DecodeBatch {
    private var batch: llama_batch
    private let capacity: Int

    init(capacity: Int) {
        self.capacity = capacity
        batch = llama_batch_init(Int32(capacity), 0, 1)
    }

    deinit { llama_batch_free(batch) }

    var isEmpty: Bool { batch.n_tokens == 0 }

    /// Adds `tokens` at positions `from`, `from + 1`, … of `sequence`, with the logits of each (or of the last only);
    /// returns the row of the first, which `llama_get_logits_ith` reads after decoding.
    @discardableResult
    func add(_ tokens: some Collection<llama_token>, from position: Int, sequence: llama_seq_id = 0, logitsOfLastOnly: Bool = false) -> Int32 {
        let first = batch.n_tokens
        precondition(Int(first) + tokens.count <= capacity)
        for (i, token) in tokens.enumerated() {
            let row = Int(first) + i
            batch.token[row] = token
            batch.pos[row] = llama_pos(position + i)
            batch.n_seq_id[row] = 1
            batch.seq_id[row]![0] = sequence
            batch.logits[row] = !logitsOfLastOnly || i == tokens.count - 1 ? 1 : 0
        }
        batch.n_tokens += Int32(tokens.count)
        return first
    }

    /// Decodes what was added and empties the batch; llama_decode's status (0: done).
    func decode(in context: OpaquePointer) -> Int32 {
        defer { batch.n_tokens = 0 }
        return llama_decode(context, batch)
    }
}
