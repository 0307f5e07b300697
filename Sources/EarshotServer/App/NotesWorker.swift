import EarshotCore
import EarshotNotes
import Foundation

/// The notes' background work inside the server: every few seconds (at once when a note arrives through the
/// API) runs the waiting stages of every note, including notes the CLI added while the server runs. Stages are
/// claimed in SQLite transactions, so a `notes process` in another process never runs the same stage twice.
final class NotesWorker: Sendable {
    private let services: Services
    private let task = Locked<Task<Void, Never>?>(nil)
    static let interval = 3.0

    init(services: Services) { self.services = services }

    func start() {
        let services = self.services
        let log = services.configuration.log
        task.withLock { $0 = Task.detached(priority: .utility) {
            var lastProblem: String?
            while !Task.isCancelled {
                do {
                    let events = services.noteEvents
                    try await services.notes().process { event in
                        switch event {
                        case let .finished(note, stage, seconds, detail):
                            log.job(note: note, stage: stage.rawValue, outcome: "done", seconds: seconds, detail: detail)
                            events.publish(.init(note: note, change: "done", stage: stage.rawValue))
                        case let .failed(note, stage, seconds, error):
                            log.job(note: note, stage: stage.rawValue, outcome: "failed", seconds: seconds, detail: error)
                            events.publish(.init(note: note, change: "failed", stage: stage.rawValue))
                        case .languageModelMissing:
                            log.problem(event.description)
                        case let .started(note, stage):
                            events.publish(.init(note: note, change: "started", stage: stage.rawValue))
                        }
                    }
                    lastProblem = nil
                } catch {
                    // a store that needs repair, a full disk: said once, tried again on the next round
                    let message = "notes worker: " + ((error as? LocalizedError)?.errorDescription ?? "\(error)")
                    if message != lastProblem { log.problem(message) }
                    lastProblem = message
                }
                var waited = 0.0
                while waited < Self.interval && !Task.isCancelled && !services.notesArrived.withLock({ $0 }) {
                    try? await Task.sleep(nanoseconds: 250_000_000)  // only cancellation ends a sleep early
                    waited += 0.25
                }
                services.notesArrived.withLock { $0 = false }
            }
        } }
    }

    /// Seconds `stop` waits for the stage in flight to finish (a transcription stops at its next window; a language
    /// model's reply runs to its end). Past it the stage still finishes, and the process's exit ends it.
    static let stopWait = 60.0

    /// Cancels the work and waits for the stage in flight: a stopped server leaves nothing running in this process
    /// (work left behind went on with Whisper and the language model, against a store its owner may have removed).
    /// Stages not begun stay waiting for the next worker. Returns false when the wait ran out.
    @discardableResult
    func stop() -> Bool {
        guard let running = task.withLock({ task in defer { task = nil }; return task }) else { return true }
        running.cancel()
        let ended = DispatchSemaphore(value: 0)
        Task.detached { await running.value; ended.signal() }
        return ended.wait(timeout: .now() + Self.stopWait) == .success
    }
}
