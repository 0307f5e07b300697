import EarshotCore
import EarshotSpeech
import EarshotVoice
import Foundation

/// Voice notes, the one door to them: save a recording at once (a file, or live audio), transcribe, title
/// and summarise it in the background, search by words or meaning, export. An actor over one store, so one
/// instance can be shared by any number of tasks; several processes may also open the same store (stages
/// are claimed in SQLite transactions, see `NotesPipeline`).
///
///     let notes = try NotesLibrary()
///     let note = try await notes.add(file: "memo.m4a")
///     try await notes.process(note: note.id)
///     let hits = try await notes.search("budget")
public actor NotesLibrary {
    public nonisolated let directory: URL
    /// Why the store is open read-only, when its database is damaged (see `NotesStore.damage`): reads show
    /// what they can, changes are refused until `repair`.
    public nonisolated let damage: String?
    let store: NotesStore
    /// The background work, opened on first `process` (a library that only reads never opens it).
    private var processor: NotesProcessor?
    private let options: NotesPipeline.Options
    private let modelStore: ModelStore
    private let searcher: NotesSearch
    /// The model that answers questions, loaded by the first `ask`.
    private var answerWriter: AnswerWriter?
    /// Searches embed the query and enrolment trains a head: off the callers' threads.
    private let executor = DispatchQueueExecutor(label: "earshot.notes")
    public nonisolated var unownedExecutor: UnownedSerialExecutor { executor.asUnownedSerialExecutor() }

    /// Opens (or creates) the store in `directory`. `options` choose the models the background work uses.
    public init(directory: URL = NotesStore.defaultDirectory(), options: NotesPipeline.Options = .init(),
                modelStore: ModelStore = ModelStore()) throws {
        self.directory = directory
        store = try NotesStore(directory: directory)
        damage = store.damage
        self.options = options
        self.modelStore = modelStore
        searcher = NotesSearch(store: store, modelStore: modelStore)
    }

    /// Saves a copy of the recording at `path` as a new note (refused, with nothing stored, when it is not
    /// audio). The note waits for `process`. `name` is what the note says it came from (an upload's own name
    /// for a temporary file); by default the file's name. `speakers`: how many people speak in it, when known.
    /// `recorded`: when it was recorded (the note's date; by default now).
    public func add(file path: String, name: String? = nil, tags: [String] = [], speakers: Int? = nil, recorded: Date? = nil) throws -> Note {
        do {
            return try store.note(try store.add(path: path, tags: tags, created: recorded ?? Date(), sourceName: name, speakers: speakers))
        } catch let NotesError.notAudio(_, problem) where name != nil {
            throw NotesError.notAudio(path: name!, problem: problem)
        }
    }

    /// Saves a recording held in memory (an upload, standard input) as a new note named `name`.
    public func add(data: Data, name: String, tags: [String] = [], speakers: Int? = nil, recorded: Date? = nil) throws -> Note {
        let incoming = directory.appendingPathComponent("recordings/.incoming-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: incoming.deletingLastPathComponent(), withIntermediateDirectories: true)
        try data.write(to: incoming)
        defer { try? FileManager.default.removeItem(at: incoming) }
        return try add(file: incoming.path, name: name, tags: tags, speakers: speakers, recorded: recorded)
    }

    /// A recorded note, and the error that ended the source early if one did (what came before it is kept).
    public struct Recording: Sendable {
        public var note: Note
        public var interruption: String?
    }

    /// Records `source` into a new note until it ends, `shouldStop` says so or `maxSeconds` pass (see
    /// `AudioRecorder`: a killed process still leaves its audio under the store's `recordings` folder).
    /// `onChunk` sees each chunk and the seconds so far (a level meter).
    public func record(from source: any AudioSource, tags: [String] = [], maxSeconds: Double = 3600,
                       shouldStop: @Sendable () -> Bool = { false },
                       onChunk: (@Sendable (_ chunk: [Float], _ seconds: Double) -> Void)? = nil) async throws -> Recording {
        try store.requireWritable()  // before anyone speaks into it
        let stamp = ISO8601DateFormatter().string(from: Date()).replacingOccurrences(of: ":", with: "-")
        let file = directory.appendingPathComponent("recordings/recording-\(stamp)-\(UUID().uuidString.prefix(8)).wav")
        let recording = try await AudioRecorder.record(source, to: file, maxSeconds: maxSeconds, shouldStop: shouldStop, onChunk: onChunk)
        let id = try store.add(path: file.path, tags: tags)
        try? FileManager.default.removeItem(at: file)  // the store has its own copy now
        return Recording(note: try store.note(id), interruption: recording.interruption)
    }

    /// How a run of the background work went.
    public struct ProcessSummary: Sendable, Codable, Equatable {
        public var stages: Int
        public var failed: Int
    }

    /// Runs waiting stages (transcribe → title, summary, actions → embedding) until none is ready, or only
    /// those of `note`. `onEvent` reports each stage as it starts and ends. The work runs apart from this actor:
    /// reads and edits through the library answer while a stage runs.
    @discardableResult
    public func process(note: Int? = nil, onEvent: (@Sendable (NotesPipeline.Event) -> Void)? = nil) async throws -> ProcessSummary {
        try store.requireWritable()
        let failures = Locked(0)
        if processor == nil { processor = try NotesProcessor(directory: directory, options: options, modelStore: modelStore) }
        let ran = try await processor!.run(only: note) { event in
            if case .failed = event { failures.withLock { $0 += 1 } }
            onEvent?(event)
        }
        return ProcessSummary(stages: ran, failed: failures.withLock { $0 })
    }

    public func note(_ id: Int) throws -> Note { try store.note(id) }

    /// Notes, newest first: created since a date, carrying a tag, or in which `speaker` said something.
    public func list(since: Date? = nil, tag: String? = nil, speaker: String? = nil, limit: Int? = nil) throws -> [Note] {
        try store.list(since: since, tag: tag, speaker: speaker, limit: limit)
    }

    /// Notes matching `query` by words (accents and case ignored), by meaning, or both. Matches in
    /// snippets are wrapped in `highlight`'s marks.
    /// `person`: only the notes that person is heard in.
    public func search(_ query: String, mode: NotesSearch.Mode = .both, limit: Int = 10,
                       highlight: NotesSearch.Highlight = .brackets, person: Int? = nil) throws -> [NotesSearch.Hit] {
        let among = try person.map { Set(try store.person($0).notes) }
        return try searcher.search(query, mode: mode, limit: limit, highlight: highlight, among: among)
    }

    /// Answers a question from the notes' transcripts, citing the moments it rests on: the passages closest to it
    /// (words and meaning, within `scope`; a question that names a span of time, "last week", is asked of that span)
    /// go to the local language model, which answers only from them, and each citation is checked against them (see
    /// `Answer`). When nothing comes close, or the model finds no answer in them, the answer says the notes do not say
    /// and lists the closest passages. `onEvent` hears the passages at once, then the answer as it is written.
    public func ask(_ question: String, scope: AskScope = AskScope(), now: Date = Date(),
                    onEvent: (@Sendable (AskEvent) -> Void)? = nil) async throws -> Answer {
        let found = try QuestionPassages(store: store, search: searcher).find(question, scope: scope, now: now)
        let closest = found.closest(NoteAnswerer.passageCount)
        onEvent?(.passages(closest))
        guard found.closeEnough else {
            return Answer(question: question, answer: NoteAnswerer.abstention, answered: false, citations: [], passages: closest, reply: nil)
        }
        if answerWriter == nil { answerWriter = try AnswerWriter(options.languageModel, store: modelStore, threads: options.threads) }
        // on the writer's executor: reads and edits through this library answer meanwhile
        return try await answerWriter!.answer(question, passages: closest, people: found.people, now: now) { onEvent?(.text($0)) }
    }

    public func edit(_ id: Int, title: String? = nil, addTags: [String] = [], removeTags: [String] = []) throws {
        try store.edit(id, title: title, addTags: addTags, removeTags: removeTags)
    }

    public func delete(_ id: Int) throws { try store.delete(id) }

    /// Names a voice of a note ("SPEAKER_02" is Ruth), in its transcript, words and search; the summary is written
    /// again with the name (run `process` to do it). Returns the segments relabelled.
    @discardableResult
    public func renameSpeaker(_ id: Int, from speaker: String, to name: String) throws -> Int {
        try store.renameSpeaker(id, from: speaker, to: name)
    }

    /// Enrols the voice labelled `speaker` in a note as `name`, from what it says in the recording, then names it
    /// in the note as `renameSpeaker` does: later notes in which that person speaks carry the name. Nothing is
    /// renamed when the enrolment fails.
    public func enrollSpeaker(_ id: Int, speaker: String, as name: String, voices: VoiceID) async throws -> VoiceID.Enrollment {
        let name = try NotesStore.speakerName(name)
        let note = try store.note(id)
        guard note.isTranscribed else { throw NotesError.notTranscribed(id) }
        let enrolled = try await withClipFolder { folder in
            try await voices.enroll(name, clips: try NoteSpeech.clips(of: speaker.precomposedStringWithCanonicalMapping, in: note, to: folder))
        }
        try store.renameSpeaker(id, from: speaker, to: name)
        return enrolled
    }

    /// Runs `body` with a folder of its own for enrolment clips, removed afterwards.
    private func withClipFolder<T>(_ body: (URL) async throws -> T) async throws -> T {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("earshot-enrol-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        return try await body(folder)
    }

    /// A person named, the notes whose labels that changed, and their enrolment when one was asked for.
    public struct Named: Sendable {
        public var person: Person
        public var notes: [Int]
        public var enrollment: VoiceID.Enrollment? = nil
    }

    /// Names person `id` in every note they are heard in (as `renamePerson`; a name someone else has makes them that
    /// person) and, with `voices`, enrols them from their speech in the notes (`enrollPerson`; the name stays when that
    /// fails). The person returned is the one who has the name now.
    public func namePerson(_ id: Int, as name: String, enrollingWith voices: VoiceID? = nil) async throws -> Named {
        let notes = try store.renamePerson(id, to: name)
        let person = try store.person(named: try NotesStore.speakerName(name)) ?? store.person(id)
        guard let voices else { return Named(person: person, notes: notes) }
        return Named(person: person, notes: notes, enrollment: try await enrollPerson(person.id, voices: voices))
    }

    /// Enrols a named person from their speech in the notes (their longest appearances first, up to what enrolment
    /// uses), so that they are recognised wherever an enrolled voice is — live lines, `voice verify`/`identify` — not
    /// only where voices are compared to the notes' voiceprints.
    public func enrollPerson(_ id: Int, voices: VoiceID) async throws -> VoiceID.Enrollment {
        let person = try store.person(id)
        guard let name = person.name else {
            throw NotesError.badPeople("\(person.displayName) has no name yet: name them first, then enrol them")
        }
        return try await withClipFolder { folder in
            var clips: [String] = [], seconds = 0.0
            for appearance in person.appearances.sorted(by: { $0.seconds > $1.seconds }) where seconds < NoteSpeech.maximumSeconds {
                let note = try store.note(appearance.note)
                let part = folder.appendingPathComponent("\(note.id)")
                try FileManager.default.createDirectory(at: part, withIntermediateDirectories: true)
                do {
                    clips += try NoteSpeech.clips(of: note.speakers.isEmpty ? nil : appearance.label, in: note, to: part)
                    seconds += appearance.seconds
                } catch NotesError.tooLittleSpeech {
                    continue  // a note in which they say too little adds nothing; the others still do
                }
            }
            guard !clips.isEmpty else {
                throw NotesError.badPeople("\(name) says too little in the notes to enrol (\(Int(NoteSpeech.minimumSeconds)) s in one note at least)")
            }
            return try await voices.enroll(name, clips: clips)
        }
    }

    /// Everyone heard in the notes (each voice linked to the person it is when its note was transcribed), the most
    /// notes first; unnamed people are `Voice ID` until someone names them.
    public func people() throws -> [Person] { try store.people() }

    public func person(_ id: Int) throws -> Person { try store.person(id) }

    public func person(named name: String) throws -> Person? { try store.person(named: name) }

    /// Names a person in every note they are heard in, past and future (a name someone else has merges the two);
    /// returns the notes relabelled, whose summaries `process` writes again.
    @discardableResult
    public func renamePerson(_ id: Int, to name: String) throws -> [Int] { try store.renamePerson(id, to: name) }

    /// Makes `other` the same person as `id` (their voices, under `id`'s name or else `other`'s); returns the notes
    /// relabelled.
    @discardableResult
    public func mergePeople(_ id: Int, with other: Int) throws -> [Int] { try store.mergePeople(id, with: other) }

    /// The people named in the notes store at `directory`, by their voiceprints, so that a diarization outside the
    /// notes names them as the notes do (`Diarizer.Options.voices`). None when there is no store yet (none is made)
    /// or it cannot be read: a voice is then numbered, as it would be for anyone not named.
    public static func namedVoices(directory: URL = NotesStore.defaultDirectory()) -> [Diarizer.NamedVoice] {
        guard FileManager.default.fileExists(atPath: directory.appendingPathComponent(NotesStore.databaseName).path),
              let store = try? NotesStore(directory: directory) else { return [] }
        return (try? store.namedVoices()) ?? []
    }

    /// Corrects segment `segment` (from 1) of a note: its words and/or its speaker (see `NotesStore.correct`).
    @discardableResult
    public func correct(_ id: Int, segment: Int, text: String? = nil, speaker: String? = nil, rewriteSummary: Bool = false) throws -> Correction {
        try store.correct(id, segment: segment, text: text, speaker: speaker, rewriteSummary: rewriteSummary)
    }

    /// Undoes a note's last correction; nil when it has none.
    @discardableResult
    public func undoCorrection(_ id: Int) throws -> Correction? { try store.undoCorrection(id) }

    /// A note's corrections, oldest first.
    public func corrections(of id: Int) throws -> [Correction] { try store.corrections(of: id) }

    /// The people named in these notes, by their voiceprints (see the static `namedVoices(directory:)`).
    public func namedVoices() throws -> [Diarizer.NamedVoice] { try store.namedVoices() }

    /// Says person `id`'s voice in note `note` is someone else: it becomes a new unnamed person (see `NotesStore.splitPerson`).
    public func splitPerson(_ id: Int, note: Int) throws -> Int { try store.splitPerson(id, note: note) }

    /// Forgets a person: their voiceprints and name are deleted, with the voice profile of that name if someone
    /// enrolled one, and the notes they were heard in stop naming them; with `redact`, their speech is silenced in
    /// the recordings and replaced by "[removed]" in transcripts, search and exports (see `NotesStore.forgetPerson`).
    public func forgetPerson(_ id: Int, redact: Bool = false) throws -> NotesStore.Forgotten {
        let forgotten = try store.forgetPerson(id, redact: redact)
        let profiles = VoiceProfileStore(store: modelStore)
        if let name = forgotten.name, profiles.names().contains(name) { try profiles.remove(name) }
        return forgotten
    }

    /// Action items across notes, newest note first: only those still open (`open`), only one person's (`person`).
    public func actions(person: Int? = nil, open: Bool = false) throws -> [NoteAction] { try store.actions(person: person, open: open) }

    /// Marks action item `item` (from 1) of a note done, or open again with `done: false`.
    @discardableResult
    public func markAction(_ note: Int, item: Int, done: Bool = true) throws -> ActionItem {
        try store.markAction(note, item: item, done: done)
    }

    /// Queues a note's failed (or given) stage and those after it again; returns how many were queued.
    @discardableResult
    public func retry(_ id: Int, from stage: NoteStage? = nil) throws -> Int { try store.retry(id, from: stage) }

    /// Rebuilds a store whose database is missing, empty or damaged from its recordings (see
    /// `NotesStore.repair`); open the library again afterwards.
    public static func repair(directory: URL = NotesStore.defaultDirectory()) throws -> NotesRepair {
        try NotesStore.repair(directory: directory)
    }

    /// Writes a note as a file into `directory`; returns its path.
    @discardableResult
    public func export(_ id: Int, format: NotesExporter.Format, to directory: URL) throws -> URL {
        try NotesExporter.export(try store.note(id), format: format, to: directory)
    }
}
