import Foundation

/// One log-mel front-end for every model that needs one, set up by `Settings`:
/// YAMNet (`.yamnet`) and, with other settings, the speaker encoder.
public struct LogMelSpectrogram: Sendable {
    public enum Window: String, Sendable, Codable { case hannPeriodic, hammingPeriodic }
    public enum MelScale: String, Sendable, Codable { case htk, slaney }
    public enum Compression: Sendable, Codable, Equatable {
        /// ln(mel + offset)
        case naturalLog(offset: Float)
        /// log10(mel + offset)
        case log10(offset: Float)
    }

    public struct Settings: Sendable, Codable, Equatable {
        public var sampleRate = 16_000
        public var windowLength = 400
        public var hop = 160
        public var fftSize = 512
        public var window = Window.hannPeriodic
        /// Magnitude (|X|) or power (|X|²) spectrum before the mel filters.
        public var power = false
        public var melBands = 64
        public var lowHz: Double = 125
        public var highHz: Double = 7500
        public var melScale = MelScale.htk
        public var compression = Compression.naturalLog(offset: 0.001)
        /// librosa's framing (`center=False`): frames are `fftSize` samples with the window centred in
        /// them, so the first frame starts (fftSize - windowLength) / 2 samples in and frames that do not
        /// fit a whole FFT are dropped. Otherwise frames are `windowLength` samples, zero-padded.
        public var centreWindowInFFT = false

        /// YAMNet's front-end: periodic Hann 400, hop 160, |FFT 512|, 64 HTK mel bands 125–7500 Hz, ln(mel + 0.001).
        public static let yamnet = Settings()

        /// The d-vector speaker encoder's (librosa melspectrogram with a Hamming window,
        /// power 2, 40 Slaney mel bands 0–8000 Hz, log10(S + 1e-10), no centring).
        public static let speakerEncoder: Settings = {
            var s = Settings()
            s.window = .hammingPeriodic
            s.power = true
            s.melBands = 40
            s.lowHz = 0
            s.highHz = 8000
            s.melScale = .slaney
            s.compression = .log10(offset: 1e-10)
            s.centreWindowInFFT = true
            return s
        }()
    }

    public let settings: Settings
    private let fft: RealFFT
    private let window: [Float]
    /// Each band's non-zero filter weights, starting at bin `first`.
    private let bands: [(first: Int, weights: [Float])]

    public init(_ settings: Settings) {
        self.settings = settings
        fft = RealFFT(size: settings.fftSize)
        let n = settings.windowLength
        window = (0..<n).map { i in
            switch settings.window {
            case .hannPeriodic: return Float(0.5 - 0.5 * cos(2 * Double.pi * Double(i) / Double(n)))
            case .hammingPeriodic: return Float(0.54 - 0.46 * cos(2 * Double.pi * Double(i) / Double(n)))
            }
        }
        bands = Self.sparseBands(Self.melFilters(settings))
    }

    /// A band's energy: its weights over the bins of `power`, summed from its first bin. (Inlinable: it runs for every
    /// band of every frame, and Whisper's front-end calls it from another module.)
    @inlinable
    public static func energy(of band: (first: Int, weights: [Float]), in power: [Float]) -> Float {
        var sum: Float = 0
        for (i, w) in band.weights.enumerated() { sum += power[band.first + i] * w }
        return sum
    }

    /// Each band's non-zero weights of a [bin][band] filter table, from its first non-zero bin.
    public static func sparseBands(_ filters: [[Float]]) -> [(first: Int, weights: [Float])] {
        (0..<(filters.first?.count ?? 0)).map { b in
            let nonZero = filters.indices.filter { filters[$0][b] != 0 }
            guard let first = nonZero.first, let last = nonZero.last else { return (0, []) }
            return (first, (first...last).map { filters[$0][b] })
        }
    }

    /// Frames that fit in `sampleCount` samples (no padding).
    public func frameCount(_ sampleCount: Int) -> Int {
        let span = settings.centreWindowInFFT ? settings.fftSize : settings.windowLength
        return sampleCount < span ? 0 : 1 + (sampleCount - span) / settings.hop
    }

