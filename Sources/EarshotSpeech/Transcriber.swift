import EarshotCore
import Foundation

/// Speech to text, the one door to it: recordings of any length and format, and live audio with partial
/// results. An actor, so one instance can be shared by any number of tasks; its calls run one at a time on
/// the loaded Whisper (`Transcriber.shared` gives every caller in the process the same loaded model).
///
///     let transcriber = try Transcriber.shared()
///     let transcript = try await transcriber.transcribe(file: "meeting.m4a")
///     print(transcript.text)
public actor Transcriber {
    /// Which Whisper, on how many threads, in which language, and how it decodes.
    public struct Configuration: Sendable, Codable, Hashable {
        public var model: WhisperModel
        public var threads: Int
        /// A Whisper language code for the multilingual model, or "auto" to detect it.
        public var language: String
        /// Transcribe, or translate into English (the multilingual model).
        public var task: WhisperTask
        /// 1 decodes greedily (fastest); 5 searches five hypotheses (more accurate, slower).
        public var beamSize: Int
        /// Text Whisper reads before the audio: names and spellings to follow, the style to write in.
        public var prompt: String?
        /// Words to favour (given to Whisper like a prompt).
        public var hotwords: String?
        /// Every word with its time in each segment.
        public var words: Bool
        /// The first sampling temperature (0: the likeliest text); higher ones follow when the text loops.
        public var temperature: Double
        /// Greedy decoding reads a window again by beam search of 5 where Whisper was unsure of its text, on
        /// average or of one word (`SpeechRecognizer.Decoding.readsAgain`): most of beam search's accuracy for a
        /// few percent more time. false: greedy only.
        public var secondLook: Bool

        public init(model: WhisperModel = .default, threads: Int = SpeechRecognizer.defaultThreadCount, language: String = "en",
                    task: WhisperTask = .transcribe, beamSize: Int = 1, prompt: String? = nil, hotwords: String? = nil,
                    words: Bool = false, temperature: Double = 0, secondLook: Bool = true) {
            self.model = model
            self.threads = threads
            self.language = language
            self.task = task
            self.beamSize = beamSize
            self.prompt = prompt
            self.hotwords = hotwords
            self.words = words
            self.temperature = temperature
            self.secondLook = secondLook
        }

        /// A configuration saved before `secondLook` existed reads as one with it on (the default).
        public init(from decoder: any Decoder) throws {
            let c = try decoder.container(keyedBy: CodingKeys.self)
            self.init(model: try c.decode(WhisperModel.self, forKey: .model), threads: try c.decode(Int.self, forKey: .threads),
                      language: try c.decode(String.self, forKey: .language), task: try c.decode(WhisperTask.self, forKey: .task),
                      beamSize: try c.decode(Int.self, forKey: .beamSize), prompt: try c.decodeIfPresent(String.self, forKey: .prompt),
                      hotwords: try c.decodeIfPresent(String.self, forKey: .hotwords), words: try c.decode(Bool.self, forKey: .words),
                      temperature: try c.decode(Double.self, forKey: .temperature),
                      secondLook: try c.decodeIfPresent(Bool.self, forKey: .secondLook) ?? true)
        }

        /// What each window is decoded with.
        public var decoding: SpeechRecognizer.Decoding {
            var decoding = SpeechRecognizer.Decoding(language: language, task: task, beamSize: max(1, beamSize), prompt: prompt,
                                                     hotwords: hotwords, words: words,
                                                     temperatures: SpeechRecognizer.Decoding.temperatures(from: min(max(temperature, 0), 1)))
            if !secondLook { decoding.unsureBeamSize = 1 }
            return decoding
        }
    }

    public nonisolated let configuration: Configuration
    /// Whisper runs for seconds at a time: on a queue of its own, not on the shared cooperative threads.
    private let executor = DispatchQueueExecutor(label: "earshot.transcriber")
    public nonisolated var unownedExecutor: UnownedSerialExecutor { executor.asUnownedSerialExecutor() }
    /// The loaded Whisper, shared with every transcriber of the same model and thread count in the process.
    private let recognizer: SpeechRecognizer
    /// How many windows of a recording are read at once, each on its own thread of `recognizer`.
    private let windowsAtOnce: Int
    /// Whether this transcriber's calls to `recognizer` do not take turns with other callers' (lanes, and windows
    /// read at once, which each run on a share of the threads).
    private let readsAlongside: Bool
    /// This transcriber's language and task, given to Whisper on each call.
    private let decoding: SpeechRecognizer.Decoding
    private let detector: VoiceActivityDetector
    private let store: ModelStore
    /// How recordings are cut into windows for Whisper: speech regions merged up to 30 s, cut at pauses.
    private let segmenter = SpeechSegmenter.windows

    /// Loads Whisper and the voice-activity detector (about half a second for base).
    ///
    /// - Parameter windowsAtOnce: how many of a recording's windows (up to 30 s each) are read at once, each on an
    ///   equal share of `configuration.threads` (at least one thread each), all on one loaded Whisper. A window's
    ///   decoding steps cannot keep two threads busy, so on two cores a long recording read two windows at once, one
    ///   thread each, took about 30% less time (base: 8 minutes and 2 hours), with the same text; each window in
    ///   progress holds its own work (base: 50–140 MB more at the peak). A recording of one window is then read on
    ///   fewer threads: choose it for long recordings. 1 (the default) reads one window at a time on all the threads.
    public init(_ configuration: Configuration = Configuration(), store: ModelStore = ModelStore(), windowsAtOnce: Int = 1) throws {
        try self.init(configuration, store: store, floatReference: false, windowsAtOnce: windowsAtOnce)
    }

    /// - Parameter floatReference: Whisper from setup's float conversion (tests compare it with the shipped one).
    /// - Parameter alongside: whether this transcriber is one of several lanes sharing one loaded Whisper (`lanes`).
    init(_ configuration: Configuration, store: ModelStore, floatReference: Bool, windowsAtOnce: Int = 1, alongside: Bool = false) throws {
        self.configuration = configuration
        self.store = store
        decoding = configuration.decoding
        try SpeechRecognizer.check(decoding, for: configuration.model)  // before loading anything
        let windowsAtOnce = max(1, windowsAtOnce)
        self.windowsAtOnce = windowsAtOnce
        readsAlongside = alongside || windowsAtOnce > 1
        recognizer = try SpeechRecognizer.shared(model: configuration.model, threads: max(1, configuration.threads / windowsAtOnce),
                                                 store: store, floatReference: floatReference)
        detector = try VoiceActivityDetector(settings: .files, store: store)
    }

    /// Transcribers for reading several recordings at once: `count` of them, each on an equal share of
    /// `configuration.threads` (at least one thread each), all on one loaded Whisper that they call without taking
    /// turns. Use one per task, each task taking the next recording as it finishes one. A decoding step of one window
    /// is too small to keep two threads busy, so on two cores two recordings read at once, one thread each, took a
    /// fifth to a quarter less time than one after another on both threads (base, 40 short files), with the same text:
    /// Whisper's results do not depend on its thread count. Each recording in progress holds its own work.
    public static func lanes(_ configuration: Configuration = Configuration(), count: Int,
                             store: ModelStore = ModelStore()) throws -> [Transcriber] {
        let count = max(1, count)
        var each = configuration
        each.threads = max(1, configuration.threads / count)
        return try (0..<count).map { _ in try Transcriber(each, store: store, floatReference: false, alongside: count > 1) }
    }

    private struct Key: Hashable, Sendable { let configuration: Configuration; let home: URL; var windowsAtOnce = 1 }
    /// Transcribers are light (the loaded Whisper is shared per model and thread count, whatever the language):
    /// the 16 most recently used configurations are kept.
    private static let instances = SharedInstances<Key, Transcriber>(capacity: 16)

    /// The process's transcriber for `configuration`, made on first use; its Whisper is loaded once per model and
    /// thread count (`SpeechRecognizer.shared`), so another language or task loads nothing again. `windowsAtOnce`
    /// above 1 gives a shared transcriber that reads that many of a recording's windows at once, on a Whisper loaded
    /// with its share of the threads (a second copy, loaded when the first long recording comes): choose it per
    /// recording with `windowsAtOnce(forSeconds:threads:)` or `windowsAtOnce(forFile:threads:)`.
    public static func shared(_ configuration: Configuration = Configuration(), store: ModelStore = ModelStore(),
                              windowsAtOnce: Int = 1) throws -> Transcriber {
        let windows = max(1, windowsAtOnce)
        return try instances.instance(for: Key(configuration: configuration, home: store.home, windowsAtOnce: windows)) {
            try Transcriber(configuration, store: store, windowsAtOnce: windows)
        }
    }

    /// How many of a recording's windows to read at once on `threads`: one per thread, unless it is no longer than one
    /// window (then one window on all the threads reads it sooner); one per thread when its length is unknown.
    public static func windowsAtOnce(forSeconds seconds: Double?, threads: Int) -> Int {
        if let seconds, seconds <= SpeechRecognizer.maxSeconds { return 1 }
        return max(1, threads)
    }

    /// `windowsAtOnce(forSeconds:threads:)` for a file, by the length its header gives. A file that cannot be opened
    /// gets 1: it fails where it is read, with its reason; standard input ("-") is not opened twice.
    public static func windowsAtOnce(forFile path: String, threads: Int) -> Int {
        guard path != "-" else { return max(1, threads) }
        guard let stream = try? AudioFileStream(path: path, sampleRate: SpeechRecognizer.sampleRate) else { return 1 }
        return windowsAtOnce(forSeconds: stream.expectedDuration, threads: threads)
    }

    /// Transcribes an audio file in any format (or standard input, "-"), read a block at a time: memory
    /// stays the same however long the recording. `source` names it in the transcript (the path if nil).
    /// - Parameter progress: called with the fraction done, when the file says how long it is.
    /// - Parameter segments: called with each window's segments as soon as they are read (recording times), in
    ///   order: what a streamed answer sends while the rest is still being read.
    public func transcribe(file path: String, source: String? = nil,
                           progress: (@Sendable (Double) -> Void)? = nil,
                           segments: (@Sendable ([TranscriptSegment]) -> Void)? = nil) throws -> Transcript {
        let stream = try AudioFileStream(path: path, sampleRate: SpeechRecognizer.sampleRate)
        let expected = stream.expectedDuration
        return try transcribe(source: source ?? path, next: stream.read, segments: segments) { seconds in
            if let expected, let progress { progress(min(1, seconds / max(expected, 1e-9))) }
        }
    }

    /// Transcribes audio already in memory, at any sample rate. `source` names it in the transcript.
    /// - Parameter line: text said just before this audio (a live stream's previous turn): its first window is read
    ///   with it as Whisper's prompt, after the configured prompt, the way openai-whisper reads each window of a long
    ///   recording after the text of the one before (a file's windows are read apart: docs/speech.md).
    public func transcribe(_ audio: AudioBuffer, source: String, after line: String? = nil,
                           progress: (@Sendable (Double) -> Void)? = nil) throws -> Transcript {
        let audio = audio.sampleRate == SpeechRecognizer.sampleRate
            ? audio : try Resampler.resample(audio, to: SpeechRecognizer.sampleRate)
        return try transcribe(source: source, after: line, next: audio.blockReader(size: SpeechRecognizer.sampleRate)) { seconds in
            progress?(min(1, seconds / max(audio.duration, 1e-9)))
        }
    }

    /// Finds the pieces as the blocks come (`next` returns nil at the end) and reads each with Whisper;
    /// `progress` hears the seconds of audio taken in so far. A cancelled task stops before its next window
    /// (`CancellationError`).
    private func transcribe(source: String, after line: String? = nil, next: () throws -> [Float]?,
                            segments segmentsRead: (([TranscriptSegment]) -> Void)? = nil,
                            progress: (Double) -> Void) throws -> Transcript {
        let rate = Double(SpeechRecognizer.sampleRate)
        let pieces = PieceStream(segmenter: segmenter, detector: detector, sampleRate: SpeechRecognizer.sampleRate)
        var segments: [TranscriptSegment] = []
        var language: String?, languageProbability: Double?
        // windows go to the lanes as the pieces are found, and are taken back in their order
        let (recognizer, alongside) = (recognizer, readsAlongside)
        let inFlight = WindowsInFlight<PieceStream.Ready>(lanes: windowsAtOnce) { samples, decoding in
            alongside ? try recognizer.transcribeAlongside(window: samples, as: decoding)
                : try recognizer.transcribe(window: samples, as: decoding)
        }
        var firstWindow: SpeechRecognizer.Decoding? = PreviousLine.decoding(decoding, after: line)  // the rest are read with the configured prompt alone
        defer { inFlight.finishAll() }  // after an error, nothing is left running on the lanes
        func take() throws {
            guard let (item, result) = inFlight.next() else { return }
            let window = try result.get()
            ProcessMemory.releaseFreeHeap()  // or hours of windows leave the heap full of holes
            progress(Double(pieces.length) / rate)
            if language == nil && !window.segments.isEmpty {
                (language, languageProbability) = (window.language, window.languageProbability)
            }
            // window times (never past the window's audio) to the recording's
            let read = window.segments.map { $0.shifted(by: Double(item.piece.read.start) / rate) }
            segments += read
            if !read.isEmpty { segmentsRead?(read) }
        }
        func read(_ ready: [PieceStream.Ready]) throws {
            for item in ready {
                // a transcription whose task was cancelled (its client left, its reading is no longer wanted) stops
                // before its next window; one still waiting for the transcriber stops before its first
                try Task.checkCancellation()
                while inFlight.isFull { try take() }
                inFlight.submit(item, samples: item.samples, as: firstWindow ?? decoding)
                firstWindow = nil
                // one lane: each window is read before the next is looked for, the VAD not competing for the threads
                if windowsAtOnce == 1 { try take() }
            }
        }
        while let block = try next() {
            try read(pieces.append(block))
            progress(Double(pieces.length) / rate)
        }
        try read(pieces.finish())
        while !inFlight.isEmpty { try take() }
        // without speech nothing was detected: "auto" is no language (an English-only model's is English)
        let asked = decoding.language != "auto" ? decoding.language : recognizer.model.isMultilingual ? nil : "en"
        var transcript = Transcript(source: source, model: recognizer.model.rawValue, duration: Double(pieces.length) / rate,
                                    segments: segments, language: language ?? asked)
        transcript.languageProbability = languageProbability
        return transcript
    }

    /// Live transcription of `source`: partial text about once a second while someone speaks, and a final
    /// segment when they pause. The stream ends with the source; stop listening to stop the source.
    public nonisolated func live(_ source: any AudioSource, settings: LiveTranscription.Settings = .init())
        -> AsyncThrowingStream<LiveEvent, Error> {
        producedStream { emit in try await self.runLive(source, settings: settings, emit: emit) }
    }

    private func runLive(_ source: any AudioSource, settings: LiveTranscription.Settings,
                         emit: @Sendable (LiveEvent) -> Void) async throws {
        // each stream has its own detector state; the recognizer is shared, one piece at a time
        let live = LiveTranscription(settings: settings, detector: try VoiceActivityDetector(store: store))
        // partial text is re-read about once a second: decoded without timestamps, on a short input, without the
        // second look by beam search, which would delay the partial text of an unclear piece, and without the
        // fallback temperatures (a partial of a lone "Quote," looped at each, 5 s in all): a partial that loops is
        // not shown, and the final reads the utterance again
        var partials = decoding
        partials.timestamps = false
        partials.words = false
        partials.unsureBeamSize = 1
        partials.temperatures = [partials.temperatures.first ?? 0]
        // an utterance that has ended is read once, as a window of a file is: decoded the quick way, a lone "Quote,"
        // became "quote" 220 times (49 s of fallbacks), and the 173 read utterances, spoken live, had 17.3% WER
        // against 10.1% (BENCHMARKS.md, Live transcription)
        var finals = decoding
        finals.words = false
        try await live.run(source, recognizer: recognizer, partials: partials, finals: finals, emit: emit)
    }
}
