internal import CBLAS
import EarshotCore
import Foundation

/// Whisper's log-mel front-end, as openai-whisper computes it: 25 ms periodic Hann windows every 10 ms,
/// centred (reflect-padded by 200 samples), power spectrum of a 400-point DFT, Slaney mel filters 0–8 kHz,
/// log10 floored at 1e-10, clamped to 8 below the maximum, then (x + 4) / 4. The DFT is one matrix product
/// (OpenBLAS), far faster than a transform per frame at this size, which is not a power of two.
struct WhisperFeatures: Sendable {
    static let sampleRate = 16_000
    static let hop = 160
    static let windowLength = 400
    /// The longest input: 3,000 frames, 30 s.
    static let maxFrames = 3000

    let melBands: Int
    private let bins = windowLength / 2 + 1
    /// [400][2 × 201]: the windowed cosine and sine of every bin.
    private let basis: [Float]
    /// [201][melBands].
    private let filters: [Float]

    init(melBands: Int) {
        self.melBands = melBands
        let n = Self.windowLength, bins = self.bins
        var basis = [Float](repeating: 0, count: n * 2 * bins)
        for i in 0..<n {
            let window = 0.5 - 0.5 * cos(2 * Double.pi * Double(i) / Double(n))
            for k in 0..<bins {
                let angle = 2 * Double.pi * Double(k * i % n) / Double(n)
                basis[i * 2 * bins + k] = Float(window * cos(angle))
                basis[i * 2 * bins + bins + k] = Float(-window * sin(angle))
            }
        }
        self.basis = basis
        var settings = LogMelSpectrogram.Settings.yamnet  // then every field that differs
        settings.fftSize = n
        settings.melBands = melBands
        settings.lowHz = 0
        settings.highHz = 8000
        settings.melScale = .slaney
        filters = LogMelSpectrogram.melFilters(settings).flatMap { $0 }
    }

    /// Frames for `sampleCount` samples (whisper drops the STFT's last frame).
    static func frameCount(_ sampleCount: Int) -> Int { sampleCount / hop }

    /// The encoder's input [melBands][frames] for `samples` followed by `paddingSamples` of silence, at most
    /// `maxFrames` frames.
    func compute(_ samples: ArraySlice<Float>, paddingSamples: Int) -> (mel: [Float], frames: Int) {
        let total = samples.count + paddingSamples
        let frames = min(Self.maxFrames, Self.frameCount(total))
        guard frames > 0 else { return ([], 0) }
        let half = Self.windowLength / 2, n = Self.windowLength, bins = self.bins
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
        // Frames that hold only the padding's silence have no power: they are left out of both products (most of a
        // 30 s window around a few seconds of speech). Their rows of zeros would come out as zeros, so the result
        // is the same. (Every frame before the last sounding one ends within `padded`.)
        let lastSound = padded.lastIndex { $0 != 0 } ?? -1
        let sounding = min(frames, lastSound / Self.hop + 1)
        var framesMatrix = [Float](repeating: 0, count: sounding * n)
        for f in 0..<sounding {
            let start = f * Self.hop
            for i in 0..<n { framesMatrix[f * n + i] = padded[start + i] }
        }
        var spectrum = [Float](repeating: 0, count: sounding * 2 * bins)
        BLAS.useOneThread()
        if sounding > 0 {
            cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, Int32(sounding), Int32(2 * bins), Int32(n), 1,
                        framesMatrix, Int32(n), basis, Int32(2 * bins), 0, &spectrum, Int32(2 * bins))
        }
        var power = [Float](repeating: 0, count: sounding * bins)
        for f in 0..<sounding {
            for k in 0..<bins {
                let re = spectrum[f * 2 * bins + k], im = spectrum[f * 2 * bins + bins + k]
                power[f * bins + k] = re * re + im * im
            }
        }
        var mel = [Float](repeating: 0, count: sounding * melBands)
        if sounding > 0 {
            cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, Int32(sounding), Int32(melBands), Int32(bins), 1,
                        power, Int32(bins), filters, Int32(melBands), 0, &mel, Int32(melBands))
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
