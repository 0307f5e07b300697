import EarshotCore
import Foundation

/// Live audio cut into turns, the way OpenAI's Realtime API does it: with turn detection on, the speech detector
/// starts a turn when someone speaks and ends it after `silenceDuration` of quiet; with it off the caller ends each
/// turn (`commit`). Each turn is read by Whisper as a whole recording (the same reading `Transcriber.transcribe`
/// gives a file), with partial text about once a second while it goes on.
///
/// To answer soon after speech ends, the turn is read speculatively as soon as the quiet begins: by the time the
/// quiet has lasted long enough to end the turn, its text is usually ready (speech that resumes drops the guess).
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
    /// Quiet after speech before the speculative reading starts.
    static let quietToGuess = 0.1
    /// The shortest buffer a commit takes (OpenAI refuses less than 100 ms).
    public static let shortestCommit = 0.1

    public var settings: Settings {
        didSet { if settings.detection != oldValue.detection { restartDetection() } }
    }

    private let transcriber: Transcriber
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
    /// The partial reading under way (its turn, and the text once read).
    private var partial: (turn: Int, text: Locked<String?>, reading: Task<Void, Never>)?
    /// Partial readings under way in the process (at most `partialsAtOnce`).
    private static let partialsUnderWay = Locked(0)
    static let partialsAtOnce = 1
    private var guess: (end: Int, reading: Task<String, Error>)?

    public init(transcriber: Transcriber, settings: Settings = Settings(), store: ModelStore = ModelStore()) throws {
        self.transcriber = transcriber
        self.settings = settings
        probabilities = try SpeechProbabilities.shared(store: store)
    }

    deinit { guess?.reading.cancel() }

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
                if let pending = guess, pending.end < scored { pending.reading.cancel(); guess = nil }  // speech again
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
                    try await finish(current, end: scored, emit: emit)
                } else if quiet >= Self.quietToGuess, guess == nil {
                    guess = (scored, read(from: current.start, to: scored))
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
                    let (text, reading) = readPartial(from: current.start, to: scored)
                    partial = (current.id, text, reading)
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
        partial = nil
        turn = nil
        speechRun = 0
        stream = SpeechProbabilities.StreamState()
        unscored = []
        scored = history.end
        lastSpeech = scored
    }

    private func finish(_ current: (id: Int, start: Int), end: Int, emit: (Event) -> Void) async throws {
        emit(.committed(turn: current.id))
        // the speculative reading stands when no speech came after the audio it read
        let reading = guess.flatMap { $0.end >= lastSpeech && $0.end <= end ? $0.reading : nil } ?? read(from: current.start, to: end)
        if let pending = guess, pending.reading != reading { pending.reading.cancel() }
        guess = nil
        partial = nil  // a preview of this turn still being read is of no use now (it finishes on its own)
        turn = nil
        bufferStart = end
        let text = try await reading.value
        history.forget(before: bufferStart)
        emit(.completed(turn: current.id, text: text, duration: Double(end - current.start) / Double(Self.sampleRate)))
    }

    /// The partial reading's text, once it is in (dropped if its turn has ended).
    private func reportPartial(of turn: Int, emit: (Event) -> Void) {
        guard let pending = partial, let text = pending.text.withLock({ $0 }) else { return }
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

    /// Reads a partial beside the stream; the text lands in the box (empty when the reading failed: a partial is
    /// only a preview, and the turn's own reading reports any failure).
    private func readPartial(from start: Int, to end: Int) -> (Locked<String?>, Task<Void, Never>) {
        let box = Locked<String?>(nil)
        return (box, Self.settle(read(from: start, to: end), into: box))
    }

    private static func settle(_ reading: Task<String, Error>, into box: Locked<String?>) -> Task<Void, Never> {
        Task {
            let text = (try? await reading.value) ?? ""
            box.withLock { $0 = text }
            partialsUnderWay.withLock { $0 -= 1 }
        }
    }

    private func read(from start: Int, to end: Int) -> Task<String, Error> {
        let audio = AudioBuffer(samples: Array(history.samples(from: start, to: end)), sampleRate: Self.sampleRate)
        let transcriber = self.transcriber
        return Task { try await transcriber.transcribe(audio, source: "live turn").text }
    }
}
