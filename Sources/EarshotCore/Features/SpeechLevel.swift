/// A recording brought to one speech level before a level-sensitive network reads it.
///
/// The d-vector speaker network is not level-invariant: its log-mel input shifts with the gain, and a
/// male/female classifier on its features fell from 0.983 at 0 to -20 dBFS peak to 0.883 at -45 dBFS
/// (BENCHMARKS.md, "When the recording is worse than the training data"). The level is taken from the loud frames
/// (the 90th percentile of 32 ms frame RMS), so pauses and silence around the speech do not count, and brought to
/// 0.1 (-20 dBFS): loud speech frames at that level put the average active speech near the -26 dBov of ITU-T P.56.
public enum SpeechLevel {
    public static let frameSamples = 512
    public static let target: Float = 0.1
    /// Gains beyond these are not applied: digital silence stays silence, and a clipped recording is not made
    /// quieter than a hundredth.
    public static let gains: ClosedRange<Float> = 0.01...100

    /// The level of `samples`: the 90th percentile of the RMS of its whole 512-sample frames (0 when it has none).
    public static func level(_ samples: [Float]) -> Float {
        guard samples.count >= frameSamples else { return 0 }
        var rms: [Float] = []
        rms.reserveCapacity(samples.count / frameSamples)
        var start = 0
        while start + frameSamples <= samples.count {
            var sum: Float = 0
            for x in samples[start..<(start + frameSamples)] { sum += x * x }
            rms.append((sum / Float(frameSamples)).squareRoot())
            start += frameSamples
        }
        rms.sort()
        return rms[Int(Double(rms.count - 1) * 0.9)]
    }

    /// `samples` scaled so that their level is `target` (unchanged when they hold no level at all).
    public static func normalised(_ samples: [Float]) -> [Float] {
        let level = level(samples)
        guard level > 0 else { return samples }
        let gain = min(gains.upperBound, max(gains.lowerBound, target / level))
        return samples.map { $0 * gain }
    }
}
