import EarshotCore
import Foundation

/// Whisper, decoded by Earshot's own loop (`WhisperDecoder`): one call turns a window of up to 30 s of 16 kHz
/// speech into timed segments. Loading takes a moment; reuse one recognizer for many files (`shared` keeps one
/// per model and thread count). What is decoded (language, task, beam, prompt, word times) can change from call
/// to call without loading anything again. Calls from several threads take turns.
public final class SpeechRecognizer: @unchecked Sendable {
    // @unchecked: the decoder is immutable and safe to call from several threads; `lock` makes ordinary callers take
    // turns (one window at a time per model keeps two callers from splitting the cores between them).

    /// How one call decodes.
    public struct Decoding: Sendable, Hashable, Codable {
        /// A language code, or "auto" to detect it (multilingual models).
        public var language: String
        public var task: WhisperTask
        /// 1 decodes greedily; more keeps that many hypotheses (beam search; 5 is the usual choice).
        public var beamSize: Int
        /// Text that comes before the audio: names and spellings to follow, or the previous sentences.
        public var prompt: String?
        /// Words to favour, given to Whisper like a prompt.
        public var hotwords: String?
        /// Whether each segment lists its words with their times.
        public var words: Bool
        /// Timestamp tokens: a window of Whisper's full 30 s yields several timed segments. Without them (live
        /// pieces), a shorter input is read faster and gives one segment.
        public var timestamps: Bool
        /// Temperatures tried in order: the next when the text loops (compression ratio above the threshold) or
        /// is improbable (average log-probability below the threshold) and is not silence.
        public var temperatures: [Double]
        /// Hypotheses sampled at each temperature above zero.
        public var bestOf: Int
        public var compressionRatioThreshold: Double
        public var logProbThreshold: Double
        /// A window whose no-speech probability is above this and whose text is improbable is silence.
        public var noSpeechThreshold: Double
        /// Greedy decoding's second look: a window whose greedy text Whisper was unsure of (`readsAgain`) and that
        /// may hold speech (no-speech probability at most `noSpeechThreshold`) is read again by beam search of this
        /// width, and that reading is kept (1: never). On 173 read-speech utterances, an average below -0.5 sent 16 of
        /// base's windows to beam 5 and took WER from 8.47% to 7.90% for 3% more time (beam 5 everywhere: 7.73%, for
        /// 25% more); tiny.en 9.94% → 9.50% for 6% more. A word below -2 as well: 234 → 228 errors (base) and 292
        /// → 282 (tiny.en) for 3% more time (BENCHMARKS.md).
        public var unsureBeamSize: Int
        /// Unsure on average: the greedy text's average log-probability per token is below this.
        public var unsureBelow: Double
        /// Unsure of one word: a text token (not a timestamp or the end) was chosen with a log-probability below
        /// this (-2: under 13.5%), however sure the rest was: a near tie between two words.
        public var unsureTokenBelow: Double

        public init(language: String = "en", task: WhisperTask = .transcribe, beamSize: Int = 1, prompt: String? = nil,
                    hotwords: String? = nil, words: Bool = false, timestamps: Bool = true, temperatures: [Double] = [0, 0.2, 0.4, 0.6, 0.8, 1.0],
                    bestOf: Int = 5, compressionRatioThreshold: Double = 2.4, logProbThreshold: Double = -1.0,
                    noSpeechThreshold: Double = 0.6, unsureBeamSize: Int = 5, unsureBelow: Double = -0.5,
                    unsureTokenBelow: Double = -2) {
            self.language = language
            self.task = task
            self.beamSize = beamSize
            self.prompt = prompt
            self.hotwords = hotwords
            self.words = words
            self.timestamps = timestamps
            self.temperatures = temperatures
            self.bestOf = bestOf
            self.compressionRatioThreshold = compressionRatioThreshold
            self.logProbThreshold = logProbThreshold
            self.noSpeechThreshold = noSpeechThreshold
            self.unsureBeamSize = unsureBeamSize
            self.unsureBelow = unsureBelow
            self.unsureTokenBelow = unsureTokenBelow
        }

        /// Whether greedy decoding's second look reads a window again, given its greedy text's average
        /// log-probability per token and the lowest of its text tokens' (its no-speech probability aside).
        public func readsAgain(averageLogProbability: Double, lowestTokenLogProbability: Double) -> Bool {
            beamSize == 1 && unsureBeamSize > 1
                && (averageLogProbability < unsureBelow || lowestTokenLogProbability < unsureTokenBelow)
        }

        /// The temperatures for a first `temperature` (OpenAI's API parameter): that one, then the fallbacks above it.
        public static func temperatures(from temperature: Double) -> [Double] {
            [temperature] + stride(from: 0.2, through: 1.0, by: 0.2).filter { $0 > temperature + 1e-9 }
        }
    }

