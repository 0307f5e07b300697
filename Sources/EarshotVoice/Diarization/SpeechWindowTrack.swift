import EarshotCore
import EarshotSpeech
import Foundation

/// The speech of a recording as the diarizer sees it: stretches of speech found by the VAD network, and a
/// speaker vector for every 0.8 s window of them (every 0.4 s). Built a block at a time: only the open
/// stretch's samples are held, so memory is the vectors' (1 KB per 0.4 s of speech) however long the file.
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
    private(set) var windows: [Window] = []

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
    }

    private let settings: Settings
    private let vad: SpeechProbabilities
    private let encoder: SpeakerEncoder
    private let rate = Double(SpeakerEncoder.sampleRate)
    private var stream = SpeechProbabilities.StreamState()
    /// Samples from `bufferStart` on: the open stretch (or the last frames) and what is not yet scored.
    private var buffer: [Float] = []
    private var bufferStart = 0
    private var scored = 0
    /// The open stretch: its first speech frame, the last frame above `offset`.
    private var openStart: Int?
    private var lastVoiced = 0

    init(vad: SpeechProbabilities, encoder: SpeakerEncoder, settings: Settings = Settings()) {
        self.vad = vad
        self.encoder = encoder
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
        let vectors = try encoder.windowEmbeddings(samples)
        let region = regions.count
        regions.append(Region(start: Double(start) / rate, end: Double(end) / rate))
        let hop = Double(SpeakerEncoder.strideFrames) / 100, length = Double(SpeakerEncoder.windowFrames) / 100
        for (k, vector) in vectors.enumerated() {
            let from = Double(start) / rate + Double(k) * hop
            windows.append(Window(region: region, start: from, end: min(Double(end) / rate, from + length), vector: vector))
        }
    }
}
