import EarshotCore
import EarshotSpeech
import Foundation

/// The speech of a recording as the diarizer sees it: stretches of speech found by the VAD network, a vector of
/// the diarization network (CAM++) for every 1 s window of them (every 0.75 s), which tells voices apart, and, when
/// voices are to be named, the enrolment network's d-vector for every 0.8 s window (every 0.4 s), which enrolled
/// profiles score. Built a block at a time: only the open stretch's samples are held, so memory is the vectors'
/// (under 2 KB per 0.4 s of speech) however long the file.
struct SpeechWindowTrack {
    struct Region { var start: Double; var end: Double }
    struct Window {
        var region: Int
        var start: Double
        var end: Double
        var vector: [Float]
        var center: Double { (start + end) / 2 }
    }

    private(set) var regions: [Region] = []
    /// CAM++ windows: what voices are grouped by.
    private(set) var windows: [Window] = []
    /// d-vector windows (empty without a `naming` encoder): what enrolled profiles and reference clips are scored on.
    private(set) var namingWindows: [Window] = []

    /// When a frame counts as speech: it starts at `onset` and goes on while frames stay above `offset`
    /// (hysteresis, as pyannote's binarisation), ending after `minSilence` seconds below it.
    struct Settings {
        var onset: Float = 0.5
        var offset: Float = 0.35
        var minSilence = 0.3
        var minSpeech = 0.2
        /// Longer stretches are closed and a new one opened (bounds the samples held).
        var maxSpeech = 20.0
        /// Frames the network fires late and stops early by: each stretch is widened by this on both sides.
        var widenFrames = 2
        /// CAM++ windows, in filterbank frames of 10 ms: 1 s every 0.75 s. Shorter windows follow quick turns (1 s
        /// against 1.5 s: DER 2.9% against 4.5% on pyannote's two-speaker sample); every 0.75 s instead of 0.5 s
        /// costs a third less for the same DER within a few tenths (BENCHMARKS.md).
        var windowFrames = 100
        var hopFrames = 75
    }

    /// Filterbank frames per second, and how far a frame's 25 ms reach past the start of the next.
    private static let framesPerSecond = Double(KaldiFilterbank.sampleRate / KaldiFilterbank.hop)
    private static let frameTail = Double(KaldiFilterbank.frameLength - KaldiFilterbank.hop) / Double(KaldiFilterbank.sampleRate)

    /// Seconds between CAM++ windows.
    var hop: Double { Double(settings.hopFrames) / Self.framesPerSecond }

    private let settings: Settings
    private let vad: SpeechProbabilities
    private let encoder: DiarizationEncoder
    private let naming: SpeakerEncoder?
    private let rate = Double(SpeakerEncoder.sampleRate)
    private var stream = SpeechProbabilities.StreamState()
    /// Samples from `bufferStart` on: the open stretch (or the last frames) and what is not yet scored.
    private var buffer: [Float] = []
    private var bufferStart = 0
    private var scored = 0
    /// The open stretch: its first speech frame, the last frame above `offset`.
    private var openStart: Int?
    private var lastVoiced = 0

    /// `naming`: the d-vector encoder when voices are to be named (nil skips its windows).
    init(vad: SpeechProbabilities, encoder: DiarizationEncoder, naming: SpeakerEncoder?, settings: Settings = Settings()) {
        self.vad = vad
        self.encoder = encoder
        self.naming = naming
        self.settings = settings
    }

    /// The shortest stretch of speech that is kept, in seconds.
    var minimumSpeech: Double { settings.minSpeech }

    /// Seconds of audio taken in.
    var seconds: Double { Double(bufferStart + buffer.count) / rate }

    mutating func append(_ samples: [Float]) throws {
        buffer += samples
        let frame = SpeechProbabilities.frameSamples
        let first = scored - bufferStart
        let whole = (buffer.count - first) / frame * frame
        guard whole > 0 else { return }
        let probabilities = try vad.frames(buffer[first..<(first + whole)], continuing: &stream)
        for p in probabilities {
            let index = scored / frame
            scored += frame
            try step(frame: index, probability: p)
        }
        // keep the open stretch, or a few frames to widen the next one's start into
        let keep = max(0, ((openStart ?? scored / frame) - settings.widenFrames) * frame)
        let drop = min(keep - bufferStart, buffer.count)
        if drop > 0 {
            buffer.removeFirst(drop)
            bufferStart += drop
        }
    }

    /// Ends the recording: closes a stretch still open.
    mutating func finish() throws {
        if let start = openStart { try close(from: start, to: lastVoiced) }
    }

    private mutating func step(frame: Int, probability: Float) throws {
        let silenceFrames = Int(settings.minSilence * rate) / SpeechProbabilities.frameSamples
        let maxFrames = Int(settings.maxSpeech * rate) / SpeechProbabilities.frameSamples
        if let start = openStart {
            if probability >= settings.offset { lastVoiced = frame }
            if frame - lastVoiced > silenceFrames {
                try close(from: start, to: lastVoiced)
            } else if frame - start >= maxFrames {
                try close(from: start, to: frame)
                openStart = frame + 1
                lastVoiced = frame + 1
            }
        } else if probability >= settings.onset {
            openStart = frame
            lastVoiced = frame
        }
    }

    /// Embeds the stretch from frame `first` to frame `last` (both included, widened) and records it.
    private mutating func close(from first: Int, to last: Int) throws {
        openStart = nil
        let frame = SpeechProbabilities.frameSamples
        let start = max(bufferStart, (first - settings.widenFrames) * frame)
        let end = min(bufferStart + buffer.count, (last + 1 + settings.widenFrames) * frame)
        guard Double(end - start) / rate >= settings.minSpeech else { return }
        let samples = buffer[(start - bufferStart)..<(end - bufferStart)]
        let region = regions.count
        let origin = Double(start) / rate
        regions.append(Region(start: origin, end: Double(end) / rate))
        // CAM++: the stretch's filterbank once, then windows of it; the last window ends with the stretch
        let features = encoder.frontEnd.compute(samples)
        let frames = features.count / encoder.frontEnd.bands
        let spans = Self.spans(frames: frames, length: settings.windowFrames, hop: settings.hopFrames)
        for (span, vector) in zip(spans, try encoder.embeddings(features: features, windows: spans)) {
            windows.append(Window(region: region, start: origin + Double(span.lowerBound) / Self.framesPerSecond,
                                  end: origin + Double(span.upperBound) / Self.framesPerSecond + Self.frameTail, vector: vector))
        }
        guard let naming else { return }
        let hop = Double(SpeakerEncoder.strideFrames) / 100, length = Double(SpeakerEncoder.windowFrames) / 100
        for (k, vector) in try naming.windowEmbeddings(samples).enumerated() {
            let from = origin + Double(k) * hop
            namingWindows.append(Window(region: region, start: from, end: min(Double(end) / rate, from + length), vector: vector))
        }
    }

    /// Windows of `length` frames every `hop` over `frames`, the last one ending at the last frame (one window of
    /// them all when there are fewer).
    static func spans(frames: Int, length: Int, hop: Int) -> [Range<Int>] {
        guard frames > length else { return frames > 0 ? [0..<frames] : [] }
        var spans = stride(from: 0, to: frames - length, by: hop).map { $0..<($0 + length) }
        spans.append((frames - length)..<frames)
        return spans
    }
}
