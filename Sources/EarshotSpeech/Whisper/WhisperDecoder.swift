import EarshotCore
import Foundation

/// Earshot's Whisper decoding loop over the converted encoder and decoder (ONNX Runtime): one window of up to
/// 30 s in, timed segments out. Greedy or beam search (greedy with a second look by beam search where it is
/// unsure), timestamp tokens, a prompt, temperature fallback when the text loops or is improbable, language
/// detection, and (on request) every word's time from the cross-attention; what is read again where Whisper ends a
/// window early is in `WindowRereading.swift`. Immutable once loaded;
/// `SpeechRecognizer` serialises calls.
final class WhisperDecoder: @unchecked Sendable {
    // @unchecked: the sessions are ONNX Runtime sessions (safe to share), the rest is immutable.
    let spec: WhisperSpec
    let tokenizer: WhisperTokenizer
    private let encoder: InferenceSession
    private let decoder: InferenceSession
    private let features: WhisperFeatures
    /// The quantised models' vocabulary projection (their decoders end at the hidden state); nil: the decoder
    /// computes the logits itself (the float references).
    private let projection: LogitsProjection?
    /// The decoder output that scores the next token: `logits` [N, n, vocab], or `hidden` [N, n, width] that
    /// `projection` turns into logits.
    private let scoresOutput: String
    /// The decoder's self-attention caches as it reads them, a key and a value tensor per layer, each with its shape
    /// before the first position (keys [1, H, dh, 0], values [1, H, 0, dh]); and as it writes them.
    private let cacheInputs: [(name: String, empty: [Int])], cacheOutputs: [String]
    /// Silence appended to a window before the encoder. With timestamps, the window is always Whisper's full
    /// 30 s: on shorter inputs the timestamps it predicts are wrong and it loops (a 2.6 s sentence given 7.5 s
    /// ended at "1.00" and then repeated), and the text is worse too. Live pieces, decoded without timestamps
    /// for speed, get 5 s (measured as accurate as 10 s and 15–20% faster; docs/speech.md).
    static func paddingSamples(timestamps: Bool) -> Int {
        (timestamps ? WhisperFeatures.maxFrames * WhisperFeatures.hop : 5 * WhisperFeatures.sampleRate)
    }

    init(files: WhisperModel.Files, threads: Int) throws {
        spec = try WhisperSpec.load(files.description)
        tokenizer = try WhisperTokenizer(vocabulary: files.vocabulary)
        // inputs of at most 30 s: the encoder's arena stays the size of one window's work
        encoder = try InferenceSession(path: files.encoder, threads: threads, keepingItsMemory: true)
        // a step's inputs are bounded too (at most n_text_ctx positions of at most five beams): its arena saves a
        // greedy file 3% of its time (fresh pages for every step's caches otherwise) for 7-23 MB (BENCHMARKS.md)
        decoder = try InferenceSession(path: files.decoder, threads: threads, keepingItsMemory: true)
        features = WhisperFeatures(melBands: spec.n_mels)
        if spec.projection != nil {
            guard let path = files.projection else {
                throw ModelError.missing(model: "whisper", path: (files.description as NSString).deletingLastPathComponent + "/model-projection.bin")
            }
            projection = try LogitsProjection(path: path, vocabulary: spec.n_vocab, width: spec.n_text_state, threads: threads)
        } else {
            projection = nil
        }
        scoresOutput = projection == nil ? "logits" : "hidden"
        let (heads, width) = (spec.n_text_head, spec.n_text_state / spec.n_text_head)
        cacheInputs = (0..<spec.n_text_layer).flatMap { [("in_self_k_\($0)", [1, heads, width, 0]), ("in_self_v_\($0)", [1, heads, 0, width])] }
        cacheOutputs = (0..<spec.n_text_layer).flatMap { ["out_self_k_\($0)", "out_self_v_\($0)"] }
        guard Set(cacheInputs.map(\.name)).isSubset(of: decoder.inputNames) else {  // a decoder converted before the caches were per layer
            throw ModelError.failedToLoad(model: "whisper", detail: "\(files.decoder) was converted by an older setup")
        }
    }

