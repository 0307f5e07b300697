internal import CMicroHTTPD
import EarshotCore
import Foundation

/// How long a connection may take to send a request's head. libmicrohttpd's idle timeout restarts with every byte,
/// so a client trickling its head a byte at a time (a slow loris) would hold its connection for ever; this watches
/// each connection from its start (and from the end of each request, for the next head on a kept-alive
/// connection) and shuts the socket of one whose head has not arrived in time — libmicrohttpd then closes it as a
/// client that left.
final class HeadDeadlines: @unchecked Sendable {
    // @unchecked: `waiting` is only touched under its lock; the timer is set once in init.
    private let seconds: Double
    /// Connections waiting for a head: the socket, and since when.
    private let waiting = Locked<(heads: [OpaquePointer: (socket: Int32, since: Date)], upgraded: Set<OpaquePointer>)>(([:], []))
    private let timer: DispatchSourceTimer

    init(seconds: Double) {
        self.seconds = seconds
        timer = DispatchSource.makeTimerSource(queue: DispatchQueue(label: "earshot.head-deadlines"))
        timer.schedule(deadline: .now() + 1, repeating: 1)
        // The sockets are shut under the lock: libmicrohttpd tells `closed` before it closes a socket, and `closed`
        // waits for this lock, so a socket shut here is still its connection's. Shut after unlocking, one whose
        // connection had meanwhile closed could be a new connection's, given the same descriptor number.
        timer.setEventHandler { [waiting, seconds] in
            waiting.withLock { all in
                let now = Date()
                for (connection, head) in all.heads where now.timeIntervalSince(head.since) > seconds {
                    all.heads[connection] = nil  // once
                    shutdown(head.socket, Int32(SHUT_RDWR))
                }
            }
        }
        timer.resume()
    }

    deinit { timer.cancel() }

    /// A connection opened, or finished a request and may send another head (not one that became a WebSocket).
    func awaitHead(_ connection: OpaquePointer) {
        let socket = earshot_http_connection_fd(connection)
        guard socket >= 0 else { return }
        waiting.withLock { all in
            if !all.upgraded.contains(connection) { all.heads[connection] = (socket, Date()) }
        }
    }

    /// Its head arrived: no deadline now.
    func clear(_ connection: OpaquePointer) {
        _ = waiting.withLock { $0.heads.removeValue(forKey: connection) }
    }

    /// It is a WebSocket now: no more heads come (its own pings watch it).
    func upgraded(_ connection: OpaquePointer) {
        waiting.withLock { all in
            all.heads[connection] = nil
            all.upgraded.insert(connection)
        }
    }

    /// It closed (its handle may be reused by the next connection).
    func closed(_ connection: OpaquePointer) {
        waiting.withLock { all in
            all.heads[connection] = nil
            all.upgraded.remove(connection)
        }
    }

    func stop() { timer.cancel() }
}
