import Foundation

/// Where sound starts and stops in a window, from 10 ms energies: the threshold sits 10 dB above the window's
/// noise floor (its 10th-percentile frame), but never more than 35 dB below its speech level (95th percentile),
/// so quiet recordings and noisy ones are both read.
struct AudioOnsets {
    static let frameSeconds = 0.01
    private let loud: [Bool]
    /// soundBefore[f]: loud frames before frame f (so the sound in any stretch is one subtraction)
    private let soundBefore: [Int]
    /// The quiet stretches that can be pauses (`pauses(in:)`), found once: every word of the window asks about them
    private let gaps: [Range<Int>]

    init(_ samples: ArraySlice<Float>) {
        let frame = Int(Self.frameSeconds * Double(WhisperFeatures.sampleRate))
        let count = samples.count / frame
        let decibels = (0..<count).map { i -> Float in
            let a = samples.startIndex + i * frame
            let power = samples[a..<(a + frame)].reduce(0) { $0 + $1 * $1 } / Float(frame)
            return 10 * log10(max(power, 1e-12))
        }
        let sorted = decibels.sorted()
        guard !sorted.isEmpty else { loud = []; soundBefore = [0]; gaps = []; return }
        let floor = sorted[sorted.count / 10], level = sorted[min(sorted.count - 1, sorted.count * 95 / 100)]
        let threshold = max(level - 35, min(floor + 10, level - 6))
        loud = decibels.map { $0 >= threshold }
        var counts = [0]
        for l in loud { counts.append(counts[counts.count - 1] + (l ? 1 : 0)) }
        soundBefore = counts
        gaps = Self.pauses(in: loud)
    }

    /// Seconds of sound from `seconds` on.
    func loudSeconds(after seconds: Double) -> Double {
        let first = max(0, Int((seconds / Self.frameSeconds).rounded()))
        return first < loud.count ? Double(soundBefore[loud.count] - soundBefore[first]) * Self.frameSeconds : 0
    }

    /// Seconds of sound from `start` to `end`.
    func loudSeconds(from start: Double, to end: Double) -> Double {
        let (a, b) = (frame(start), frame(end))
        return a < b ? Double(soundBefore[b] - soundBefore[a]) * Self.frameSeconds : 0
    }

    /// The pause (seconds) that ends at `seconds`, where a word after it starts (as `refine` starts one); nil if none.
    func pause(endingAt seconds: Double) -> Range<Double>? {
        let f = frame(seconds)
        return gaps.first { abs($0.upperBound - f) <= 1 && $0.lowerBound > 0 }
            .map { Double($0.lowerBound) * Self.frameSeconds..<Double($0.upperBound) * Self.frameSeconds }
    }

    /// The shortest pause taken for one between words (a stop consonant's closure inside a word is shorter).
    static let minimumPause = 0.1
    /// Sound (10 ms frames) that two quiet stretches must have between them to be two pauses (less is a click).
    static let minimumSoundFrames = 5
    /// What a boundary left where the alignment put it costs, in frames of sound a boundary may be moved across
    /// to reach a pause instead.
    static let unmatchedBoundaryCost = 30.0
    /// Sound before the alignment's boundary counts this much less than sound after it: the alignment often
    /// starts a word after a pause late, seldom early.
    static let soundBeforeDiscount = 1.5
    /// What leaving a pause inside a word costs per frame beyond `minimumPause` (at most `unmatchedBoundaryCost`):
    /// a long pause is seldom within a word.
    static let pauseInsideWordCost = 0.25

    /// Puts word boundaries at the pauses in the sound. Cross-attention alignment finds where one word hands over
    /// to the next, but places the boundary anywhere in the pause between them (usually at its start, so the next
    /// word starts early), and sometimes a whole short word away. The boundaries (before the first word, between
    /// words, after the last) and the pauses are both in time order, so they are matched in order, as two
    /// sequences are aligned: each boundary takes at most one pause and each pause at most one boundary, at the
    /// least total cost — the sound a boundary is moved across to reach its pause, a fixed cost for a boundary
    /// left where the alignment put it, and a cost for a long pause left inside a word. A matched boundary
    /// becomes the gap: the word before ends where the pause begins, the word after starts where it ends. Where
    /// words run together, the alignment's boundary stays.
    func refine(_ words: [TranscriptWord]) -> [TranscriptWord] {
        let spans = refine(words.map { ($0.start, $0.end) })
        return zip(words, spans).map { TranscriptWord(word: $0.word, start: $1.start, end: $1.end, probability: $0.probability) }
    }

    /// `spans` (start, end) in order, their boundaries moved onto the pauses as `refine(_:)` describes.
    func refine(_ spans: [(start: Double, end: Double)]) -> [(start: Double, end: Double)] {
        guard !loud.isEmpty, !spans.isEmpty else { return spans }
        let boundaries = (0...spans.count).map { frame($0 == spans.count ? spans[$0 - 1].end : spans[$0].start) }
        var out = spans
        for (i, match) in matchInOrder(boundaries, gaps).enumerated() {
            guard let match else { continue }
            if i > 0 { out[i - 1].end = Double(gaps[match].lowerBound) * Self.frameSeconds }
            if i < spans.count { out[i].start = Double(gaps[match].upperBound) * Self.frameSeconds }
        }
        for i in out.indices {
            if i > 0 { out[i].start = max(out[i].start, out[i - 1].end) }
            out[i].end = max(out[i].end, out[i].start + Self.frameSeconds)
        }
        return out
    }

