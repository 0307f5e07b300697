import EarshotCore
import Foundation

/// Live audio cut into turns, the way OpenAI's Realtime API does it: with turn detection on, the speech detector
/// starts a turn when someone speaks and ends it after `silenceDuration` of quiet; with it off the caller ends each
/// turn (`commit`). Each turn is read by Whisper as a whole recording (the same reading `Transcriber.transcribe`
/// gives a file), with partial text about once a second while it goes on; the turn before, when it ended at most 30 s
/// earlier, is Whisper's prompt for the turn's reading, after any prompt of the transcriber's own (`PreviousLine`).
///
/// To answer soon after speech ends, a turn ended by silence is read up to `readQuiet` into its final quiet, and that
/// reading starts the moment the quiet gets there: by the time the quiet has lasted long enough to end the turn, its
/// text is usually ready (speech that resumes drops it). What is read depends on the audio alone, never on how busy
/// the machine is: when the early reading could not start, the same stretch is read at the end.
/// Partial readings run beside the stream, never in its way, and only one at a time in the whole process: with many
/// streams on one Whisper, the readings that end turns would otherwise wait behind everyone's partials.
///
/// One stream, one caller at a time; any number of these share one `Transcriber`.
public final class LiveTurns {
    /// When speech starts and stops (OpenAI's `server_vad`).
    public struct Detection: Sendable, Equatable, Codable {
        /// The speech probability (silero VAD, 0–1) a 32 ms frame needs to count as speech.
        public var threshold: Float
        /// Audio before the detected start that belongs to the turn, in seconds.
        public var prefixPadding: Double
        /// Quiet that ends a turn, in seconds.
        public var silenceDuration: Double

        public init(threshold: Float = 0.5, prefixPadding: Double = 0.3, silenceDuration: Double = 0.5) {
            self.threshold = threshold
            self.prefixPadding = prefixPadding
            self.silenceDuration = silenceDuration
        }
    }

    public struct Settings: Sendable, Equatable {
        /// nil: no turn detection, the caller commits.
        public var detection: Detection?
        /// Audio between partial readings of a turn that is going on, in seconds (0: none).
        public var partialInterval: Double
        /// The most audio one turn (or an uncommitted buffer) holds, in seconds: a turn that long is ended there,
        /// and without detection more audio is refused until a commit.
        public var maxTurn: Double

        public init(detection: Detection? = Detection(), partialInterval: Double = 1.0, maxTurn: Double = 300) {
            self.detection = detection
            self.partialInterval = partialInterval
            self.maxTurn = maxTurn
        }
    }

    public enum Event: Sendable, Equatable {
        /// Speech began; the turn's audio starts at `at` (seconds from the stream's start, prefix padding included).
        case speechStarted(turn: Int, at: Double)
        /// The quiet after speech lasted `silenceDuration`: the turn ends at `at`.
        case speechStopped(turn: Int, at: Double)
        /// The turn's audio is final (by detection or `commit`) and is being read.
        case committed(turn: Int)
        /// The text so far of a turn still going on (the next partial or the completion replaces it).
        case partial(turn: Int, text: String)
        /// The turn's text; `duration` is its audio in seconds.
        case completed(turn: Int, text: String, duration: Double)
    }

    public enum Failure: Error, LocalizedError, Equatable {
        case bufferFull(seconds: Double)
        public var errorDescription: String? {
            switch self {
            case let .bufferFull(seconds):
                return "the audio buffer already holds \(Int(seconds)) s, the most one turn may: commit (or clear) it before sending more"
            }
        }
    }

    public static let sampleRate = SpeechRecognizer.sampleRate
    /// Frames of speech in a row that start a turn (~0.1 s: a click is not a turn).
    static let framesToStart = 3
    /// How far into the quiet after speech a turn ended by silence is read (less when the silence that ends turns
    /// is shorter): Whisper reads better with some quiet after the last word.
    static let readQuiet = 0.25
    /// The shortest buffer a commit takes (OpenAI refuses less than 100 ms).
    public static let shortestCommit = 0.1

    public var settings: Settings {
        didSet { if settings.detection != oldValue.detection { restartDetection() } }
    }