    /// Where frame 0's window starts.
    private var firstSample: Int { settings.centreWindowInFFT ? (settings.fftSize - settings.windowLength) / 2 : 0 }

    /// Log-mel frames, row-major [frame][band].
    public func compute(_ samples: ArraySlice<Float>) -> [Float] {
        let frames = frameCount(samples.count)
        let bandCount = settings.melBands, bins = settings.fftSize / 2 + 1
        var out = [Float](repeating: 0, count: frames * bandCount)
        var frame = [Float](repeating: 0, count: settings.windowLength)
        var power = [Float](repeating: 0, count: bins)
        var re = [Float](repeating: 0, count: settings.fftSize), im = re
        samples.withUnsafeBufferPointer { src in
            for f in 0..<frames {
                let start = firstSample + f * settings.hop
                for i in 0..<settings.windowLength { frame[i] = src[start + i] * window[i] }
                frame.withUnsafeBufferPointer { fft.powerSpectrum($0, into: &power, re: &re, im: &im) }
                if !settings.power { for k in 0..<bins { power[k] = power[k].squareRoot() } }
                for (b, band) in bands.enumerated() {
                    let sum = Self.energy(of: band, in: power)
                    switch settings.compression {
                    case let .naturalLog(offset): out[f * bandCount + b] = Foundation.log(sum + offset)
                    case let .log10(offset): out[f * bandCount + b] = Foundation.log10(sum + offset)
                    }
                }
            }
        }
        return out
    }

    static func hzToMel(_ hz: Double, _ scale: MelScale) -> Double {
        switch scale {
        case .htk: return 1127 * Foundation.log(1 + hz / 700)
        case .slaney:  // linear below 1 kHz, logarithmic above (as librosa's default)
            let fSp = 200.0 / 3, minLogHz = 1000.0, minLogMel = minLogHz / fSp, step = Foundation.log(6.4) / 27
            return hz < minLogHz ? hz / fSp : minLogMel + Foundation.log(hz / minLogHz) / step
        }
    }

    static func melToHz(_ mel: Double, _ scale: MelScale) -> Double {
        switch scale {
        case .htk: return 700 * (exp(mel / 1127) - 1)
        case .slaney:
            let fSp = 200.0 / 3, minLogHz = 1000.0, minLogMel = minLogHz / fSp, step = Foundation.log(6.4) / 27
            return mel < minLogMel ? mel * fSp : minLogHz * exp(step * (mel - minLogMel))
        }
    }

    /// Triangular filters. HTK: triangles in mel space over the FFT bins' mel values, DC weight zero
    /// (YAMNet/VGGish); Slaney: triangles in Hz between mel-spaced edges, area-normalised (librosa).
    public static func melFilters(_ s: Settings) -> [[Float]] {
        let bins = s.fftSize / 2 + 1
        let nyquist = Double(s.sampleRate) / 2
        let binHz = (0..<bins).map { Double($0) * nyquist / Double(bins - 1) }
        let lo = hzToMel(s.lowHz, s.melScale), hi = hzToMel(s.highHz, s.melScale)
        let edgesMel = (0..<(s.melBands + 2)).map { lo + (hi - lo) * Double($0) / Double(s.melBands + 1) }
        var filters = [[Float]](repeating: [Float](repeating: 0, count: s.melBands), count: bins)
        for b in 0..<s.melBands {
            switch s.melScale {
            case .htk:
                let (l, c, u) = (edgesMel[b], edgesMel[b + 1], edgesMel[b + 2])
                for k in 1..<bins {
                    let m = hzToMel(binHz[k], .htk)
                    filters[k][b] = Float(max(0, min((m - l) / (c - l), (u - m) / (u - c))))
                }
            case .slaney:
                let hz = edgesMel[b...(b + 2)].map { melToHz($0, .slaney) }
                let norm = 2 / (hz[2] - hz[0])
                for k in 0..<bins {
                    let w = max(0, min((binHz[k] - hz[0]) / (hz[1] - hz[0]), (hz[2] - binHz[k]) / (hz[2] - hz[1])))
                    filters[k][b] = Float(w * norm)
                }
            }
        }
        return filters
    }
}