    /// One window's result: segments timed from the window's start.
    struct Window {
        var segments: [TranscriptSegment]
        var language: String
        var languageProbability: Double?
        /// Where Whisper's own timestamp token closed the last segment, before its words were placed on the sound
        /// (0: its text ran to the window's end).
        var readUntil: Double = 0

        /// Drops the first segment of this reading of a window's rest, read from `offset` s into the window, where it
        /// only says again the closing words of the segment before, `last`, and lies within what Whisper had read.
        mutating func dropRepeat(of last: TranscriptSegment, readUntil: Double, offset: Double) {
            guard let first = segments.first, readUntil > 0, first.end + offset <= readUntil + WhisperDecoder.repeatSlack else { return }
            let again = WordErrorRate.normalize(first.text), before = WordErrorRate.normalize(last.text)
            if !again.isEmpty, before.suffix(again.count).elementsEqual(again) { segments.removeFirst() }
        }
    }

    /// One reading of `samples` with `padding` samples of silence after them (the rest is not read again).
    func read(_ samples: ArraySlice<Float>, as decoding: SpeechRecognizer.Decoding, padding: Int) throws -> Window {
        let seconds = Double(samples.count) / Double(WhisperFeatures.sampleRate)
        let (mel, frames) = features.compute(samples, paddingSamples: padding)
        guard frames > 0, !samples.isEmpty else { return Window(segments: [], language: decoding.language) }
        let names = encoder.outputNames  // cross_k_i and cross_v_i for every decoder layer
        let cross = try encoder.run(values: ["mel": try TensorValue(shape: [1, spec.n_mels, frames], floats: mel)], outputs: names)
        let context = Context(cross: Dictionary(uniqueKeysWithValues: zip(names, cross)),
                              rules: LogitRules(spec: spec, windowSeconds: seconds, timestamps: decoding.timestamps),
                              maxTokens: Self.maxTokens(seconds: seconds, spec: spec))
        // an English-only model writes English whatever it was asked ("auto" included)
        var language = spec.multilingual ? decoding.language : "en", languageProbability: Double?
        if spec.multilingual && decoding.language == "auto" {
            (language, languageProbability) = try detectLanguage(context)
        }
        let start = spec.startSequence(language: language, task: decoding.task)
            + (decoding.timestamps ? [] : [spec.no_timestamps])
        let promptText = [decoding.prompt, decoding.hotwords].compactMap { $0?.trimmingCharacters(in: .whitespacesAndNewlines) }
            .filter { !$0.isEmpty }.joined(separator: " ")
        var prefix = start
        if !promptText.isEmpty {
            // the prompt goes before the start, after <|startofprev|>, at most half the context long
            let prompt = tokenizer.encode(" " + promptText).suffix(spec.n_text_ctx / 2 - 1)
            prefix = [spec.sot_prev] + prompt + start
        }
        let attempt = try decodeWithFallback(prefix: prefix, context: context, decoding: decoding)
        if attempt.noSpeechProbability > decoding.noSpeechThreshold && attempt.averageLogProbability < decoding.logProbThreshold {
            return Window(segments: [], language: language, languageProbability: languageProbability)  // silence
        }
        var segments = segments(of: attempt, windowSeconds: seconds)
        let readUntil = segments.last.map { $0.end < seconds ? $0.end : 0 } ?? 0
        // Word times also time the segments: Whisper's timestamp tokens give a segment the pause before it
        // (its start is the previous segment's end), while the words are placed on the sound. So windows with
        // timestamps are always aligned, and the words dropped afterwards when they were not asked for (after the
        // window's rest is read again, which reads them).
        if (decoding.words || decoding.timestamps) && !segments.isEmpty {
            let aligner = WordAligner(spec: spec, tokenizer: tokenizer, language: language)
            try aligner.addWords(to: &segments, audio: samples, onsets: AudioOnsets(samples), startSequence: start) { tokens in
                try self.alignmentPass(tokens, context: context, logits: decoding.words)
            }
            for i in segments.indices {
                if let first = segments[i].words?.first, let last = segments[i].words?.last {
                    (segments[i].start, segments[i].end) = (first.start, max(last.end, first.start))
                }
            }
        }
        return Window(segments: segments, language: language, languageProbability: languageProbability, readUntil: readUntil)
    }

