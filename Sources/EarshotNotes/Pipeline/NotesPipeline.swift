import EarshotCore
import EarshotLanguage
import EarshotSpeech
import EarshotVoice
import Foundation

/// The worker that takes notes through their stages: transcribe → title, summary and action items →
/// text embedding. Durable and safe to run in several processes at once:
/// - a stage is claimed in a write transaction (state `running`, this process's id), so two workers never
///   take the same one;
/// - its result and its `done` state are committed together, only while this worker still holds the
///   claim, so a result is visible whole or not at all and a stage completes exactly once;
/// - a stage left `running` by a process that no longer exists (killed) is claimed again.
public final class NotesPipeline {
    public struct Options: Sendable {
        public var whisper: WhisperModel = .default
        public var languageModel: LanguageModelChoice = .standard
        /// Threads of the language models (Whisper runs on its default count, shared with other transcriptions).
        public var threads = 2
        public init() {}
    }

    public enum Event: Sendable {
        case started(note: Int, stage: NoteStage)
        /// `detail`: what the stage produced, e.g. the language model's speed.
        case finished(note: Int, stage: NoteStage, seconds: Double, detail: String)
        case failed(note: Int, stage: NoteStage, seconds: Double, error: String)
        /// The language model is not installed: notes get key-word titles and no summary.
        case languageModelMissing(LanguageModelChoice)
    }

    public let store: NotesStore
    public let options: Options
    private let modelStore: ModelStore
    private let pid = Int64(ProcessInfo.processInfo.processIdentifier)
    private var writer: NoteWriter?
    private var writerChecked = false
    private var embedder: (any SentenceEmbedding)?
    private var diarizer: Diarizer?
    /// Stages the last claim failed because their workers kept dying, reported by `run`.
    private var abandoned: [(Int, NoteStage, String)] = []

    public init(store: NotesStore, options: Options = Options(), modelStore: ModelStore = ModelStore()) {
        self.store = store
        self.options = options
        self.modelStore = modelStore
    }

    /// Runs stages until none is ready (or `only` note's are done), or until the calling task is cancelled (the stage
    /// running then finishes first); returns how many ran. Runs on the caller's actor (the pipeline is not shared
    /// between tasks: `NotesLibrary` owns one).
    @discardableResult
    public func run(only note: Int? = nil, isolation: isolated (any Actor)? = #isolation,
                    onEvent: ((Event) -> Void)? = nil) async throws -> Int {
        var ran = 0
        // a stopped server's worker claims nothing more: the stages left wait for the next process
        while !Task.isCancelled {
            let claimed: (Int, NoteStage)?
            do { claimed = try claim(only: note) } catch { abandoned = []; throw error }
            for (id, stage, message) in abandoned {  // failed by the claim: their worker died too often
                onEvent?(.started(note: id, stage: stage))
                onEvent?(.failed(note: id, stage: stage, seconds: 0, error: message))
            }
            abandoned = []
            guard let (id, stage) = claimed else { break }
            onEvent?(.started(note: id, stage: stage))
            let started = Date()
            do {
                let detail = try await perform(stage, note: id, onEvent: onEvent)
                onEvent?(.finished(note: id, stage: stage, seconds: Date().timeIntervalSince(started), detail: detail))
            } catch is CancellationError where Task.isCancelled {
                // stopped mid-stage (a server shutting down): the stage waits for the next worker, neither failed nor
                // counted as a crash
                try release(stage, note: id)
                break
            } catch {
                let message = error.descriptionWithAdvice  // kept on the note: the page shows what to do
                try fail(stage, note: id, message: message)
                onEvent?(.failed(note: id, stage: stage, seconds: Date().timeIntervalSince(started), error: message))
            }
            ran += 1
        }
        return ran
    }

    // MARK: claiming and committing

    static func isAlive(_ pid: Int64) -> Bool { ProcessStatus.isRunning(pid_t(pid)) }

    func claim(only note: Int?) throws -> (Int, NoteStage)? {
        try store.guarded {
            try store.db.transaction {
                var sql = """
                    SELECT s.note_id, s.stage, s.state, s.worker FROM stages s
                    WHERE s.state IN ('pending', 'running')
                      AND NOT EXISTS (SELECT 1 FROM stages p WHERE p.note_id = s.note_id AND p.position < s.position AND p.state != 'done')
                    """
                var values: [SQLValue] = []
                if let note { sql += " AND s.note_id = ?"; values.append(.integer(Int64(note))) }
                sql += " ORDER BY s.note_id, s.position"
                for row in try store.db.query(sql, values) {
                    guard let id = row[0].int, let stage = NoteStage(rawValue: row[1].string ?? "") else { continue }
                    if row[2].string == "running", let worker = row[3].int {
                        if Self.isAlive(Int64(worker)) { continue }
                        if try giveUpAfterInterruption(stage, note: id, worker: worker) { continue }
                    }
                    try store.db.query("""
                        UPDATE stages SET state = 'running', worker = ?, attempts = attempts + 1, started = ?, error = NULL
                        WHERE note_id = ? AND stage = ?
                        """, [.integer(pid), .real(Date().timeIntervalSince1970), .integer(Int64(id)), .text(stage.rawValue)])
                    return (id, stage)
                }
                return nil
            }
        }
    }

