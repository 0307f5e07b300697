import Foundation

/// Where sound starts and stops in a window, from 10 ms energies: the threshold sits 10 dB above the window's
/// noise floor (its 10th-percentile frame), but never more than 35 dB below its speech level (95th percentile),
/// so quiet recordings and noisy ones are both read.
struct AudioOnsets {
    static let frameSeconds = 0.01
    private let loud: [Bool]

    init(_ samples: ArraySlice<Float>) {
        let frame = Int(Self.frameSeconds * Double(WhisperFeatures.sampleRate))
        let count = samples.count / frame
        let decibels = (0..<count).map { i -> Float in
            let a = samples.startIndex + i * frame
            let power = samples[a..<(a + frame)].reduce(0) { $0 + $1 * $1 } / Float(frame)
            return 10 * log10(max(power, 1e-12))
        }
        let sorted = decibels.sorted()
        guard !sorted.isEmpty else { loud = []; return }
        let floor = sorted[sorted.count / 10], level = sorted[min(sorted.count - 1, sorted.count * 95 / 100)]
        let threshold = max(level - 35, min(floor + 10, level - 6))
        loud = decibels.map { $0 >= threshold }
    }

    /// Seconds of sound from `seconds` on.
    func loudSeconds(after seconds: Double) -> Double {
        let first = max(0, Int((seconds / Self.frameSeconds).rounded()))
        return first < loud.count ? Double(loud[first...].filter { $0 }.count) * Self.frameSeconds : 0
    }

    /// The shortest pause taken for one between words (a stop consonant's closure inside a word is shorter).
    static let minimumPause = 0.1
    /// Sound (10 ms frames) a span keeps on its side of a gap.
    static let minimumSoundFrames = 5
    /// Sound allowed between the alignment's boundary and the pause taken for it.
    static let alignmentSlack = 0.2

    /// Puts word boundaries at the pauses in the sound. Cross-attention alignment finds where one word hands
    /// over to the next, but places the boundary anywhere in the pause between them (usually at its start, so
    /// the next word starts early). At each boundary, the longest quiet stretch around it (between the two
    /// words' midpoints, extended while it stays quiet) becomes the gap: the word before ends where it begins,
    /// the word after starts where it ends. Before the first word and after the last, leading and trailing
    /// quiet is cut off the same way. Where words run together, the alignment's boundary stays.
    func refine(_ words: [TranscriptWord]) -> [TranscriptWord] {
        let spans = refine(words.map { ($0.start, $0.end) })
        return zip(words, spans).map { TranscriptWord(word: $0.word, start: $1.start, end: $1.end, probability: $0.probability) }
    }

    /// `spans` (start, end) in order, their boundaries moved onto the pauses as `refine(_:)` describes.
    func refine(_ spans: [(start: Double, end: Double)]) -> [(start: Double, end: Double)] {
        guard !loud.isEmpty, !spans.isEmpty else { return spans }
        // each boundary's pause is chosen from the alignment's spans, then a pause two boundaries both chose
        // goes to the one nearer to it (less sound in between), and the other keeps the alignment's boundary
        let chosen = (0...spans.count).map { pause(at: $0, in: spans) }
        var out = spans
        for i in 0...spans.count {
            guard let (gap, distance) = chosen[i] else { continue }
            let neighbours = [i > 0 ? chosen[i - 1] : nil, i < spans.count ? chosen[i + 1] : nil].compactMap { $0 }
            if neighbours.contains(where: { $0.gap.overlaps(gap) && $0.distance < distance }) { continue }
            if i > 0 { out[i - 1].end = Double(gap.lowerBound) * Self.frameSeconds }
            if i < spans.count { out[i].start = Double(gap.upperBound) * Self.frameSeconds }
        }
        for i in out.indices {
            if i > 0 { out[i].start = max(out[i].start, out[i - 1].end) }
            out[i].end = max(out[i].end, out[i].start + Self.frameSeconds)
        }
        return out
    }

    private func frame(_ seconds: Double) -> Int { min(loud.count, max(0, Int((seconds / Self.frameSeconds).rounded()))) }
    private func sound(_ range: Range<Int>) -> Int { range.isEmpty ? 0 : loud[range].filter { $0 }.count }

    /// The pause (frames) taken for boundary `i` of `spans` (before span i; `spans.count`: after the last) and the
    /// sound between it and the alignment's boundary, or nil where none fits.
    private func pause(at i: Int, in spans: [(start: Double, end: Double)]) -> (gap: Range<Int>, distance: Int)? {
        let (first, last) = (i == 0, i == spans.count)
        func middle(_ span: (start: Double, end: Double)) -> Int { frame((span.start + span.end) / 2) }
        let minimumWord = 2  // frames a span keeps
        let slack = Int(Self.alignmentSlack / Self.frameSeconds), shortest = Int(Self.minimumPause / Self.frameSeconds)
        let lower = first ? 0 : middle(spans[i - 1]), upper = last ? loud.count : middle(spans[i])
        let floorLimit = first ? 0 : min(lower, frame(spans[i - 1].start) + minimumWord)
        let ceilingLimit = last ? loud.count : max(upper, frame(spans[i].end) - minimumWord)
        guard lower < upper else { return nil }
        let boundary = last ? frame(spans[i - 1].end) : frame(spans[i].start)
        func distance(_ gap: Range<Int>) -> Int {
            gap.lowerBound > boundary ? sound(boundary..<gap.lowerBound) : (gap.upperBound < boundary ? sound(gap.upperBound..<boundary) : 0)
        }
        // A gap between two spans leaves sound of each on its side (a pause inside a word's interval but after
        // all of its sound is the pause after that word, not before it), and lies near the boundary the
        // alignment found. After it, at most `slack` of sound between them (that sound was the next word's:
        // more, and the pause is the one after the next word). Before it, more is allowed: the alignment often
        // starts a word after a pause late, and a pause in the second half of the previous word's interval
        // cannot be the one before that word.
        func separates(_ gap: Range<Int>) -> Bool {
            let near = gap.lowerBound > boundary ? distance(gap) <= slack : distance(gap) <= 3 * slack
            return near && (first || sound(frame(spans[i - 1].start)..<gap.lowerBound) >= Self.minimumSoundFrames)
                && (last || sound(gap.upperBound..<min(loud.count, frame(spans[i].end))) >= Self.minimumSoundFrames)
        }
        var best: Range<Int>?
        var f = lower
        while f < upper {
            guard !loud[f] else { f += 1; continue }
            var a = f, b = f
            while b < upper && !loud[b] { b += 1 }
            f = b
            while a > floorLimit && !loud[a - 1] { a -= 1 }
            while b < ceilingLimit && !loud[b] { b += 1 }
            if first || last {
                // no neighbour to weigh against: the first span starts after the last quiet stretch before its
                // middle, the last one ends at the first quiet stretch after its middle
                guard b - a >= shortest || (first && a == 0) || (last && b == loud.count),
                      first || sound(frame(spans[i - 1].start)..<a) >= Self.minimumSoundFrames else { continue }
                best = a..<b
                if last { break }
            } else if b - a > (best?.count ?? 0) && separates(a..<b) {
                best = a..<b
            }
        }
        guard let gap = best, gap.count >= (first || last ? 1 : shortest) else { return nil }
        return (gap, distance(gap))
    }
}
