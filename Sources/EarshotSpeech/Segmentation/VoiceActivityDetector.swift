internal import CSherpaOnnx
import EarshotCore
import Foundation

/// A stretch of speech found by the detector, in samples from the start of the stream.
public struct SpeechRegion: Sendable, Equatable {
    public var start: Int
    public var end: Int
    public init(start: Int, end: Int) { self.start = start; self.end = end }
}

/// Silero VAD through sherpa-onnx: feed audio in order, collect the speech regions it closes.
///
/// It hears one window (`window`, 32 ms) per sherpa-onnx call, whatever the sizes of the pieces it is given, so its
/// regions depend on the audio alone. sherpa-onnx judges the windows of one call together and dates a region that
/// begins in a call from the call's end: fed half a second at a time, regions began up to 0.45 s after the speech,
/// and a short word said alone could end before its region began (trimmed to its sound, such a region was dropped
/// with the word). A live client sending a second at a time would have lost first words the same way.
public final class VoiceActivityDetector {
    public struct Settings: Sendable {
        public var threshold: Float = 0.5
        /// Silence that ends a region; also the floor of the live final-line delay.
        public var minSilence: Float = 0.5
        public var minSpeech: Float = 0.25
        /// Longer speech is split (Whisper reads at most 30 s).
        public var maxSpeech: Float = 20
        public init() {}

        /// Files, read in windows of up to 30 s: Whisper reads the pauses inside a window anyway, so the detector
        /// only has to find where speech is, and a lower threshold (WhisperX's offset, 0.363) keeps short words
        /// said alone ("the", "kids") that 0.5 dropped; Whisper's own no-speech test drops windows of noise.
        public static let files: Settings = {
            var settings = Settings()
            settings.threshold = 0.35
            settings.minSpeech = 0.1
            return settings
        }()
    }

    /// Samples silero reads per step (32 ms at 16 kHz).
    public static let window = 512

    private let vad: OpaquePointer
    private let sampleRate = SpeechRecognizer.sampleRate
    /// Samples given but not yet heard: less than a window, waiting for the next call.
    private var pending: [Float] = []
    /// Samples of the stream heard since the start (or the last `reset`): whole windows, and after `flush` the rest.
    public private(set) var heard = 0

    public init(settings: Settings = Settings(), store: ModelStore = ModelStore()) throws {
        let strings = CStringPool()
        var config = SherpaOnnxVadModelConfig()
        config.silero_vad.model = strings(try VADModel.path(in: store))
        config.silero_vad.threshold = settings.threshold
        config.silero_vad.min_silence_duration = settings.minSilence
        config.silero_vad.min_speech_duration = settings.minSpeech
        config.silero_vad.max_speech_duration = settings.maxSpeech
        config.silero_vad.window_size = Int32(Self.window)
        config.sample_rate = Int32(sampleRate)
        config.num_threads = 1
        config.provider = strings("cpu")
        guard let handle = SherpaOnnxCreateVoiceActivityDetector(&config, 60) else {
            throw ModelError.failedToLoad(model: "silero VAD", detail: "sherpa-onnx rejected the model file")
        }
        vad = handle
    }

    deinit { SherpaOnnxDestroyVoiceActivityDetector(vad) }

    /// Feeds the next samples of the stream; returns the regions that ended. `eachWindow`, when given, is told after
    /// every window heard whether speech is going on (`heard` counts the samples up to there).
    public func accept(_ samples: ArraySlice<Float>, eachWindow: ((_ speaking: Bool) -> Void)? = nil) -> [SpeechRegion] {
        pending += samples
        var regions: [SpeechRegion] = []
        var offset = 0
        while pending.count - offset >= Self.window {
            pending.withUnsafeBufferPointer {
                SherpaOnnxVoiceActivityDetectorAcceptWaveform(vad, $0.baseAddress! + offset, Int32(Self.window))
            }
            offset += Self.window
            heard += Self.window
            regions += popRegions()
            eachWindow?(isSpeaking)
        }
        pending.removeFirst(offset)
        return regions
    }

    /// Ends the stream: the samples short of a window are heard with silence after them, and a region still open
    /// is closed.
    public func flush() -> [SpeechRegion] {
        var regions: [SpeechRegion] = []
        if !pending.isEmpty {
            let last = pending.count
            regions = accept([Float](repeating: 0, count: Self.window - last)[...])
            heard -= Self.window - last  // the silence is not the stream's
        }
        SherpaOnnxVoiceActivityDetectorFlush(vad)
        return regions + popRegions()
    }

    /// Whether speech is going on at the end of what was fed.
    public var isSpeaking: Bool { SherpaOnnxVoiceActivityDetectorDetected(vad) != 0 }

    public func reset() {
        SherpaOnnxVoiceActivityDetectorReset(vad)
        pending = []
        heard = 0
    }

    private func popRegions() -> [SpeechRegion] {
        var regions: [SpeechRegion] = []
        while SherpaOnnxVoiceActivityDetectorEmpty(vad) == 0 {
            if let segment = SherpaOnnxVoiceActivityDetectorFront(vad) {
                let start = Int(segment.pointee.start)
                regions.append(SpeechRegion(start: start, end: start + Int(segment.pointee.n)))
                SherpaOnnxDestroySpeechSegment(segment)
            }
            SherpaOnnxVoiceActivityDetectorPop(vad)
        }
        return regions
    }
}