    /// Who reads the turns: another one (another model, language or prompt) reads the next readings.
    public var transcriber: Transcriber
    private let probabilities: SpeechProbabilities
    private var stream = SpeechProbabilities.StreamState()
    /// Samples not yet scored (less than a frame).
    private var unscored: [Float] = []
    private var history = AudioHistory(keep: nil)
    /// Where the uncommitted audio begins (absolute sample index).
    private var bufferStart = 0
    private var scored = 0
    private var nextTurn = 1
    private var turn: (id: Int, start: Int)?
    private var speechRun = 0
    private var lastSpeech = 0
    private var nextPartial = 0
    /// The partial reading under way, and its turn.
    private var partial: (turn: Int, reading: Reading)?
    /// The speculative reading of the turn so far, and where its audio ends.
    private var guess: (end: Int, reading: Reading)?
    /// Where the turn going on is read to if its silence ends it: `readQuiet` into the quiet after its last speech
    /// (nil while speech goes on).
    private var readEnd: Int?
    /// A speculative reading dropped because speech resumed: no other starts until it has ended (a cancelled one
    /// that had not begun ends at once), so a turn full of short pauses does not queue reading after reading.
    private var dropped: Reading?
    /// The last turn's text, while it may prompt the next turn's reading.
    private var previous: PreviousLine?
    /// Partial readings under way in the process (at most `partialsAtOnce`).
    private static let partialsUnderWay = Locked(0)
    static let partialsAtOnce = 1

    public init(transcriber: Transcriber, settings: Settings = Settings(), store: ModelStore = ModelStore()) throws {
        self.transcriber = transcriber
        self.settings = settings
        probabilities = try SpeechProbabilities.shared(store: store)
    }

    deinit {
        guess?.reading.cancel()
        partial?.reading.cancel()
    }

    /// Seconds of audio taken in so far.
    public var duration: Double { Double(history.end) / Double(Self.sampleRate) }
    /// Seconds of audio not yet committed.
    public var uncommitted: Double { Double(history.end - bufferStart) / Double(Self.sampleRate) }
    /// Samples held in memory now (bounded by `maxTurn` plus a little).
    public var samplesHeld: Int { history.count + unscored.count }

    /// Takes the next 16 kHz samples; reports what they start, end and read, in order.
    public func append(_ samples: [Float], emit: (Event) -> Void) async throws {
        let limit = Int(settings.maxTurn * Double(Self.sampleRate))
        if settings.detection == nil, history.end - bufferStart + samples.count > limit {
            throw Failure.bufferFull(seconds: settings.maxTurn)
        }
        history.append(samples)
        guard let detection = settings.detection else { return }
        unscored += samples
        let frame = SpeechProbabilities.frameSamples
        let whole = unscored.count / frame * frame
        let scores = try probabilities.frames(unscored[0..<whole], continuing: &stream)
        unscored.removeFirst(whole)
        let rate = Double(Self.sampleRate)
        for score in scores {
            scored += frame
            if score >= detection.threshold {
                lastSpeech = scored
                speechRun += 1
                readEnd = nil
                if let pending = guess {  // speech again: the early reading is of no use
                    pending.reading.cancel()
                    dropped = pending.reading
                    guess = nil
                }
                if turn == nil, speechRun >= Self.framesToStart {
                    let start = max(bufferStart, scored - speechRun * frame - Int(detection.prefixPadding * rate))
                    turn = (nextTurn, start)
                    nextTurn += 1
                    nextPartial = scored + Int(settings.partialInterval * rate)
                    emit(.speechStarted(turn: turn!.id, at: Double(start) / rate))
                }
            } else {
                speechRun = 0
                guard let current = turn else { continue }
                let quiet = Double(scored - lastSpeech) / rate
                if quiet >= detection.silenceDuration {
                    emit(.speechStopped(turn: current.id, at: Double(scored) / rate))
                    try await finish(current, end: scored, readTo: readEnd ?? scored, emit: emit)
                } else if readEnd == nil, quiet >= min(Self.readQuiet, detection.silenceDuration - 0.032) {
                    readEnd = scored
                    // read now, beside the stream, unless a dropped reading is still in the transcriber's queue
                    if dropped?.hasEnded ?? true {
                        dropped = nil
                        guess = (scored, read(from: current.start, to: scored, prompted: true))
                    }
                }
            }
        }
        if let current = turn {
            if history.end - current.start >= limit {
                // a turn may not grow without bound: it ends here, and the next speech starts another
                emit(.speechStopped(turn: current.id, at: duration))
                try await finish(current, end: history.end, emit: emit)
            } else {
                reportPartial(of: current.id, emit: emit)
                if settings.partialInterval > 0, guess == nil, partial == nil, speechRun > 0, scored >= nextPartial, Self.claimPartial() {
                    partial = (current.id, read(from: current.start, to: scored) { Self.partialsUnderWay.withLock { $0 -= 1 } })
                    nextPartial = scored + Int(settings.partialInterval * rate)
                }
            }
        } else {
            // nothing to keep but what a turn's prefix may reach back to
            bufferStart = max(bufferStart, scored - Self.framesToStart * frame - Int(detection.prefixPadding * rate) - frame)
            history.forget(before: bufferStart)
        }
    }

