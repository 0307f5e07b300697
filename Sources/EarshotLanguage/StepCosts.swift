internal import CLlama
import EarshotCore
import Foundation

/// What a step of generation costs this CPU with one model: one token decoded alone, and four in one batch (a token
/// and the three prompt-lookup guesses checked after it). Guesses pay only where a step's extra rows cost little, and
/// that differs from CPU to CPU more than anything else about generation: on one CPU a batch of four costs little more
/// than one token and guesses shorten a note, on another it costs nearly three and guesses lengthen it although most
/// guessed tokens are kept (the timings are in BENCHMARKS.md). So the costs are measured here, once per model, llama.cpp
/// build and thread count on this machine, and kept in a file beside the build (`runtime/llama`, which test homes
/// share): every process of this machine then makes the same choice, and the same transcript keeps giving the same note.
struct StepCosts: Codable, Equatable {
    /// Seconds (medians) for a step of one token and of four.
    var oneToken: Double
    var fourTokens: Double

    /// Guesses are checked where four tokens in one step cost less than this many steps of one: midway between the
    /// two CPUs measured (1.7 and 2.7). A guess of three kept 1.5 tokens on average, so a step of four that yields 2.5
    /// tokens breaks even near 2.5 before the guesses that find nothing.
    static let guessesPayBelow = 2.2
    static let guessLength = 3

    /// The longest guess worth checking on this CPU (0: none).
    var draftTokens: Int { fourTokens < Self.guessesPayBelow * oneToken ? Self.guessLength : 0 }

    /// Where the costs of `modelPath` on `threads` threads are kept: named by the model file (its name, size and time,
    /// not its path: a test home links the same models) and the llama.cpp build.
    static func file(modelPath: String, home: URL, threads: Int) -> URL {
        let identity = LlamaRuntime.buildIdentity(of: modelPath, home: home)
        let name = URL(fileURLWithPath: modelPath).deletingPathExtension().lastPathComponent
        return home.appendingPathComponent("runtime/llama/step-costs/\(name)-\(threads)t-\(SHA256.hex(identity).prefix(12)).json")
    }

    /// The kept costs, or these measured on `context` (which must be empty; it is left empty) and kept. One process
    /// measures while the others wait for its file. nil: neither (no runtime folder, or a decode failed).
    static func kept(in file: URL, measuring context: OpaquePointer, vocab: OpaquePointer) -> StepCosts? {
        let folder = file.deletingLastPathComponent()
        guard (try? FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)) != nil else { return nil }
        return try? FileLock.withExclusiveLock(at: folder.appendingPathComponent("measuring.lock")) {
            if let costs = read(file) { return costs }
            guard let costs = measure(context, vocab: vocab) else { return nil }
            try? JSONEncoder().encode(costs).write(to: file, options: .atomic)
            return costs
        }
    }

    /// The costs kept in `file`, or nil (none kept yet, or a file that does not parse).
    static func read(_ file: URL) -> StepCosts? {
        (try? Data(contentsOf: file)).flatMap { try? JSONDecoder().decode(StepCosts.self, from: $0) }
    }

    /// Steps of one and of four tokens after a 32-token beginning, alternated, seven of each (after one of each to
    /// warm up); about a second on 2 cores.
    static func measure(_ context: OpaquePointer, vocab: OpaquePointer) -> StepCosts? {
        let memory = llama_get_memory(context)
        defer { llama_memory_clear(memory, true) }
        let count = Int(llama_vocab_n_tokens(vocab))
        let tokens = (0..<36).map { llama_token((1_000 + $0 * 37) % count) }
        let batch = DecodeBatch(capacity: 32)
        batch.add(tokens.prefix(32), from: 0)
        guard batch.decode(in: context) == 0 else { return nil }
        func step(_ n: Int) -> Double? {
            batch.add(tokens[32..<(32 + n)], from: 32)
            let start = DispatchTime.now().uptimeNanoseconds
            guard batch.decode(in: context) == 0 else { return nil }
            let seconds = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
            _ = llama_memory_seq_rm(memory, 0, 32, -1)
            return seconds
        }
        var one: [Double] = [], four: [Double] = []
        for round in 0..<8 {
            guard let a = step(1), let b = step(4) else { return nil }
            if round > 0 { (one, four) = (one + [a], four + [b]) }
        }
        return StepCosts(oneToken: one.sorted()[one.count / 2], fourTokens: four.sorted()[four.count / 2])
    }
}

extension LanguageModelChoice {
    /// What a step of this model was measured to cost on this machine, and so whether guesses are checked (`StepCosts`),
    /// for `earshot doctor`: nil before the model's first load here.
    public func measuredSteps(in store: ModelStore = ModelStore(), threads: Int = 2) -> String? {
        guard let path = path(in: store),
              let costs = StepCosts.read(StepCosts.file(modelPath: path, home: store.home, threads: LlamaRuntime.threads(threads))) else { return nil }
        return String(format: "a step of 1 token %.0f ms, of 4 %.0f ms: prompt-lookup guesses %@", costs.oneToken * 1000,
                      costs.fourTokens * 1000, costs.draftTokens > 0 ? "on" : "off")
    }
}
