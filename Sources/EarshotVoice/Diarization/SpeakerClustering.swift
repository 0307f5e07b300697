import EarshotCore
import Foundation

/// Groups a recording's speech windows by voice: windows are averaged into ~3 s units (one 1 s window is too
/// little speech to tell two voices apart reliably), the units clustered by average linkage, the tree cut
/// where clusters stop being one voice (or at the count the caller gives), clusters with too little speech to
/// be a speaker folded into the nearest voice, and every window finally given to the voice it is closest to,
/// judged with its neighbours.
struct SpeakerClustering {
    struct Settings {
        /// Average linkage stops merging below this mean cosine between two groups of units. CAM++'s 3.25 s units of
        /// LibriSpeech speakers (every third of `../shared`'s 251 utterances, each unit against the others of its
        /// utterance that share no window, and against other speakers): the same voice averages 0.74 (5th percentile
        /// 0.57), two voices of different recordings 0.08 (99th percentile 0.33). Two voices of one recording share
        /// its room and microphone and score higher (pyannote's two-speaker sample is one voice below about 0.43), so
        /// the cut sits at 0.45: above two voices' tail, below one voice's. Chosen on the seed-7 conversations and
        /// that sample (BENCHMARKS.md).
        var threshold: Float = 0.45
        /// Windows per unit and the step between units: 1 s windows every 0.75 s, so 4 span 3.25 s, one unit
        /// starting at every window.
        var unitWindows = 4
        var unitStep = 1
        /// Seconds between windows: the speech each window stands for.
        var hop = 0.75
        /// At most this many units are clustered (n² memory): longer recordings get longer units.
        var maxUnits = 4_000
        /// A cluster with less speech than this (and under a tenth of all speech) is not a speaker of its own.
        var minSpeakerSeconds = 2.0
        /// Compare voices with the recording's mean vector taken out (see `labels`).
        /// (Measured with the d-vector network: DER 5.68% → 5.12% on the seed-7 conversations, 3.14% either way on
        /// seed 11, and 40% → 34% on pyannote's two-speaker sample with the count given.)
        var centred = true
        var numSpeakers: Int?
        var minSpeakers = 1
        var maxSpeakers = Diarizer.maxSpeakers
    }

    struct Unit { var windows: Range<Int>; var vector: [Float] }