    /// Ends the turn here (or, with nothing going on, makes the uncommitted audio a turn). False when there is
    /// less than `shortestCommit` of audio to commit.
    @discardableResult
    public func commit(emit: (Event) -> Void) async throws -> Bool {
        let start = turn?.start ?? bufferStart
        guard Double(history.end - start) / Double(Self.sampleRate) >= Self.shortestCommit else { return false }
        let current = turn ?? (nextTurn, start)
        if turn == nil { nextTurn += 1 }
        try await finish(current, end: history.end, emit: emit)
        return true
    }

    /// Drops the uncommitted audio and any turn going on (its speech-started was the last word about it).
    public func clear() {
        bufferStart = history.end
        history.forget(before: bufferStart)
        restartDetection()
    }

    private func restartDetection() {
        guess?.reading.cancel()
        guess = nil
        readEnd = nil
        partial?.reading.cancel()
        partial = nil
        turn = nil
        speechRun = 0
        stream = SpeechProbabilities.StreamState()
        unscored = []
        scored = history.end
        lastSpeech = scored
    }

    /// Ends the turn at `end`, reading its audio to `readTo` (the early reading when it read just that).
    private func finish(_ current: (id: Int, start: Int), end: Int, readTo: Int? = nil, emit: (Event) -> Void) async throws {
        emit(.committed(turn: current.id))
        let stop = readTo ?? end
        let reading = guess.flatMap { $0.end == stop ? $0.reading : nil } ?? read(from: current.start, to: stop, prompted: true)
        if let pending = guess, pending.reading !== reading { pending.reading.cancel() }
        guess = nil
        readEnd = nil
        partial?.reading.cancel()  // a preview of this turn is of no use now
        partial = nil
        turn = nil
        bufferStart = end
        let transcript = try await reading.transcript()
        previous = PreviousLine(reading: transcript.segments, end: end)
        history.forget(before: bufferStart)
        emit(.completed(turn: current.id, text: transcript.text, duration: Double(end - current.start) / Double(Self.sampleRate)))
    }

    /// The partial reading's text, once it is in (dropped if its turn has ended).
    private func reportPartial(of turn: Int, emit: (Event) -> Void) {
        guard let pending = partial, pending.reading.hasEnded else { return }
        let text = pending.reading.result ?? ""  // a failed preview is no preview: the turn's own reading reports it
        partial = nil
        if pending.turn == turn, !text.isEmpty { emit(.partial(turn: turn, text: text)) }
    }

    private static func claimPartial() -> Bool {
        partialsUnderWay.withLock { count in
            guard count < partialsAtOnce else { return false }
            count += 1
            return true
        }
    }

    /// A reading of the stream from `start` to `end`; `prompted`: after the turn before (a partial reading is not, as
    /// a live stream's partial text is not).
    private func read(from start: Int, to end: Int, prompted: Bool = false, then ended: @escaping @Sendable () -> Void = {}) -> Reading {
        Reading(AudioBuffer(samples: Array(history.samples(from: start, to: end)), sampleRate: Self.sampleRate),
                after: prompted ? previous?.prompt(forLineAt: start, sampleRate: Self.sampleRate) : nil,
                transcriber: transcriber, then: ended)
    }
}

/// One reading of a stretch of the stream, under way beside it: its transcript once read, and whether it has ended (a
/// cancelled reading that had not begun ends at once: the transcriber checks before each window).
private final class Reading: Sendable {
    private let task: Task<Transcript, Error>
    private let outcome: Locked<(ended: Bool, text: String?)>

    init(_ audio: AudioBuffer, after line: String?, transcriber: Transcriber, then ended: @escaping @Sendable () -> Void) {
        let outcome = Locked<(ended: Bool, text: String?)>((false, nil))
        self.outcome = outcome
        task = Task {
            defer { ended() }
            do {
                let transcript = try await transcriber.transcribe(audio, source: "live turn", after: line)
                outcome.withLock { $0 = (true, transcript.text) }
                return transcript
            } catch {
                outcome.withLock { $0.ended = true }
                throw error
            }
        }
    }

    var hasEnded: Bool { outcome.withLock { $0.ended } }
    /// The text, once read (nil while under way, or when the reading failed).
    var result: String? { outcome.withLock { $0.text } }
    func transcript() async throws -> Transcript { try await task.value }
    func cancel() { task.cancel() }
}