    /// A window's segments (times from its start) and the language Whisper wrote in.
    public struct WindowResult: Sendable {
        public var segments: [TranscriptSegment]
        public var language: String
        public var languageProbability: Double?
    }

    public static let sampleRate = 16_000
    /// Whisper's window: longer audio must be segmented first.
    public static let maxSeconds = 30.0

    public let model: WhisperModel
    private let decoder: WhisperDecoder
    private let lock = NSLock()
    public let defaultDecoding: Decoding

    private struct Key: Hashable, Sendable { let model: WhisperModel; let threads: Int; let home: URL; let floatReference: Bool }
    /// At most three loaded Whisper models per process (tiny.en, base and one more); the least recently used goes.
    private static let loaded = SharedInstances<Key, SpeechRecognizer>(capacity: 3)

    /// The process's recognizer for `model` on `threads`, loaded on first use: every language and task share it.
    public static func shared(model: WhisperModel, threads: Int = defaultThreadCount, store: ModelStore = ModelStore()) throws -> SpeechRecognizer {
        try shared(model: model, threads: threads, store: store, floatReference: false)
    }

    static func shared(model: WhisperModel, threads: Int, store: ModelStore, floatReference: Bool) throws -> SpeechRecognizer {
        try loaded.instance(for: Key(model: model, threads: max(1, threads), home: store.home, floatReference: floatReference)) {
            try SpeechRecognizer(model: model, threads: threads, language: "en", store: store, floatReference: floatReference)
        }
    }

    static var loadedCount: Int { loaded.count }

    /// - Parameter language: a Whisper language code for the multilingual model, or "auto" to detect it.
    /// - Parameter task: `.translate` writes English whatever the language spoken (multilingual models only).
    public convenience init(model: WhisperModel = .default, threads: Int = defaultThreadCount, language: String = "en",
                            task: WhisperTask = .transcribe, store: ModelStore = ModelStore()) throws {
        try self.init(model: model, threads: threads, language: language, task: task, store: store, floatReference: false)
    }

    /// - Parameter floatReference: run setup's float conversion instead of the shipped models (tests).
    init(model: WhisperModel, threads: Int, language: String, task: WhisperTask = .transcribe, store: ModelStore,
         floatReference: Bool) throws {
        try model.check(language: language)
        if task == .translate && !model.isMultilingual { throw SpeechError.cannotTranslate(model: model) }
        let files = try model.files(in: store, floatReference: floatReference)
        do {
            decoder = try WhisperDecoder(files: files, threads: max(1, threads))
        } catch let error as ONNXRuntimeError {
            throw ModelError.failedToLoad(model: "whisper \(model.rawValue)", detail: error.localizedDescription)
        }
        self.model = model
        defaultDecoding = Decoding(language: language, task: task)
    }

    /// Checks that this model can decode `decoding` (a known language; translation needs a multilingual model).
    public static func check(_ decoding: Decoding, for model: WhisperModel) throws {
        try model.check(language: decoding.language)
        if decoding.task == .translate && !model.isMultilingual { throw SpeechError.cannotTranslate(model: model) }
    }

    /// Transcribes up to 30 s of 16 kHz mono audio, in the language and task given at load.
    public func recognize(_ samples: ArraySlice<Float>) throws -> String {
        try recognize(samples, as: defaultDecoding)
    }

    /// The text of up to 30 s of 16 kHz mono audio decoded as `decoding` (checked with `check` beforehand).
    /// A failure of the runtime is thrown, not turned into silence.
    public func recognize(_ samples: ArraySlice<Float>, as decoding: Decoding) throws -> String {
        try transcribe(window: samples, as: decoding).segments.map(\.text).joined(separator: " ")
    }

    /// Timed segments of up to 30 s of 16 kHz mono audio (times from the window's start).
    public func transcribe(window samples: ArraySlice<Float>, as decoding: Decoding) throws -> WindowResult {
        lock.lock()
        defer { lock.unlock() }
        return try transcribeAlongside(window: samples, as: decoding)
    }

    /// `transcribe(window:as:)` without taking turns: for lanes that share this model, each calling it on a thread of
    /// its own (`Transcriber.lanes`, `Transcriber(windowsAtOnce:)`). Its ONNX Runtime sessions are safe to run from
    /// several threads at once and each call keeps its own state, so the lanes share the loaded weights and each run
    /// holds only its own work (base, 40 files on two lanes: 475–479 MB peak against 676–680 MB with a copy per lane,
    /// in the same time).
    func transcribeAlongside(window samples: ArraySlice<Float>, as decoding: Decoding) throws -> WindowResult {
        let result = try decoder.decode(samples.suffix(Int(Self.maxSeconds) * Self.sampleRate), as: decoding)
        return WindowResult(segments: result.segments, language: result.language, languageProbability: result.languageProbability)
    }

    public static var defaultThreadCount: Int { min(4, ProcessInfo.processInfo.activeProcessorCount) }
}
