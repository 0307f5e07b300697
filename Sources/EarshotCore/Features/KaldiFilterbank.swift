import Foundation

/// Kaldi's log mel filterbank as `torchaudio.compliance.kaldi.fbank` computes it with its defaults and no dither,
/// the front-end CAM++ was trained on: 25 ms frames every 10 ms that fit in the audio, each frame's DC removed,
/// pre-emphasis 0.97 (the first sample against itself), Povey window (Hann to the power 0.85, not periodic),
/// power spectrum of 512 points, HTK-mel triangles from 20 Hz to Nyquist, natural log floored at FLT_EPSILON.
public struct KaldiFilterbank: Sendable {
    public static let sampleRate = 16_000
    public static let frameLength = 400
    public static let hop = 160
    public let bands: Int
    private let fft = RealFFT(size: 512)
    private let window: [Float]
    /// Each band's non-zero filter weights, starting at bin `first`.
    private let filters: [(first: Int, weights: [Float])]

    public init(bands: Int = 80) {
        self.bands = bands
        let n = Self.frameLength
        window = (0..<n).map { Float(pow(0.5 - 0.5 * cos(2 * Double.pi * Double($0) / Double(n - 1)), 0.85)) }
        var settings = LogMelSpectrogram.Settings()
        settings.melBands = bands
        settings.lowHz = 20
        settings.highHz = Double(Self.sampleRate) / 2
        settings.melScale = .htk
        filters = LogMelSpectrogram.sparseBands(LogMelSpectrogram.melFilters(settings))
    }

    /// Frames that fit in `sampleCount` samples.
    public static func frameCount(_ sampleCount: Int) -> Int {
        sampleCount < frameLength ? 0 : 1 + (sampleCount - frameLength) / hop
    }

    /// Log filterbank frames of 16 kHz audio scaled to ±1, row-major [frame][band].
    public func compute(_ samples: ArraySlice<Float>) -> [Float] {
        let frames = Self.frameCount(samples.count), n = Self.frameLength
        var out = [Float](repeating: 0, count: frames * bands)
        var frame = [Float](repeating: 0, count: n)
        var power = [Float](repeating: 0, count: fft.size / 2 + 1)
        var re = [Float](repeating: 0, count: fft.size), im = re
        samples.withUnsafeBufferPointer { src in
            for f in 0..<frames {
                let start = f * Self.hop
                var mean: Float = 0
                for i in 0..<n { mean += src[start + i] }
                mean /= Float(n)
                var previous = src[start] - mean
                for i in 0..<n {
                    let x = src[start + i] - mean
                    frame[i] = (x - 0.97 * previous) * window[i]
                    previous = x
                }
                frame.withUnsafeBufferPointer { fft.powerSpectrum($0, into: &power, re: &re, im: &im) }
                for (b, filter) in filters.enumerated() {
                    var sum: Float = 0
                    for (i, w) in filter.weights.enumerated() { sum += power[filter.first + i] * w }
                    out[f * bands + b] = Foundation.log(max(sum, Float.ulpOfOne))
                }
            }
        }
        return out
    }
}