    // MARK: - decoding

    fileprivate struct Context {
        /// The encoder's cross-attention keys and values, by the decoder input that reads each.
        let cross: [String: TensorValue]
        let rules: LogitRules
        /// The most tokens one hypothesis may generate.
        let maxTokens: Int
    }

    /// The most tokens a reading of `seconds` of audio may generate: half of Whisper's context, as openai-whisper
    /// allows, and for a short input 32 a second and 16 more (English with its timestamps is seldom 8 a second; the
    /// margin is for scripts that take several tokens a character). Whisper can loop on a short input, and every
    /// fallback temperature with it: a live piece of 0.5 s, "Quote,", came back as "quote" 220 times, and its five
    /// temperatures of five samples each took 49 s.
    static func maxTokens(seconds: Double, spec: WhisperSpec) -> Int {
        min(spec.n_text_ctx / 2, 16 + Int(32 * seconds))
    }

    /// A finished decoding at one temperature.
    struct Attempt {
        var tokens: [Int]  // generated, without the final end token
        var averageLogProbability: Double
        var noSpeechProbability: Double
        var compressionRatio: Double
        var temperature: Double
        /// The lowest log-probability of a text token chosen (0 without any; beam search's: unused).
        var lowestTokenLogProbability: Double = 0
    }

    private func decodeWithFallback(prefix: [Int], context: Context, decoding: SpeechRecognizer.Decoding) throws -> Attempt {
        var attempts: [Attempt] = []
        for temperature in decoding.temperatures.isEmpty ? [0] : decoding.temperatures {
            var attempt = temperature == 0 && decoding.beamSize > 1
                ? try beamSearch(prefix: prefix, context: context, size: decoding.beamSize)
                : try sample(prefix: prefix, context: context, rows: temperature == 0 ? 1 : max(1, decoding.bestOf),
                             temperature: temperature)
            // greedy decoding's second look where it is unsure; not where Whisper hears no speech: noise read by
            // beam search could come back likely enough to pass for speech below
            if temperature == 0 && attempt.noSpeechProbability <= decoding.noSpeechThreshold
                && decoding.readsAgain(averageLogProbability: attempt.averageLogProbability,
                                       lowestTokenLogProbability: attempt.lowestTokenLogProbability) {
                attempt = try beamSearch(prefix: prefix, context: context, size: decoding.unsureBeamSize)
            }
            attempts.append(attempt)
            let tooRepetitive = attempt.compressionRatio > decoding.compressionRatioThreshold
            let tooUnlikely = attempt.averageLogProbability < decoding.logProbThreshold
            let silence = attempt.noSpeechProbability > decoding.noSpeechThreshold
            if !tooRepetitive && (!tooUnlikely || silence) { return attempt }
        }
        // every temperature failed: the likeliest text that does not loop, else the last try
        return attempts.filter { $0.compressionRatio <= decoding.compressionRatioThreshold }
            .max { $0.averageLogProbability < $1.averageLogProbability } ?? attempts.last!
    }

    /// Runs the decoder: `tokens` per hypothesis, continuing cache rows `beams` of `caches` (a step's outputs after
    /// the first; nil: from scratch). The first output scores the next token (see `logits(_:rows:position:)`), then
    /// the caches, or `outputs`.
    private func step(_ tokens: [[Int]], beams: [Int], caches: ArraySlice<TensorValue>?, context: Context,
                      outputs: [String]? = nil) throws -> [TensorValue] {
        let n = tokens[0].count
        var inputs: [String: TensorValue] = [
            "tokens": try TensorValue(shape: [tokens.count, n], int64s: tokens.flatMap { $0.map(Int64.init) }),
            "beams": try TensorValue(shape: [beams.count], int64s: beams.map(Int64.init)),
        ]
        for (i, cache) in cacheInputs.enumerated() {
            inputs[cache.name] = try caches.map { $0[$0.startIndex + i] } ?? TensorValue(shape: cache.empty, floats: [])
        }
        return try decoder.run(values: inputs.merging(context.cross) { a, _ in a },
                               outputs: outputs ?? [scoresOutput] + cacheOutputs)
    }

