internal import CSherpaOnnx
import EarshotCore
import Foundation

/// Whisper through sherpa-onnx's offline recognizer: one call turns ≤ 30 s of 16 kHz speech into text.
/// Loading takes a moment; reuse one recognizer for many files (`shared` keeps one per model and thread count).
/// What is loaded (model, threads) is fixed; what is decoded (language, task) can change from call to call,
/// so a new language never loads the weights again. Calls from several threads take turns.
public final class SpeechRecognizer: @unchecked Sendable {
    // @unchecked: `config`, `current` and the native recognizer are only touched under `lock`.

    /// What one call decodes: the language (a code, or "auto" to detect it) and transcribe or translate.
    public struct Decoding: Sendable, Hashable, Codable {
        public var language: String
        public var task: WhisperTask
        public init(language: String = "en", task: WhisperTask = .transcribe) { self.language = language; self.task = task }
    }

    public static let sampleRate = 16_000
    /// Whisper's window: longer audio must be segmented first.
    public static let maxSeconds = 30.0

    public let model: WhisperModel
    private let recognizer: OpaquePointer
    private var config: SherpaOnnxOfflineRecognizerConfig
    private let strings: CStringPool  // the C strings `config` points at
    private let lock = NSLock()
    /// The decoding `config` holds now; `defaultDecoding` is the one given at load.
    private var current: Decoding
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
        let strings = CStringPool()
        var config = SherpaOnnxOfflineRecognizerConfig()
        config.feat_config.sample_rate = Int32(Self.sampleRate)
        config.feat_config.feature_dim = 80
        config.model_config.whisper.encoder = strings(files.encoder)
        config.model_config.whisper.decoder = strings(files.decoder)
        config.model_config.whisper.language = strings(model.isMultilingual && language != "auto" ? language : "")
        config.model_config.whisper.task = strings(task.rawValue)
        config.model_config.whisper.tail_paddings = Int32(Self.tailPaddingFrames)
        config.model_config.tokens = strings(files.tokens)
        config.model_config.num_threads = Int32(max(1, threads))
        config.model_config.provider = strings("cpu")
        config.decoding_method = strings("greedy_search")
        guard let handle = SherpaOnnxCreateOfflineRecognizer(&config) else {
            throw ModelError.failedToLoad(model: "whisper \(model.rawValue)", detail: "sherpa-onnx rejected the model files")
        }
        recognizer = handle
        self.model = model
        self.config = config
        self.strings = strings
        current = Decoding(language: language, task: task)
        defaultDecoding = current
    }

    /// Checks that this model can decode `decoding` (a known language; translation needs a multilingual model).
    public static func check(_ decoding: Decoding, for model: WhisperModel) throws {
        try model.check(language: decoding.language)
        if decoding.task == .translate && !model.isMultilingual { throw SpeechError.cannotTranslate(model: model) }
    }

    deinit { SherpaOnnxDestroyOfflineRecognizer(recognizer) }

    /// Transcribes up to 30 s of 16 kHz mono audio, in the language and task given at load.
    public func recognize(_ samples: ArraySlice<Float>) -> String {
        recognize(samples, as: defaultDecoding)
    }

    /// Transcribes up to 30 s of 16 kHz mono audio as `decoding` says (checked with `check` beforehand).
    public func recognize(_ samples: ArraySlice<Float>, as decoding: Decoding) -> String {
        lock.lock()
        defer { lock.unlock() }
        if decoding != current {
            config.model_config.whisper.language = strings(model.isMultilingual && decoding.language != "auto" ? decoding.language : "")
            config.model_config.whisper.task = strings(decoding.task.rawValue)
            SherpaOnnxOfflineRecognizerSetConfig(recognizer, &config)
            current = decoding
        }
        let text = decode(samples)
        guard RepetitionCheck.looksLikeALoop(text) else { return text }
        // Whisper sometimes repeats itself when little silence follows the speech; read the piece again
        // with sherpa-onnx's longer default padding (like Whisper's own fallback on repetitive output)
        config.model_config.whisper.tail_paddings = Int32(Self.fallbackTailPaddingFrames)
        SherpaOnnxOfflineRecognizerSetConfig(recognizer, &config)
        defer {
            config.model_config.whisper.tail_paddings = Int32(Self.tailPaddingFrames)
            SherpaOnnxOfflineRecognizerSetConfig(recognizer, &config)
        }
        return decode(samples)
    }

    private func decode(_ samples: ArraySlice<Float>) -> String {
        guard !samples.isEmpty else { return "" }
        guard let stream = SherpaOnnxCreateOfflineStream(recognizer) else { return "" }
        defer { SherpaOnnxDestroyOfflineStream(stream) }
        samples.withUnsafeBufferPointer {
            SherpaOnnxAcceptWaveformOffline(stream, Int32(Self.sampleRate), $0.baseAddress, Int32($0.count))
        }
        SherpaOnnxDecodeOfflineStream(recognizer, stream)
        guard let result = SherpaOnnxGetOfflineStreamResult(stream) else { return "" }
        defer { SherpaOnnxDestroyOfflineRecognizerResult(result) }
        guard let text = result.pointee.text else { return "" }
        return String(cString: text).trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// Silent feature frames sherpa-onnx appends to each piece before the encoder (its default is 1000,
    /// 10 s). 500 was measured as accurate and 15–20% faster; 200 cost 1.5 WER points (docs/speech.md).
    static let tailPaddingFrames = 500
    static let fallbackTailPaddingFrames = 1000

    public static var defaultThreadCount: Int { min(4, ProcessInfo.processInfo.activeProcessorCount) }
}
