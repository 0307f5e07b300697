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

    /// The shortest pause taken for one between words (a stop consonant's closure inside a word is shorter).
    static let minimumPause = 0.1

    /// Puts word boundaries at the pauses in the sound. Cross-attention alignment finds where one word hands
    /// over to the next, but places the boundary anywhere in the pause between them (usually at its start, so
    /// the next word starts early). At each boundary, the longest quiet stretch around it (between the two
    /// words' midpoints, extended while it stays quiet) becomes the gap: the word before ends where it begins,
    /// the word after starts where it ends. Before the first word and after the last, leading and trailing
    /// quiet is cut off the same way. Where words run together, the alignment's boundary stays.
    func refine(_ words: [TranscriptWord]) -> [TranscriptWord] {
        guard !loud.isEmpty, !words.isEmpty else { return words }
        var out = words
        func frame(_ seconds: Double) -> Int { min(loud.count, max(0, Int((seconds / Self.frameSeconds).rounded()))) }
        func middle(_ word: TranscriptWord) -> Int { frame((word.start + word.end) / 2) }
        let minimumWord = 2  // frames a word keeps
        for i in 0...out.count {
            let (first, last) = (i == 0, i == out.count)
            let lower = first ? 0 : middle(out[i - 1]), upper = last ? loud.count : middle(out[i])
            let floorLimit = first ? 0 : min(lower, frame(out[i - 1].start) + minimumWord)
            let ceilingLimit = last ? loud.count : max(upper, frame(out[i].end) - minimumWord)
            guard lower < upper else { continue }
            var best: Range<Int>?
            var f = lower
            while f < upper {
                guard !loud[f] else { f += 1; continue }
                var a = f, b = f
                while b < upper && !loud[b] { b += 1 }
                f = b
                while a > floorLimit && !loud[a - 1] { a -= 1 }
                while b < ceilingLimit && !loud[b] { b += 1 }
                if b - a > (best?.count ?? 0) { best = a..<b }
            }
            guard let gap = best else { continue }
            let needed = first || last ? 1 : Int(Self.minimumPause / Self.frameSeconds)
            guard gap.count >= needed else { continue }
            if !first { out[i - 1].end = Double(gap.lowerBound) * Self.frameSeconds }
            if !last { out[i].start = Double(gap.upperBound) * Self.frameSeconds }
        }
        for i in out.indices {
            if i > 0 { out[i].start = max(out[i].start, out[i - 1].end) }
            out[i].end = max(out[i].end, out[i].start + Self.frameSeconds)
        }
        return out
    }
}
