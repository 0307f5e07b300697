import EarshotCore
import Foundation

/// What the Notes page is told as it happens, instead of asking every few seconds: a note added, edited or
/// deleted through the API, and each background stage starting, finishing or failing. Every open
/// `GET /api/notes/events` stream gets every event; streams whose client went away are dropped on the next one.
final class NoteEvents: Sendable {
    struct Change: Codable, Sendable {
        var note: Int
        /// added, edited, deleted, or a stage's outcome: started, done, failed
        var change: String
        var stage: String?
    }

    private let listeners = Locked<[ByteChannel]>([])

    func subscribe() -> ByteChannel {
        let channel = ByteChannel()
        channel.sendEvent("ready", ["listening": true])
        listeners.withLock { $0.append(channel) }
        return channel
    }

    func publish(_ change: Change) {
        let open = listeners.withLock { channels in
            channels.removeAll { $0.isCancelled }
            return channels
        }
        for channel in open { channel.sendEvent("note", change) }
    }

    /// Ends every stream (the server is stopping).
    func finish() { listeners.withLock { channels in channels.forEach { $0.finish() }; channels = [] } }
}
