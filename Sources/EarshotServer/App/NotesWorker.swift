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
        task.withLock { $0 = Task.detached(priority: .utility) {
            while !Task.isCancelled {
                if let notes = try? services.notes() { _ = try? await notes.process() }
                var waited = 0.0
                while waited < Self.interval && !Task.isCancelled && !services.notesArrived.withLock({ $0 }) {
                    try? await Task.sleep(nanoseconds: 250_000_000)
                    waited += 0.25
                }
                services.notesArrived.withLock { $0 = false }
            }
        } }
    }

    func stop() { task.withLock { $0?.cancel(); $0 = nil } }
}
