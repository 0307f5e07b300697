/// How much each window of a recording counts, by the speech in it (voice features; YAMNet's windows carry no
/// speech share and all count alike).
///
/// A voice classifier's windows of pause hold no voice: in a quiet room their d-vectors are the room's and
/// cancel out, but under noise they are the noise's and vote for whichever label it resembles (at 5 dB SNR,
/// 46 of 56 women were heard as men when every window counted alike; BENCHMARKS.md, "When the recording is
/// worse than the training data"). So training
/// learns from speech windows only, and a recording's scores are its windows' weighted by their speech.
extension Array where Element == SoundWindow {
    /// A window is speech when the detector's mean probability over it reaches this.
    static let speechShare: Float = 0.5

    /// The windows to train on: those that are speech, or (a recording with none) the one with the most.
    public var trainingWindows: [SoundWindow] {
        guard contains(where: { $0.speech != nil }) else { return self }
        let speech = filter { ($0.speech ?? 0) >= Self.speechShare }
        if !speech.isEmpty { return speech }
        return self.max { ($0.speech ?? 0) < ($1.speech ?? 0) }.map { [$0] } ?? []
    }

    /// Each window's weight in the recording's scores, summing to 1: its speech share, or equal weights when no
    /// window carries one or none holds any speech.
    public var weights: [Float] {
        let shares = map { $0.speech ?? 0 }
        let total = shares.reduce(0, +)
        guard contains(where: { $0.speech != nil }), total > 1e-3 else {
            return [Float](repeating: 1 / Float(Swift.max(1, count)), count: count)
        }
        return shares.map { $0 / total }
    }

    /// The windows' class scores (one row each) averaged by `weights`.
    func weightedMean(of scores: [[Float]], classes: Int) -> [Float] {
        var mean = [Float](repeating: 0, count: classes)
        for (row, weight) in zip(scores, weights) {
            for i in row.indices where i < classes { mean[i] += row[i] * weight }
        }
        return mean
    }
}
