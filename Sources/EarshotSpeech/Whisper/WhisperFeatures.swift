import EarshotCore
import Foundation

/// Whisper's log-mel front-end, as openai-whisper computes it: 25 ms periodic Hann windows every 10 ms,
/// centred (reflect-padded by 200 samples), power spectrum of a 400-point DFT, Slaney mel filters 0–8 kHz,
/// log10 floored at 1e-10, clamped to 8 below the maximum, then (x + 4) / 4. The 400-point transform is a
/// mixed-radix FFT in plain Swift, the same instructions on every x86-64 CPU: it was one OpenBLAS matrix product,
/// whose kernels OpenBLAS picks by CPU model and which round their sums each their own way, so the features, and
/// through them transcripts, changed from one CPU to another (and it did ~320k operations a frame to the FFT's ~15k).
struct WhisperFeatures: Sendable {
    static let sampleRate = 16_000
    static let hop = 160
    static let windowLength = 400
    /// The longest input: 3,000 frames, 30 s.
    static let maxFrames = 3000

    let melBands: Int
    /// The periodic Hann window.
    private let window: [Float]
    private let fft = MixedRadixFFT(size: windowLength)
    /// Each mel band's non-zero filter weights over the bins, from its first bin.
    private let bands: [(first: Int, weights: [Float])]

    init(melBands: Int) {
        self.melBands = melBands
        let n = Self.windowLength
        window = (0..<n).map { Float(0.5 - 0.5 * cos(2 * Double.pi * Double($0) / Double(n))) }
        var settings = LogMelSpectrogram.Settings.yamnet  // then every field that differs
        settings.fftSize = n
        settings.melBands = melBands
        settings.lowHz = 0
        settings.highHz = 8000
        settings.melScale = .slaney
        bands = LogMelSpectrogram.sparseBands(LogMelSpectrogram.melFilters(settings))
    }

    /// Frames for `sampleCount` samples (whisper drops the STFT's last frame).
    static func frameCount(_ sampleCount: Int) -> Int { sampleCount / hop }

    /// The encoder's input [melBands][frames] for `samples` followed by `paddingSamples` of silence, at most
    /// `maxFrames` frames.
    func compute(_ samples: ArraySlice<Float>, paddingSamples: Int) -> (mel: [Float], frames: Int) {
        let total = samples.count + paddingSamples
        let frames = min(Self.maxFrames, Self.frameCount(total))
        guard frames > 0 else { return ([], 0) }
        let half = Self.windowLength / 2, n = Self.windowLength
        // The signal with centre padding: reflect at both ends (of the zero-padded signal, as torch.stft does). Only
        // the part that can hold sound is made: past the samples there are zeros, and with more than a window of
        // padding (a few seconds of speech in a 30 s window) the end's reflection is zeros too. Making all of it
        // zeroed ~2 MB per window for nothing.
        let length = min(total + 2 * half, samples.count + 2 * half + n)
        var padded = [Float](repeating: 0, count: length)
        for (i, s) in samples.enumerated() { padded[half + i] = s }
        for i in 0..<half where total > 2 * half {
            padded[half - 1 - i] = padded[half + 1 + i]
            if length == total + 2 * half { padded[half + total + i] = padded[half + total - 2 - i] }
        }
        // Frames that hold only the padding's silence have no power: they are left out (most of a 30 s window around
        // a few seconds of speech); their mel values are the floor's, as computed below. (Every frame before the last
        // sounding one ends within `padded`.)
        let lastSound = padded.lastIndex { $0 != 0 } ?? -1
        let sounding = min(frames, lastSound / Self.hop + 1)
        var mel = [Float](repeating: 0, count: sounding * melBands)
        var frame = [Float](repeating: 0, count: n), power: [Float] = [], work: [Float] = []
        for f in 0..<sounding {
            let start = f * Self.hop
            for i in 0..<n { frame[i] = padded[start + i] * window[i] }
            frame.withUnsafeBufferPointer { fft.powerSpectrum($0, into: &power, work: &work) }
            for (b, band) in bands.enumerated() { mel[f * melBands + b] = LogMelSpectrogram.energy(of: band, in: power) }
        }
        // the silent frames' value, the floor's logarithm
        let silence = log10(max(Float(0), 1e-10))
        var peak = frames > sounding ? silence : -Float.infinity
        for i in mel.indices {
            mel[i] = log10(max(mel[i], 1e-10))
            peak = max(peak, mel[i])
        }
        // transpose to [band][frame], clamped and scaled
        var out = [Float](repeating: (max(silence, peak - 8) + 4) / 4, count: frames * melBands)
        for f in 0..<sounding {
            for b in 0..<melBands { out[b * frames + f] = (max(mel[f * melBands + b], peak - 8) + 4) / 4 }
        }
        return (out, frames)
    }
}
