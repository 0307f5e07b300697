internal import CMicroHTTPD
import Foundation

/// One request's hold on its libmicrohttpd connection: the pointer while the request lives (cleared when it
/// ends, so a late wake-up touches nothing), and whether the connection is suspended now.
final class ConnectionHandle: @unchecked Sendable {
    // @unchecked: both fields are read and written under the owning `Suspensions`' lock.
    fileprivate var connection: OpaquePointer?
    fileprivate var isSuspended = false

    init(_ connection: OpaquePointer) { self.connection = connection }
}

/// Every suspended connection of one server, under one lock. A request whose answer takes time (a handler
/// running, a stream with nothing to send) is suspended — taken out of the event loop, holding no thread — and
/// resumed when there is something to do. libmicrohttpd must not be stopped with a connection suspended, so
/// `stopAll` resumes them all and refuses further suspensions; whoever asked then answers or ends at once.
final class Suspensions: @unchecked Sendable {
    // @unchecked: every field is read and written under `lock`.
    private let lock = NSLock()
    private var stopping = false
    private var held: [ObjectIdentifier: ConnectionHandle] = [:]

    /// Suspends the connection; false when the server is stopping or the request has ended (answer now instead).
    /// Only from libmicrohttpd's access handler or content reader, as its documentation requires.
    func suspend(_ handle: ConnectionHandle) -> Bool {
        lock.withLock {
            guard !stopping, let connection = handle.connection, !handle.isSuspended else { return false }
            MHD_suspend_connection(connection)
            handle.isSuspended = true
            held[ObjectIdentifier(handle)] = handle
            return true
        }
    }

    /// Resumes it if it is suspended (from any thread); nothing when it was not, or the request has ended.
    func resume(_ handle: ConnectionHandle) {
        lock.withLock {
            guard handle.isSuspended, let connection = handle.connection else { return }
            handle.isSuspended = false
            held[ObjectIdentifier(handle)] = nil
            MHD_resume_connection(connection)
        }
    }

    /// The request is over (libmicrohttpd's completion callback): its connection may be reused or freed.
    func end(_ handle: ConnectionHandle) {
        lock.withLock {
            handle.connection = nil
            handle.isSuspended = false
            held[ObjectIdentifier(handle)] = nil
        }
    }

    /// Before stopping the daemon: every suspended connection resumed, none suspended again.
    func stopAll() {
        lock.withLock {
            stopping = true
            for handle in held.values {
                if let connection = handle.connection { MHD_resume_connection(connection) }
                handle.isSuspended = false
            }
            held = [:]
        }
    }
}