    /// The logits at position `position` of hypotheses `rows` of a step's first output ([N, n, vocab] logits, or
    /// [N, n, width] hidden states projected here, all rows at once so the projection is read once).
    private func logits(_ value: TensorValue, rows: [Int], position: Int, exact: [Int] = []) -> [[Float]] {
        let (n, last) = (value.shape[1], value.shape[2])
        guard let projection else {
            return value.withFloats { all in rows.map { Array(all[((($0 * n + position) * last))..<(($0 * n + position + 1) * last)]) } }
        }
        let states = value.withFloats { all in rows.flatMap { all[(($0 * n + position) * last)..<(($0 * n + position + 1) * last)] } }
        let flat = states.withUnsafeBufferPointer { projection.logits($0, count: rows.count, exact: exact) }
        return rows.indices.map { Array(flat[($0 * projection.vocabulary)..<(($0 + 1) * projection.vocabulary)]) }
    }

    private func logits(_ value: TensorValue, row: Int, position: Int) -> [Float] {
        logits(value, rows: [row], position: position)[0]
    }

    private func noSpeechProbability(_ first: TensorValue, prefix: [Int]) -> Double {
        guard let at = prefix.firstIndex(of: spec.sot) else { return 0 }
        let logprobs = LogitRules.logSoftmax(logits(first, row: 0, position: at))
        return Double(exp(logprobs[spec.no_speech]))
    }

    /// `rows` independent hypotheses (greedy when `temperature` is 0 and `rows` 1), the best by average
    /// log-probability. Sampling is seeded, so the same audio gives the same text.
    private func sample(prefix: [Int], context: Context, rows: Int, temperature: Double) throws -> Attempt {
        var generator = SplitMix64(seed: 0x5EED + UInt64(temperature * 1000))  // the same audio, the same text
        var out = try step([prefix], beams: [0], caches: nil, context: context)
        let noSpeech = noSpeechProbability(out[0], prefix: prefix)
        var generated = [[Int]](repeating: [], count: rows)
        var sums = [Double](repeating: 0, count: rows)
        var lowest = [Double](repeating: 0, count: rows)  // of text tokens: timestamps are often chosen at a few percent
        var done = [Bool](repeating: false, count: rows)
        var beams = [Int](repeating: 0, count: rows)  // the first step has one row: every hypothesis forks from it
        var position = prefix.count - 1
        while true {
            var next: [Int] = []
            let live = (0..<rows).filter { !done[$0] }
            let scores = Dictionary(uniqueKeysWithValues: zip(live, logits(out[0], rows: live.map { beams[$0] }, position: position)))
            for r in 0..<rows {
                if done[r] { next.append(spec.eot); continue }
                var row = scores[r]!
                let logprobs = context.rules.apply(&row, generated: generated[r])
                let token = temperature == 0 ? argmax(row) : draw(row, temperature: temperature, using: &generator)
                sums[r] += Double(logprobs[token])
                if token < spec.eot { lowest[r] = min(lowest[r], Double(logprobs[token])) }
                if token == spec.eot || generated[r].count + 1 >= context.maxTokens || prefix.count + generated[r].count + 1 >= spec.n_text_ctx {
                    done[r] = true
                    if token != spec.eot { generated[r].append(token) }
                } else {
                    generated[r].append(token)
                }
                next.append(token)
            }
            if done.allSatisfy({ $0 }) { break }
            out = try step(next.map { [$0] }, beams: beams, caches: out.dropFirst(), context: context)
            beams = Array(0..<rows)
            position = 0
        }
        let best = (0..<rows).max { sums[$0] / Double(generated[$0].count + 1) < sums[$1] / Double(generated[$1].count + 1) }!
        var chosen = attempt(generated[best], sum: sums[best], noSpeech: noSpeech, temperature: temperature)
        chosen.lowestTokenLogProbability = lowest[best]
        return chosen
    }

