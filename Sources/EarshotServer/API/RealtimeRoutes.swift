import EarshotCore
import Foundation

/// OpenAI's Realtime API for transcription: `GET /v1/realtime?intent=transcription` opens a WebSocket (RFC 6455)
/// that `RealtimeSession` speaks on. Both dialects: the GA one by default, the beta one (`transcription_session.*`)
/// when the client says `OpenAI-Beta: realtime=v1` (or offers the `openai-beta.realtime-v1` subprotocol).
enum RealtimeRoutes {
    /// Realtime sessions open at once (all read Whisper on the shared model; the server's WebSocket limit is higher).
    static let limit = 32
    /// Seconds `AppServer.stop` waits for the sessions to end once their sockets are closed (a session reading a long
    /// turn finishes it first). Work left running in a stopping process touched what its owner was tearing down, and
    /// at exit LeakSanitizer took a session's event in flight for a leak (fuzz-websocket).
    static let stopWait = 30.0

    static func add(to router: inout Router, _ services: Services) {
        router.add("GET", "/v1/realtime") { request, _ in
            if let intent = request.query["intent"], intent != "transcription" {
                throw HTTPError(400, "this server only transcribes: connect with ?intent=transcription")
            }
            let beta = request.header("openai-beta")?.contains("realtime=v1") == true
                || WebSocketHandshake.offeredProtocols(request.headers).contains("openai-beta.realtime-v1")
            guard let slot = Slot(services.realtimeSessions, limit: limit) else {
                throw HTTPError(503, "\(limit) realtime sessions are open; try again later", headers: [("Retry-After", "5")])
            }
            // the models load before the answer, so a missing one is this request's error, not a dead socket
            let session = try RealtimeSession(services: services, dialect: beta ? .beta : .ga)
            let box = SessionBox(session)
            return try .webSocket(request, protocols: ["realtime"]) { connection in
                Task {
                    await box.session.run(on: connection)
                    connection.close()
                    withExtendedLifetime(slot) {}
                }
            }
        }
    }

    /// A place among the open sessions, held while anything (the answer not yet sent, the session) needs it: a
    /// client that leaves before its 101 frees its place as surely as one that closes its socket.
    final class Slot: Sendable {
        private let count: Locked<Int>
        init?(_ count: Locked<Int>, limit: Int) {
            guard count.withLock({ open in
                guard open < limit else { return false }
                open += 1
                return true
            }) else { return nil }
            self.count = count
        }
        deinit { count.withLock { $0 -= 1 } }
    }

    /// The session, handed once from the request's task to the connection's.
    private final class SessionBox: @unchecked Sendable {
        // @unchecked: only the connection's task uses the session, after the request's task has let go of it.
        let session: RealtimeSession
        init(_ session: RealtimeSession) { self.session = session }
    }
}
