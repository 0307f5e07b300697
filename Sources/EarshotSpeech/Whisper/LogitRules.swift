import Foundation

/// What Whisper may write next, given what it wrote so far in this window (openai-whisper's logit filters):
/// no non-speech symbols, no blank or end first, timestamps in pairs that never go back, a timestamp first (at
/// most 1 s in), and a timestamp whenever timestamps together are likelier than any single text token.
struct LogitRules {
    let spec: WhisperSpec
    /// The last timestamp token allowed: the window's length (Whisper cannot say when speech ends past it).
    let lastTimestamp: Int
    /// Without timestamps (live pieces): text only, every timestamp token suppressed.
    let timestamps: Bool
    private let suppressed: [Int]
    static let maxInitialTimestamp = 1.0

    init(spec: WhisperSpec, windowSeconds: Double, timestamps: Bool) {
        self.spec = spec
        self.timestamps = timestamps
        suppressed = spec.suppressedEverywhere + [spec.no_timestamps]
        lastTimestamp = timestamps
            ? min(spec.n_vocab - 1, spec.timestamp_begin + Int((min(windowSeconds, 30) / WhisperSpec.timestampStep).rounded()))
            : spec.timestamp_begin - 1
    }

    /// Applies the rules to `logits` (one row of the vocabulary) for a hypothesis that wrote `generated`; returns
    /// the row's log-probabilities after them (the search needs both, and the softmax is the costly part).
    func apply(_ logits: inout [Float], generated: [Int]) -> [Float] {
        let ts = spec.timestamp_begin, eot = spec.eot
        let none = -Float.infinity
        if generated.isEmpty { for t in spec.suppress_tokens_at_start where t < logits.count { logits[t] = none } }
        for t in suppressed where t < logits.count { logits[t] = none }
        if lastTimestamp + 1 < logits.count { for t in (lastTimestamp + 1)..<logits.count { logits[t] = none } }
        guard timestamps else { return Self.logSoftmax(logits) }
        let lastWasTimestamp = (generated.last ?? 0) >= ts
        let penultimateWasTimestamp = generated.count < 2 || generated[generated.count - 2] >= ts
        if lastWasTimestamp {
            if penultimateWasTimestamp {
                for t in ts..<logits.count { logits[t] = none }  // a pair just closed: text (or the end) comes next
            } else {
                for t in 0..<eot { logits[t] = none }  // a segment's text ended: its closing timestamp, or the end
            }
        }
        if let last = generated.last(where: { $0 >= ts }) {
            // never back in time; a new segment cannot start where the last one ended
            let from = lastWasTimestamp && !penultimateWasTimestamp ? last : last + 1
            for t in ts..<min(from, logits.count) { logits[t] = none }
        }
        if generated.isEmpty {
            for t in 0..<ts { logits[t] = none }
            let latest = ts + Int(Self.maxInitialTimestamp / WhisperSpec.timestampStep)
            if latest + 1 < logits.count { for t in (latest + 1)..<logits.count { logits[t] = none } }
        }
        // when the timestamps together outweigh every text token, write a timestamp
        let logprobs = Self.logSoftmax(logits)
        var best = -Float.infinity
        for t in 0..<ts { best = max(best, logprobs[t]) }
        guard Self.logSumExp(logprobs[ts...]) > best else { return logprobs }
        for t in 0..<ts { logits[t] = none }
        return Self.logSoftmax(logits)
    }

    static func logSoftmax(_ logits: [Float]) -> [Float] {
        let total = logSumExp(logits[...])
        return logits.map { $0 - total }
    }

    static func logSumExp(_ values: ArraySlice<Float>) -> Float {
        let peak = values.max() ?? -.infinity
        guard peak.isFinite else { return peak }
        var sum: Float = 0
        for v in values { sum += exp(v - peak) }
        return peak + log(sum)
    }
}
