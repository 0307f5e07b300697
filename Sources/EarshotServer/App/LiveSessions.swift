import EarshotCore
import Foundation

/// Audio a client pushes in pieces (the browser's microphone, 16 kHz float samples), as an `AudioSource` the
/// library's live streams read.
final class PushedAudio: AudioSource, Sendable {
    let name: String
    let sampleRate: Int
    private let stream: AsyncThrowingStream<[Float], Error>
    private let continuation: AsyncThrowingStream<[Float], Error>.Continuation

    init(name: String, sampleRate: Int) {
        self.name = name
        self.sampleRate = sampleRate
        (stream, continuation) = AsyncThrowingStream<[Float], Error>.makeStream()
    }

    func chunks(sampleRate: Int) -> AsyncThrowingStream<[Float], Error> {
        guard sampleRate == self.sampleRate else {
            return AsyncThrowingStream { $0.finish(throwing: AudioSourceError.badStreamFormat("live audio must be \(sampleRate) Hz")) }
        }
        return stream
    }

    func push(_ samples: [Float]) { continuation.yield(samples) }
    func end() { continuation.finish() }
}

/// The open live sessions: each has its pushed audio in and its events out (a channel the SSE request reads).
final class LiveSessions: Sendable {
    final class Session: Sendable {
        let id: String
        let kind: String
        let audio: PushedAudio
        let events = ByteChannel()
        let lastAudio = Locked(Date())
        let attached = Locked(false)
        let worker = Locked<Task<Void, Never>?>(nil)

        init(id: String, kind: String, sampleRate: Int) {
            self.id = id
            self.kind = kind
            audio = PushedAudio(name: "live \(kind) session \(id)", sampleRate: sampleRate)
        }

        func close() {
            audio.end()
        }
    }

    static let limit = 16
    /// A session that gets no audio for this long is closed (when the next one opens). One whose events reader left
    /// is removed as soon as the server notices (`ByteChannel.onCancel`, set where the session's work starts).
    static let idleSeconds = 120.0
    private let sessions = Locked<[String: Session]>([:])

    func open(kind: String, sampleRate: Int) throws -> Session {
        try sessions.withLock { all in
            for (id, session) in all where Date().timeIntervalSince(session.lastAudio.withLock { $0 }) > Self.idleSeconds {
                session.close()
                all[id] = nil
            }
            guard all.count < Self.limit else {
                throw HTTPError(503, "\(Self.limit) live sessions are open; close one first", headers: [("Retry-After", "5")])
            }
            let session = Session(id: UUID().uuidString.lowercased(), kind: kind, sampleRate: sampleRate)
            all[session.id] = session
            return session
        }
    }

    var count: Int { sessions.withLock { $0.count } }

    func session(_ id: String) throws -> Session {
        guard let session = sessions.withLock({ $0[id] }) else { throw HTTPError(404, "no live session \(id) (it ended or expired)") }
        return session
    }

    func remove(_ id: String) {
        let session = sessions.withLock { $0.removeValue(forKey: id) }
        session?.close()
    }
}