    /// A stage may be interrupted (its process killed or crashed while running it) this many times; the next
    /// worker then fails it instead of running it again, so a note that crashes its worker cannot crash every
    /// server start after it. `retry` re-arms it.
    public static let maxInterruptions = 3

    /// Records that `worker` died while running this stage; after `maxInterruptions`, marks it failed and
    /// returns true. Called inside the claim's transaction.
    private func giveUpAfterInterruption(_ stage: NoteStage, note id: Int, worker: Int) throws -> Bool {
        let key: [SQLValue] = [.integer(Int64(id)), .text(stage.rawValue)]
        try store.db.query("UPDATE stages SET interrupted = interrupted + 1 WHERE note_id = ? AND stage = ?", key)
        let count = try store.db.query("SELECT interrupted FROM stages WHERE note_id = ? AND stage = ?", key).first?.first?.int ?? 0
        guard count >= Self.maxInterruptions else { return false }
        let message = "the process running this stage ended before finishing it \(count) times (last: process \(worker), killed or crashed); "
            + "it was not tried again. `earshot notes retry \(id)` runs it once more"
        try store.db.query("UPDATE stages SET state = 'failed', error = ?, finished = ? WHERE note_id = ? AND stage = ?",
                           [.text(message), .real(Date().timeIntervalSince1970)] + key)
        abandoned.append((id, stage, message))
        return true
    }

    /// Commits a stage's result with its `done` state, if this worker still holds the claim.
    func complete(_ stage: NoteStage, note id: Int, update: String, _ values: [SQLValue]) throws {
        try complete(stage, note: id) { (update, values) }
    }

    /// Commits a stage's result with its `done` state, if this worker still holds the claim; `result` runs inside the
    /// transaction (it may read and write the store) and gives the note's update.
    func complete(_ stage: NoteStage, note id: Int, result: () throws -> (update: String, values: [SQLValue])) throws {
        try store.guarded {
            try store.db.transaction {
                let held = try store.db.query("SELECT 1 FROM stages WHERE note_id = ? AND stage = ? AND state = 'running' AND worker = ?",
                                              [.integer(Int64(id)), .text(stage.rawValue), .integer(pid)])
                guard !held.isEmpty else {
                    // deleted while the stage ran: said, so no log line calls a dropped result done
                    if try store.db.query("SELECT 1 FROM notes WHERE id = ?", [.integer(Int64(id))]).isEmpty {
                        throw NotesError.deletedWhileWorking(id, stage: stage.rawValue)
                    }
                    return  // taken over: leave it to its holder
                }
                let (update, values) = try result()
                if !update.isEmpty { try store.db.query("UPDATE notes SET \(update) WHERE id = ?", values + [.integer(Int64(id))]) }
                try store.db.query("""
                    UPDATE stages SET state = 'done', completions = completions + 1, finished = ?, error = NULL
                    WHERE note_id = ? AND stage = ?
                    """, [.real(Date().timeIntervalSince1970), .integer(Int64(id)), .text(stage.rawValue)])
            }
        }
    }

    /// Gives a claimed stage back, untouched, for the next worker to run.
    func release(_ stage: NoteStage, note id: Int) throws {
        try store.guarded {
            try store.db.query("UPDATE stages SET state = 'pending', worker = NULL, started = NULL WHERE note_id = ? AND stage = ? AND state = 'running' AND worker = ?",
                               [.integer(Int64(id)), .text(stage.rawValue), .integer(pid)])
        }
    }

    func fail(_ stage: NoteStage, note id: Int, message: String) throws {
        try store.guarded {
            try store.db.query("UPDATE stages SET state = 'failed', error = ?, finished = ? WHERE note_id = ? AND stage = ? AND worker = ?",
                               [.text(message), .real(Date().timeIntervalSince1970), .integer(Int64(id)), .text(stage.rawValue), .integer(pid)])
        }
    }

    // MARK: the stages