    /// The stretches of sound (seconds) between the pauses of at least `shortest` seconds that lie wholly inside
    /// `start..<end`, in order: one stretch where the interval holds no such pause.
    func soundStretches(from start: Double, to end: Double, pausesOf shortest: Double) -> [Range<Double>] {
        let (a, b) = (frame(start), frame(end))
        guard a < b else { return [start..<end] }
        var stretches: [Range<Double>] = []
        var from = a
        for gap in gaps where gap.lowerBound > a && gap.upperBound < b && Double(gap.count) * Self.frameSeconds >= shortest {
            if gap.lowerBound > from { stretches.append(Double(from) * Self.frameSeconds..<Double(gap.lowerBound) * Self.frameSeconds) }
            from = gap.upperBound
        }
        stretches.append(Double(from) * Self.frameSeconds..<max(Double(from) * Self.frameSeconds, end))
        return stretches
    }

    /// Where `seconds` lies in sound that began after a pause of at least `shortest` seconds later than `start`: that
    /// pause (seconds), the last one before it; nil when `seconds` is quiet or no such pause lies between.
    func soundCut(at seconds: Double, after start: Double, pausesOf shortest: Double) -> (pause: Range<Double>, sound: Double)? {
        let f = frame(seconds), around = 5  // frames either side that must be mostly sound
        guard f - around >= 0, f + around <= loud.count, soundBefore[f + around] - soundBefore[f - around] > around else { return nil }
        let stretches = soundStretches(from: start, to: seconds, pausesOf: shortest)
        guard stretches.count >= 2 else { return nil }
        let sound = stretches[stretches.count - 1].lowerBound
        return (stretches[stretches.count - 2].upperBound..<sound, sound)
    }

    /// The quiet stretches (frames) that can be pauses: at least `minimumPause` long, or touching either end of
    /// the window; two with fewer than `minimumSoundFrames` of sound between them are one.
    private static func pauses(in loud: [Bool]) -> [Range<Int>] {
        var quiet: [Range<Int>] = []
        var f = 0
        while f < loud.count {
            guard !loud[f] else { f += 1; continue }
            var b = f
            while b < loud.count && !loud[b] { b += 1 }
            if let last = quiet.last, f - last.upperBound < Self.minimumSoundFrames {
                quiet[quiet.count - 1] = last.lowerBound..<b
            } else {
                quiet.append(f..<b)
            }
            f = b
        }
        let shortest = Int(Self.minimumPause / Self.frameSeconds)
        return quiet.filter { $0.count >= shortest || $0.lowerBound == 0 || $0.upperBound == loud.count }
    }

    /// For each boundary (a frame), the index of the pause it takes, or nil: the cheapest order-keeping matching
    /// (dynamic programming over boundaries × pauses, as in edit distance).
    private func matchInOrder(_ boundaries: [Int], _ gaps: [Range<Int>]) -> [Int?] {
        // sound crossed to move boundary `i` onto `gap`; boundaries at one frame (a word the alignment gave no time)
        // cost the same, and the tie goes to the one next to the pause in word order — the first of them for a pause
        // before, the last for one after — so the words between keep their order (the other way round, "morning"
        // kept a 1.6 s pause and the zero-length "We" after it ended before it started)
        func cost(_ i: Int, _ gap: Range<Int>) -> Double {
            let (boundary, tie) = (boundaries[i], 1e-6)
            if gap.lowerBound >= boundary {
                return Double(soundBefore[gap.lowerBound] - soundBefore[boundary]) + tie * Double(boundaries.count - i)
            }
            if gap.upperBound <= boundary {
                return Double(soundBefore[boundary] - soundBefore[gap.upperBound]) / Self.soundBeforeDiscount + tie * Double(i)
            }
            return 0
        }
        let shortest = Int(Self.minimumPause / Self.frameSeconds)
        func inside(_ gap: Range<Int>) -> Double {
            min(Self.unmatchedBoundaryCost, Double(max(0, gap.count - shortest)) * Self.pauseInsideWordCost)
        }
        let (n, m) = (boundaries.count, gaps.count)
        // total[i][j]: the least cost of the first i boundaries with the first j pauses; step 0 matched, 1 left
        // the boundary, 2 left the pause
        var total = [[Double]](repeating: [Double](repeating: .infinity, count: m + 1), count: n + 1)
        var step = [[UInt8]](repeating: [UInt8](repeating: 0, count: m + 1), count: n + 1)
        total[0][0] = 0
        for i in 0...n {
            for j in 0...m where i + j > 0 {
                var best = Double.infinity, move: UInt8 = 0
                if i > 0 && j > 0 { (best, move) = (total[i - 1][j - 1] + cost(i - 1, gaps[j - 1]), 0) }
                if i > 0 && total[i - 1][j] + Self.unmatchedBoundaryCost < best { (best, move) = (total[i - 1][j] + Self.unmatchedBoundaryCost, 1) }
                if j > 0 && total[i][j - 1] + inside(gaps[j - 1]) < best { (best, move) = (total[i][j - 1] + inside(gaps[j - 1]), 2) }
                (total[i][j], step[i][j]) = (best, move)
            }
        }
        var matches = [Int?](repeating: nil, count: n)
        var (i, j) = (n, m)
        while i > 0 || j > 0 {
            switch step[i][j] {
            case 0: matches[i - 1] = j - 1; i -= 1; j -= 1
            case 1: i -= 1
            default: j -= 1
            }
        }
        return matches
    }

    private func frame(_ seconds: Double) -> Int { min(loud.count, max(0, Int((seconds / Self.frameSeconds).rounded()))) }
}
