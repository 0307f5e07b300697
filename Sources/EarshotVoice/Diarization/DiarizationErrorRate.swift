import Foundation

/// The diarization error rate as NIST's md-eval and pyannote.metrics count it: (missed speech + false alarm +
/// speaker confusion) / reference speech, on 10 ms frames, overlapping reference speakers each counted, the
/// hypothesis's speakers mapped one-to-one onto the reference's to agree most (or by name, `byName`), and
/// `collar` seconds on either side of every reference boundary left out.
public struct DiarizationErrorRate: Sendable, Codable, Equatable {
    public var referenceSeconds: Double
    public var missed: Double
    public var falseAlarm: Double
    public var confusion: Double
    public var rate: Double { referenceSeconds > 0 ? (missed + falseAlarm + confusion) / referenceSeconds : 0 }
    /// Hypothesis label → the reference speaker it was scored as.
    public var mapping: [String: String]

    static let frame = 0.01

    public init(reference: [SpeakerTurn], hypothesis: [SpeakerTurn], collar: Double = 0.25, byName: Bool = false) {
        let end = (reference + hypothesis).map(\.end).max() ?? 0
        let frames = Int((end / Self.frame).rounded(.up)) + 1
        let refNames = Array(Set(reference.map(\.speaker))).sorted(), hypNames = Array(Set(hypothesis.map(\.speaker))).sorted()
        func activity(_ turns: [SpeakerTurn], _ names: [String]) -> [[Bool]] {
            var grid = [[Bool]](repeating: [Bool](repeating: false, count: frames), count: names.count)
            let index = Dictionary(uniqueKeysWithValues: names.enumerated().map { ($1, $0) })
            for t in turns {
                let a = max(0, Int((t.start / Self.frame).rounded())), b = min(frames, Int((t.end / Self.frame).rounded()))
                if a < b { for f in a..<b { grid[index[t.speaker]!][f] = true } }
            }
            return grid
        }
        let ref = activity(reference, refNames), hyp = activity(hypothesis, hypNames)
        var scored = [Bool](repeating: true, count: frames)
        let c = Int((collar / Self.frame).rounded())
        if c > 0 {
            for t in reference {
                for edge in [t.start, t.end] {
                    let f = Int((edge / Self.frame).rounded())
                    for g in max(0, f - c)..<min(frames, f + c) { scored[g] = false }
                }
            }
        }
        // co-occurrence of each hypothesis and reference speaker over the scored frames
        var together = [[Int]](repeating: [Int](repeating: 0, count: refNames.count), count: hypNames.count)
        for f in 0..<frames where scored[f] {
            for h in hypNames.indices where hyp[h][f] { for r in refNames.indices where ref[r][f] { together[h][r] += 1 } }
        }
        let assignment: [Int: Int] = byName ? Self.nameAssignment(hypNames, refNames, together) : Self.bestAssignment(together)
        var missedFrames = 0, falseFrames = 0, confusedFrames = 0, refFrames = 0
        for f in 0..<frames where scored[f] {
            let nRef = refNames.indices.filter { ref[$0][f] }.count
            let active = hypNames.indices.filter { hyp[$0][f] }
            let correct = active.filter { h in assignment[h].map { ref[$0][f] } ?? false }.count
            refFrames += nRef
            missedFrames += max(0, nRef - active.count)
            falseFrames += max(0, active.count - nRef)
            confusedFrames += min(nRef, active.count) - correct
        }
        referenceSeconds = Double(refFrames) * Self.frame
        missed = Double(missedFrames) * Self.frame
        falseAlarm = Double(falseFrames) * Self.frame
        confusion = Double(confusedFrames) * Self.frame
        mapping = Dictionary(uniqueKeysWithValues: assignment.map { (hypNames[$0.key], refNames[$0.value]) })
    }

    /// By name: a named voice is right only under its own name; voices nobody named (`SPEAKER_nn`) are mapped to agree
    /// most onto the reference's unnamed speakers (a stranger's label in a reference is arbitrary), never onto a name.
    static func nameAssignment(_ hypNames: [String], _ refNames: [String], _ together: [[Int]]) -> [Int: Int] {
        var result = Dictionary(uniqueKeysWithValues: hypNames.indices.compactMap { h in
            Self.isUnnamed(hypNames[h]) ? nil : refNames.firstIndex(of: hypNames[h]).map { (h, $0) }
        })
        let hs = hypNames.indices.filter { Self.isUnnamed(hypNames[$0]) }, rs = refNames.indices.filter { Self.isUnnamed(refNames[$0]) }
        for (h, r) in Self.bestAssignment(hs.map { h in rs.map { together[h][$0] } }) { result[hs[h]] = rs[r] }
        return result
    }

    static func isUnnamed(_ label: String) -> Bool { label.wholeMatch(of: /SPEAKER_\d+/) != nil }

    /// The one-to-one mapping with the most frames in common: exhaustive for up to 6 speakers a side,
    /// greedy (largest overlaps first) beyond.
    static func bestAssignment(_ together: [[Int]]) -> [Int: Int] {
        let h = together.count, r = together.first?.count ?? 0
        guard h > 0, r > 0 else { return [:] }
        if h > 6 || r > 6 {
            var result: [Int: Int] = [:], used = Set<Int>()
            let pairs = (0..<h).flatMap { a in (0..<r).map { (a, $0) } }.sorted { together[$0.0][$0.1] > together[$1.0][$1.1] }
            for (a, b) in pairs where result[a] == nil && !used.contains(b) && together[a][b] > 0 { result[a] = b; used.insert(b) }
            return result
        }
        var best: (score: Int, map: [Int: Int]) = (-1, [:])
        func search(_ a: Int, _ used: Set<Int>, _ score: Int, _ map: [Int: Int]) {
            if a == h { if score > best.score { best = (score, map) }; return }
            search(a + 1, used, score, map)  // this hypothesis speaker maps to nobody
            for b in 0..<r where !used.contains(b) {
                var next = map
                next[a] = b
                search(a + 1, used.union([b]), score + together[a][b], next)
            }
        }
        search(0, [], 0, [:])
        return best.map
    }

    /// Turns read from RTTM text (`SPEAKER` lines; other lines are ignored). `file` keeps one file id's lines.
    public static func turns(rttm text: String, file: String? = nil) throws -> [SpeakerTurn] {
        var turns: [SpeakerTurn] = []
        for (n, line) in text.split(separator: "\n").enumerated() {
            let fields = line.split(whereSeparator: { $0 == " " || $0 == "\t" })
            guard fields.first == "SPEAKER" else { continue }
            guard fields.count >= 8, let start = Double(fields[3]), let duration = Double(fields[4]),
                  start.isFinite, duration.isFinite, start >= 0, duration >= 0 else {
                throw DiarizationError.badReference("line \(n + 1) is not an RTTM SPEAKER line: \(line.prefix(80))")
            }
            if let file, fields[1] != file { continue }
            turns.append(SpeakerTurn(start: start, end: start + duration, speaker: String(fields[7])))
        }
        return turns
    }
}
