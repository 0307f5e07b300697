import EarshotCore
import Foundation

/// Groups a recording's speech windows by voice: windows are averaged into ~1.6 s units (one 0.8 s window is
/// too little speech to tell two voices apart reliably), the units clustered by average linkage, the tree cut
/// where clusters stop being one voice (or at the count the caller gives), clusters with too little speech to
/// be a speaker folded into the nearest voice, and every window finally given to the voice it is closest to,
/// judged with its neighbours.
struct SpeakerClustering {
    struct Settings {
        /// Average linkage stops merging below this mean cosine between two groups of units. Measured on
        /// LibriSpeech speakers (1.6 s units of this network): the same voice averages 0.70, two voices 0.31;
        /// this is where the two distributions cross.
        var threshold: Float = 0.5
        /// Windows per unit and the step between units (0.8 s windows every 0.4 s: 3 windows span 1.6 s).
        var unitWindows = 3
        var unitStep = 2
        /// At most this many units are clustered (n² memory): longer recordings get longer units.
        var maxUnits = 4_000
        /// A cluster with less speech than this (and under a tenth of all speech) is not a speaker of its own.
        var minSpeakerSeconds = 2.0
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
        let speech = units.map { Double($0.windows.count) * 0.4 }
        let total = speech.reduce(0, +)
        let minSeconds = min(settings.minSpeakerSeconds, total / 10)

        // the clusters of a cut, minor ones folded into the major cluster nearest them
        func voices(after applied: Int) -> [[Float]] {
            let labels = tree.labels(applying: applied)
            var sums: [Int: [Float]] = [:], seconds: [Int: Double] = [:]
            for (u, label) in labels.enumerated() {
                sums[label, default: [Float](repeating: 0, count: SpeakerEncoder.dimension)].addInPlace(units[u].vector)
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

        // a few rounds of assigning units to the nearest voice and recomputing each voice (k-means on the cut)
        for _ in 0..<3 {
            let assigned = units.map { nearest($0.vector, among: centroids) }
            var sums = [[Float]](repeating: [Float](repeating: 0, count: SpeakerEncoder.dimension), count: centroids.count)
            for (u, label) in assigned.enumerated() { sums[label].addInPlace(units[u].vector) }
            centroids = zip(sums, centroids).map { sum, old in sum.allSatisfy { $0 == 0 } ? old : SpeakerEncoder.normalised(sum) }
        }

        // each window to the voice its neighbours in the same stretch lean to as well
        let scores = windows.map { w in centroids.map { dot(w.vector, $0) } }
        return windows.indices.map { i in
            var total = scores[i]
            for j in [i - 1, i + 1] where windows.indices.contains(j) && windows[j].region == windows[i].region {
                for k in total.indices { total[k] += 0.5 * scores[j][k] }
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
                var sum = [Float](repeating: 0, count: SpeakerEncoder.dimension)
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