    /// Beam search (openai-whisper's, patience 1): `size` live hypotheses; each step keeps the likeliest
    /// continuations; ends when `size` hypotheses have finished; the best by average log-probability wins.
    private func beamSearch(prefix: [Int], context: Context, size: Int) throws -> Attempt {
        struct Hypothesis { var tokens: [Int]; var sum: Double; var row: Int }
        var out = try step([prefix], beams: [0], caches: nil, context: context)
        let noSpeech = noSpeechProbability(out[0], prefix: prefix)
        var live = [Hypothesis(tokens: [], sum: 0, row: 0)]
        var finished: [Hypothesis] = []
        var position = prefix.count - 1
        while finished.count < size {
            var candidates: [Hypothesis] = []
            for (hypothesis, scores) in zip(live, logits(out[0], rows: live.map(\.row), position: position)) {
                var row = scores
                let logprobs = context.rules.apply(&row, generated: hypothesis.tokens)
                for token in topIndices(logprobs, count: size + 1) where logprobs[token].isFinite {
                    candidates.append(Hypothesis(tokens: hypothesis.tokens + [token], sum: hypothesis.sum + Double(logprobs[token]),
                                                 row: hypothesis.row))
                }
            }
            candidates.sort { $0.sum > $1.sum }
            var next: [Hypothesis] = []
            for candidate in candidates {
                if candidate.tokens.last == spec.eot {
                    finished.append(Hypothesis(tokens: candidate.tokens.dropLast(), sum: candidate.sum, row: 0))
                } else {
                    next.append(candidate)
                    if next.count == size { break }
                }
            }
            let length = prefix.count + (next.first?.tokens.count ?? 0)
            if next.isEmpty || next[0].tokens.count >= context.maxTokens || length >= spec.n_text_ctx {
                finished += next
                break
            }
            out = try step(next.map { [$0.tokens.last!] }, beams: next.map(\.row), caches: out.dropFirst(), context: context)
            live = next.enumerated().map { Hypothesis(tokens: $1.tokens, sum: $1.sum, row: $0) }
            position = 0
        }
        let best = finished.max { $0.sum / Double($0.tokens.count + 1) < $1.sum / Double($1.tokens.count + 1) }
            ?? Hypothesis(tokens: [], sum: -.infinity, row: 0)
        return attempt(best.tokens, sum: best.sum, noSpeech: noSpeech, temperature: 0)
    }

    private func attempt(_ tokens: [Int], sum: Double, noSpeech: Double, temperature: Double) -> Attempt {
        let text = tokenizer.text(of: tokens, below: spec.eot)
        return Attempt(tokens: tokens, averageLogProbability: sum / Double(tokens.count + 1),
                       noSpeechProbability: noSpeech, compressionRatio: CompressionRatio.of(text), temperature: temperature)
    }

    /// The language the window is spoken in, and its probability among Whisper's languages.
    private func detectLanguage(_ context: Context) throws -> (String, Double) {
        let out = try step([[spec.sot]], beams: [0], caches: nil, context: context, outputs: [scoresOutput])
        let row = logits(out[0], rows: [0], position: 0, exact: spec.languages.map(\.token))[0]
        let scores = spec.languages.map { row[$0.token] }
        let probabilities = LogitRules.logSoftmax(scores).map { Double(exp($0)) }
        let best = probabilities.indices.max { probabilities[$0] < probabilities[$1] }!
        return (spec.languages[best].code, probabilities[best])
    }