    /// A voice label (0, 1, …) for each window, or [] when there are none.
    static func labels(_ windows: [SpeechWindowTrack.Window], settings: Settings) -> [Int] {
        guard !windows.isEmpty else { return [] }
        let units = Self.units(windows, settings: settings)
        let tree = AverageLinkage(units.map(\.vector))
        let speech = units.map { Double($0.windows.count) * settings.hop }
        let dimension = windows[0].vector.count
        let total = speech.reduce(0, +)
        let minSeconds = min(settings.minSpeakerSeconds, total / 10)

        // the clusters of a cut, minor ones folded into the major cluster nearest them
        func voices(after applied: Int) -> [[Float]] {
            let labels = tree.labels(applying: applied)
            var sums: [Int: [Float]] = [:], seconds: [Int: Double] = [:]
            for (u, label) in labels.enumerated() {
                sums[label, default: [Float](repeating: 0, count: dimension)].addInPlace(units[u].vector)
                seconds[label, default: 0] += speech[u]
            }
            let major = sums.keys.filter { seconds[$0]! >= minSeconds }.sorted()
            let kept = major.isEmpty ? [seconds.max { $0.value < $1.value }!.key] : major
            return kept.map { SpeakerEncoder.normalised(sums[$0]!) }
        }
        let n = units.count
        var applied = tree.merges(above: settings.threshold)
        let wanted = settings.numSpeakers.map { ($0...$0) } ?? (max(1, settings.minSpeakers)...max(1, settings.maxSpeakers))
        var centroids = voices(after: applied)
        // too many voices: merge further; too few: undo merges (the cut's count of major clusters moves with them)
        while centroids.count > wanted.upperBound && applied < n - 1 { applied += 1; centroids = voices(after: applied) }
        while centroids.count < wanted.lowerBound && applied > 0 { applied -= 1; centroids = voices(after: applied) }

        // Between two or more voices, what the recording's speech shares (the room, the microphone, what all
        // voices have in common for this network) is taken out: every vector less the mean of all, so the
        // comparison sees what tells the voices apart. (Not for counting them: one voice less its own mean is noise.)
        var unitVectors = units.map(\.vector), windowVectors = windows.map(\.vector)
        if centroids.count > 1 && settings.centred {
            var mean = [Float](repeating: 0, count: dimension)
            for v in unitVectors { mean.addInPlace(v) }
            mean = mean.map { $0 / Float(unitVectors.count) }
            let first = unitVectors.map { nearest($0, among: centroids) }
            func centred(_ v: [Float]) -> [Float] { SpeakerEncoder.normalised(zip(v, mean).map { $0 - $1 }) }
            unitVectors = unitVectors.map(centred)
            windowVectors = windowVectors.map(centred)
            var sums = [[Float]](repeating: [Float](repeating: 0, count: dimension), count: centroids.count)
            for (u, label) in first.enumerated() { sums[label].addInPlace(unitVectors[u]) }
            centroids = sums.map { SpeakerEncoder.normalised($0) }
        }

        // a few rounds of assigning units to the nearest voice and recomputing each voice (k-means on the cut)
        for _ in 0..<3 {
            let assigned = unitVectors.map { nearest($0, among: centroids) }
            var sums = [[Float]](repeating: [Float](repeating: 0, count: dimension), count: centroids.count)
            for (u, label) in assigned.enumerated() { sums[label].addInPlace(unitVectors[u]) }
            centroids = zip(sums, centroids).map { sum, old in sum.allSatisfy { $0 == 0 } ? old : SpeakerEncoder.normalised(sum) }
        }

        // each window to the voice its neighbours in the same stretch lean to as well: the next two on each side,
        // weighted 1/2 and 1/4 (one on each side let two windows at the start of two alike espeak-ng voices' first
        // turn go to the other voice in 8 of 8 dithered copies; two fixed all 8, DER on the seed-11
        // conversations 1.54% → 1.74%, the seed-7 set and pyannote's sample unchanged)
        let scores = windowVectors.map { w in centroids.map { dot(w, $0) } }
        return windows.indices.map { i in
            var total = scores[i]
            for d in 1...2 {
                let weight = Float(pow(0.5, Double(d)))
                for j in [i - d, i + d] where windows.indices.contains(j) && windows[j].region == windows[i].region {
                    for k in total.indices { total[k] += weight * scores[j][k] }
                }
            }
            return total.indices.max { total[$0] < total[$1] }!
        }
    }

    /// Windows averaged into units inside each stretch of speech.
    static func units(_ windows: [SpeechWindowTrack.Window], settings: Settings) -> [Unit] {
        let estimated = windows.count / settings.unitStep
        let scale = max(1, Int((Double(estimated) / Double(settings.maxUnits)).rounded(.up)))
        let size = settings.unitWindows * scale, step = settings.unitStep * scale
        var units: [Unit] = []
        var start = 0
        while start < windows.count {
            var end = start
            while end < windows.count, windows[end].region == windows[start].region { end += 1 }
            // this stretch's windows [start, end)
            var from = start
            repeat {
                let to = min(end, from + size)
                var sum = [Float](repeating: 0, count: windows[from].vector.count)
                for w in from..<to { sum.addInPlace(windows[w].vector) }
                units.append(Unit(windows: from..<to, vector: SpeakerEncoder.normalised(sum)))
                if to == end { break }
                from += step
            } while from < end
            start = end
        }
        return units
    }

    static func nearest(_ v: [Float], among centroids: [[Float]]) -> Int {
        centroids.indices.max { dot(v, centroids[$0]) < dot(v, centroids[$1]) }!
    }

    static func dot(_ a: [Float], _ b: [Float]) -> Float {
        var s: Float = 0
        for i in a.indices { s += a[i] * b[i] }
        return s
    }
}

extension Array where Element == Float {
    mutating func addInPlace(_ other: [Float]) {
        for i in indices { self[i] += other[i] }
    }
}
