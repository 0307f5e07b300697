import Foundation

/// A stationary noise floor taken out of a log-mel spectrogram by spectral subtraction, band by band.
///
/// Under steady noise (a fan, a road, a hiss) every band holds the noise's power beside the voice's, and the
/// speaker network reads the sum: a male/female classifier on its features heard 46 of 56 women as men at
/// 5 dB SNR. The floor of a band is its 10th-percentile power over the recording (the pauses hold at least
/// that much of the recording in any speech); it is subtracted from every frame, keeping at least a tenth of the
/// frame's power so no band is emptied (the usual spectral-subtraction floor). Recordings in a quiet room have a
/// floor far below their speech and are left almost as they are.
public enum NoiseFloor {
    public static let percentile = 0.1
    public static let keptShare: Float = 0.1
    /// Fewer frames than this (0.1 s) hold no pause to learn a floor from: left as they are.
    public static let minimumFrames = 10

    /// `logMel` (frames × `bands`, log10 of power + `offset`, as the front-end computes it) with each band's noise
    /// floor subtracted, in the same form.
    public static func removed(from logMel: [Float], bands: Int, offset: Float) -> [Float] {
        let frames = logMel.count / bands
        guard frames >= minimumFrames else { return logMel }
        var out = logMel
        var powers = [Float](repeating: 0, count: frames)
        for band in 0..<bands {
            for f in 0..<frames { powers[f] = pow(10, logMel[f * bands + band]) }
            let floor = powers.sorted()[Int(Double(frames - 1) * percentile)]
            for f in 0..<frames {
                let kept = max(powers[f] - floor, keptShare * powers[f])
                out[f * bands + band] = log10(kept + offset)
            }
        }
        return out
    }
}
