import EarshotCore
import Foundation

/// The background work of a `NotesLibrary`, on an executor and a database connection of its own: a stage runs
/// for seconds (transcription, a language model's replies), and the library's reads and edits — a page asking
/// for a note, a rename — must not wait for it. Stages are claimed and committed in SQLite transactions, as
/// between processes, so the two connections never see each other's half-done work.
actor NotesProcessor {
    private let pipeline: NotesPipeline
    private let executor = DispatchQueueExecutor(label: "earshot.notes.pipeline")
    nonisolated var unownedExecutor: UnownedSerialExecutor { executor.asUnownedSerialExecutor() }

    init(directory: URL, options: NotesPipeline.Options, modelStore: ModelStore) throws {
        pipeline = NotesPipeline(store: try NotesStore(directory: directory), options: options, modelStore: modelStore)
    }

    /// Runs waiting stages (see `NotesPipeline.run`); returns how many ran.
    func run(only note: Int?, onEvent: @escaping @Sendable (NotesPipeline.Event) -> Void) async throws -> Int {
        try await pipeline.run(only: note, onEvent: onEvent)
    }
}