    /// The tokens forced through the decoder at once: the alignment heads' cross-attention, and (`logits`) the tokens'
    /// logits, which only the words' probabilities read. Without words they are not computed: the vocabulary
    /// projection of a window's tokens and its copy were ~2% of a tiny.en file's time and most of its page faults,
    /// for numbers that were then dropped.
    private func alignmentPass(_ tokens: [Int], context: Context, logits wanted: Bool) throws -> (logits: TensorValue?, crossAttention: TensorValue) {
        guard wanted else {
            return (nil, try step([tokens], beams: [0], caches: nil, context: context, outputs: ["cross_qk"])[0])
        }
        let out = try step([tokens], beams: [0], caches: nil, context: context, outputs: [scoresOutput, "cross_qk"])
        guard let projection else { return (out[0], out[1]) }
        let logits = out[0].withFloats { projection.logits($0, count: tokens.count) }
        return (try TensorValue(shape: [1, tokens.count, projection.vocabulary], floats: logits), out[1])
    }

    // MARK: - segments

    /// The attempt's segments (timedSegments), each with the attempt's scores.
    private func segments(of attempt: Attempt, windowSeconds: Double) -> [TranscriptSegment] {
        Self.timedSegments(attempt.tokens, spec: spec, tokenizer: tokenizer, windowSeconds: windowSeconds).map {
            var segment = $0
            segment.averageLogProbability = attempt.averageLogProbability
            segment.noSpeechProbability = attempt.noSpeechProbability
            segment.compressionRatio = attempt.compressionRatio
            segment.temperature = attempt.temperature
            return segment
        }
    }

    /// Segments between timestamp pairs: `<|t0|> text <|t1|><|t1|> text <|t2|>`; text after the last timestamp
    /// runs to the window's end. A segment's tokens are its text tokens only: openai-whisper's rules let Whisper
    /// write a language token inside the text (reading noise, say), which stands for no text and is left out,
    /// as openai-whisper's decoding leaves it out of the text (the word aligner once read past its row on one).
    static func timedSegments(_ tokens: [Int], spec: WhisperSpec, tokenizer: WhisperTokenizer, windowSeconds: Double) -> [TranscriptSegment] {
        let ts = spec.timestamp_begin
        var segments: [TranscriptSegment] = []
        var start: Double?, text: [Int] = []
        func close(at end: Double) {
            let words = tokenizer.text(of: text, below: spec.eot).trimmingCharacters(in: .whitespacesAndNewlines)
            if !words.isEmpty {
                var segment = TranscriptSegment(start: min(start ?? 0, end), end: end, text: words)
                segment.tokens = text
                segments.append(segment)
            }
            start = nil
            text = []
        }
        for token in tokens {
            if token >= ts {
                let time = min(windowSeconds, Double(token - ts) * WhisperSpec.timestampStep)
                if start == nil || text.isEmpty { start = time } else { close(at: time) }
            } else if token < spec.eot {
                text.append(token)
            }
        }
        if !text.isEmpty { close(at: windowSeconds) }
        return segments
    }
}

private func argmax(_ values: [Float]) -> Int {
    var best = 0
    for i in values.indices where values[i] > values[best] { best = i }
    return best
}

/// The indices of the `count` largest values, largest first (the beam's candidates, the projection's tokens to rescore).
func topIndices<Values: RandomAccessCollection>(_ values: Values, count: Int) -> [Int] where Values.Element == Float, Values.Index == Int {
    var top: [Int] = []
    for i in values.indices where values[i] > -.infinity {
        if top.count < count || values[i] > values[top[top.count - 1]] {
            let at = top.firstIndex { values[$0] < values[i] } ?? top.count
            top.insert(i, at: at)
            if top.count > count { top.removeLast() }
        }
    }
    return top
}

private func draw(_ logits: [Float], temperature: Double, using generator: inout SplitMix64) -> Int {
    let scaled = logits.map { $0 / Float(temperature) }
    let probabilities = LogitRules.logSoftmax(scaled).map { Double(exp($0)) }
    var threshold = Double.random(in: 0..<1, using: &generator)
    for (i, p) in probabilities.enumerated() {
        threshold -= p
        if threshold < 0 { return i }
    }
    return argmax(logits)
}