    /// Runs one stage of a note and commits its result; returns a line about it.
    func perform(_ stage: NoteStage, note id: Int, isolation: isolated (any Actor)? = #isolation,
                 onEvent: ((Event) -> Void)?) async throws -> String {
        let note = try store.note(id)
        switch stage {
        case .transcribe:
            // Whisper on its default threads, so the server's and the pipeline's transcriptions share one loaded copy;
            // a recording longer than one window (its length measured when it was added) is read a window per thread
            // at once (a 4-minute note's transcription about a fifth sooner).
            // Every word with its time: the notes page highlights the word being played and seeks to a clicked word.
            let speech = Transcriber.Configuration(model: options.whisper, words: true)
            let transcriber = try Transcriber.shared(speech, store: modelStore,
                                                     windowsAtOnce: Transcriber.windowsAtOnce(forSeconds: note.duration, threads: speech.threads))
            let transcript = try await transcriber.transcribe(file: note.audioPath, source: note.sourceName)
            if diarizer == nil { diarizer = try Diarizer(store: modelStore) }
            // as many voices as whoever added the note said speak in it, else as many as the diarizer finds
            let voices = try diarizer!.diarize(file: note.audioPath, options: Diarizer.Options(numSpeakers: try store.speakerCount(of: id)))
            // a key-word title at once, so the list shows the topic before the language model has run
            let keywords = Titles.keywords(from: transcript.text)
            try complete(.transcribe, note: id) {
                // each voice linked to the person it is, in the transaction that stores the transcript
                let names = try store.linkVoices(of: id, speakers: voices.speakers)
                // a transcript made again replaces the corrected one: nothing is left to undo
                try store.dropCorrections(of: id)
                let segments = try Self.storedSegments(transcript, voices: voices, names: names)
                return ("""
                    transcript = ?, segments = ?, duration = ?,
                    title = CASE WHEN title_by = 'none' THEN ? ELSE title END,
                    title_by = CASE WHEN title_by = 'none' THEN 'extract' ELSE title_by END
                    """, [.text(transcript.text), .text(segments), .real(transcript.duration), .text(keywords)])
            }
            return "\(transcript.text.split(separator: " ").count) words"
        case .summarise:
            guard let writer = try noteWriter(onEvent: onEvent) else {
                try complete(.summarise, note: id, update: "language_model = ''", [])
                return "no language model: key-word title"
            }
            let before = writer.model.usage
            let template: SummaryTemplate
            do { template = try store.template(named: note.template) } catch NotesError.unknownTemplate {
                template = .memo  // removed while the stage waited: the plain summary
            }
            let text = try writer.write(transcript: note.transcriptForReading, sentences: NoteSentence.sentences(of: note.segments),
                                        template: template)
            let items = try store.owned(text.actions, in: note)
            let actions = String(decoding: try JSONEncoder().encode(items), as: UTF8.self)
            try complete(.summarise, note: id, update: """
                summary = ?, actions = ?, language_model = ?,
                title = CASE WHEN title_by = 'user' THEN title ELSE ? END,
                title_by = CASE WHEN title_by = 'user' THEN title_by ELSE ? END
                """, [.text(text.summary), .text(actions), .text(options.languageModel.displayName), .text(text.title),
                      .text(text.titleFromModel ? "llm" : "extract")])
            let after = writer.model.usage
            let generated = max(0, after.generatedTokens - before.generatedTokens)
            return String(format: "%d tokens generated, %.1f tokens/s overall", generated,
                          Double(generated) / max(1e-3, after.seconds - before.seconds))
        case .embed:
            if embedder == nil { embedder = try RunnerTextEmbedder(store: modelStore, threads: options.threads) }
            let vector = try embedder!.embed([note.title, note.summary, note.transcript].filter { !$0.isEmpty }.joined(separator: ". "))
            try complete(.embed, note: id, update: "embedding = ?", [.blob(SemanticIndex.blob(vector))])
            return "\(vector.count) dimensions"
        }
    }

    /// A transcript's segments as a note keeps them (JSON): labelled by who spoke when there are two voices or more or
    /// one of them is a named person (`names`: a voice's label → its person's name), without Whisper's token ids.
    static func storedSegments(_ transcript: Transcript, voices: Diarization, names: [String: String]) throws -> String {
        var voices = voices
        for i in voices.turns.indices { voices.turns[i].speaker = names[voices.turns[i].speaker] ?? voices.turns[i].speaker }
        let labelled = voices.speakers.count > 1 || voices.speakers.contains(where: \.enrolled) || !names.isEmpty
        let segments = (labelled ? transcript.labelled(by: voices) : transcript).segments.map { segment -> TranscriptSegment in
            var kept = segment
            kept.tokens = nil  // Whisper's token ids mean nothing to a note
            return kept
        }
        return String(decoding: try JSONEncoder().encode(segments), as: UTF8.self)
    }

    /// The note writer, or nil (once reported) when the chosen language model is not installed.
    private func noteWriter(onEvent: ((Event) -> Void)?) throws -> NoteWriter? {
        if let writer { return writer }
        guard !writerChecked else { return nil }
        writerChecked = true
        guard options.languageModel.path(in: modelStore) != nil else {
            onEvent?(.languageModelMissing(options.languageModel))
            return nil
        }
        writer = NoteWriter(model: try RunnerChatModel(options.languageModel, store: modelStore, threads: options.threads))
        return writer
    }
}

extension NotesPipeline.Event: CustomStringConvertible {
    /// A line for a log: "note 3: summarise done in 2.1 s (120 tokens generated, ...)".
    public var description: String {
        switch self {
        case let .started(note, stage): return "note \(note): \(stage.rawValue)…"
        case let .finished(note, stage, seconds, detail):
            return "note \(note): \(stage.rawValue) done in \(String(format: "%.1f", seconds)) s (\(detail))"
        case let .failed(note, stage, _, error): return "note \(note): \(stage.rawValue) failed: \(error)"
        case let .languageModelMissing(choice): return "the \(choice.rawValue) language model is not installed: key-word titles, no summary"
        }
    }
}
