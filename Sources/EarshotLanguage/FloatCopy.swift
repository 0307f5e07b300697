internal import CLlama
import EarshotCore
import Foundation

/// A 4-bit language model against its float copy. llama.cpp picks its quantised kernels by the CPU's extensions (AVX2,
/// AVX-512, VNNI; AMX's faulted and are left out), so whether they compute right can only be seen on the CPU that
/// runs them. Setup writes each model dequantised by gguf-py's numpy code, not by those kernels, into
/// `EARSHOT_HOME/reference/llm`; both files read the same text in one pass, and at every position the shipped model's
/// likeliest next token should be the copy's, its next-token distribution close to the copy's.
/// `earshot doctor --accuracy` and `LanguageFloatReferenceTests` run it.
public enum FloatCopy {
    public struct Agreement: Sendable, Codable, Equatable {
        /// Positions compared (the text's tokens).
        public let positions: Int
        /// The share of positions where both models' likeliest next token is the same.
        public let sameNextToken: Double
        /// The mean Kullback-Leibler divergence of the shipped model's next-token distribution from the copy's, in nats.
        public let divergence: Double
    }

    /// The least agreement and the most divergence a model may show. What 4-bit weights alone cost, measured on an AMD
    /// EPYC (Zen 4, AVX-512; BENCHMARKS.md, "Same answers on every CPU") over `sampleText`: default 0.962 and 0.021
    /// nats, small 0.947 and 0.003. The bounds leave room for other CPUs' rounding; a faulty kernel used in every layer
    /// parts from the copy at most positions (the small model's copy altered so: 0.121 and 5.2 nats).
    public static func bounds(of choice: LanguageModelChoice) -> (sameNextToken: Double, divergence: Double) {
        switch choice {
        case .standard: return (0.92, 0.10)
        case .small: return (0.90, 0.03)
        }
    }

    public static func passes(_ agreement: Agreement, for choice: LanguageModelChoice) -> Bool {
        let bound = bounds(of: choice)
        return agreement.sameNextToken >= bound.sameNextToken && agreement.divergence <= bound.divergence
    }

    /// Where setup keeps `choice`'s float copy.
    public static func file(of choice: LanguageModelChoice) -> String {
        "reference/llm/" + URL(fileURLWithPath: choice.file).deletingPathExtension().lastPathComponent + ".f16.gguf"
    }

    /// Both files of `choice` read `text` (about 370 tokens of voice-note transcripts by default), on `threads`. The
    /// copy's reading is kept per machine (`FloatCopyReading`); the shipped model is always run.
    public static func compare(_ choice: LanguageModelChoice, store: ModelStore = ModelStore(), text: String = sampleText,
                               threads: Int = 2) throws -> Agreement {
        let shipped = try store.file(choice.file, of: "\(choice.displayName) (language model)")
        let copy = try store.file(file(of: choice), of: "\(choice.displayName) float copy")
        let threads = LlamaRuntime.threads(threads)
        let reading = try FloatCopyReading.kept(copy, text: text, threads: threads, home: store.home)
        var same = 0, divergence = 0.0, position = 0
        let tokens = try reading.withLogits { copyRow in
            try eachPosition(shipped, text: text, threads: threads) { logits in
                guard position < reading.tokens.count, logits.count == reading.vocabulary else {
                    throw LanguageError.failed("\(choice.displayName) and its float copy read the text as different tokens")
                }
                let p = copyRow(position)
                let (best, logSum) = likeliestAndLogSum(logits), (copyBest, copyLogSum) = likeliestAndLogSum(p)
                if best == copyBest { same += 1 }
                // KL(copy ‖ shipped): Σ p (log p − log q) over the whole vocabulary
                var sum = 0.0
                for i in 0..<p.count {
                    let lp = Double(p[i]) - copyLogSum
                    sum += exp(lp) * (lp - (Double(logits[i]) - logSum))
                }
                divergence += sum
                position += 1
            }
        }
        guard tokens == reading.tokens, !tokens.isEmpty else {
            throw LanguageError.failed("\(choice.displayName) and its float copy read the text as different tokens")
        }
        return Agreement(positions: tokens.count, sameNextToken: Double(same) / Double(tokens.count), divergence: divergence / Double(tokens.count))
    }

    /// Runs the model at `path` over `text` in batches of 64 and hands `body` every position's next-token logits in
    /// order; returns the text's tokens.
    static func eachPosition(_ path: String, text: String, threads: Int, _ body: (UnsafeBufferPointer<Float>) throws -> Void) throws -> [Int32] {
        let (model, context) = try LlamaRuntime.load(path, contextTokens: 2048, threads: threads, embeddings: false)
        defer { llama_free(context); llama_model_free(model) }
        guard let vocab = llama_model_get_vocab(model) else { throw LanguageError.failedToLoad(path: path) }
        let tokens = LlamaRuntime.tokenize(text, vocab: vocab, special: true)
        let vocabulary = Int(llama_vocab_n_tokens(vocab))
        let batch = DecodeBatch(capacity: 64)
        for start in stride(from: 0, to: tokens.count, by: 64) {
            let chunk = tokens[start..<min(tokens.count, start + 64)]
            batch.add(chunk, from: start)
            guard batch.decode(in: context) == 0 else { throw LanguageError.failed("llama.cpp could not read the text with \(path)") }
            for row in 0..<chunk.count {
                try body(UnsafeBufferPointer(start: llama_get_logits_ith(context, Int32(row)), count: vocabulary))
            }
        }
        return tokens.map { Int32($0) }
    }

    /// The likeliest token of a row of logits and the log of the sum of their exponentials (a token's log-probability
    /// is its logit less that).
    static func likeliestAndLogSum(_ logits: UnsafeBufferPointer<Float>) -> (Int, Double) {
        var best = 0
        for i in 1..<logits.count where logits[i] > logits[best] { best = i }
        let top = Double(logits[best])
        return (best, top + log(logits.reduce(0.0) { $0 + exp(Double($1) - top) }))
    }

    /// Transcripts of the kinds of notes people record (meetings, reminders, calls, ideas): what the models read.
    public static let sampleText = """
    Notes from Tuesday's planning meeting. The launch of the new booking page moves from the third to the seventeenth \
    of March, because the payment provider still has not signed off on the refund flow. Priya will chase them today \
    and report back on Thursday. Marco asked whether we can keep the old page running for a week after the launch; \
    everyone agreed, as long as support knows which customers are on which page. Budget for the spring fair stays at \
    four thousand euros, but the booth has to be booked by the end of the month.

    Reminder for the weekend. Pick up the bicycle from the repair shop on Saturday morning before eleven, buy a birthday \
    present for Lena, something for the garden maybe, and call the plumber about the dripping tap in the kitchen.

    Call with Sam from the insurance company. The claim for the water damage was accepted, but they want two more \
    photographs of the ceiling and the receipt for the dehumidifier. I have to send both by email before Friday, and \
    Sam will then transfer the money within ten working days.

    An idea for the newsletter: instead of a long article every month, send three short stories from customers, each \
    with one photograph and a quote. It would be quicker to write and people seem to read the short ones to the end.

    Standup, Wednesday. The mobile app build is green again after Tom fixed the signing certificate. Anna is still \
    waiting for the new icons from the designer and will ask again this afternoon. We decided to drop the dark mode \
    toggle from the first release and to look at it again in June. Next standup moves to half past nine.

    Don't forget: the car needs its inspection before the twentieth, the library books are due on Monday, and the \
    neighbours are away next week, so someone has to feed their cat on Tuesday and Thursday evening.
    """
}
