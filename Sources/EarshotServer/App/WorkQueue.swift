import EarshotCore
import Foundation

/// Admission for model work (transcription, classification, training...): at most `capacity` requests wait or
/// run at once; the next gets 503 with Retry-After instead of queueing without bound. The models themselves
/// run one call at a time per loaded network (each library entry type is an actor).
final class WorkQueue: Sendable {
    let capacity: Int
    private let inFlight = Locked(0)

    init(capacity: Int) { self.capacity = capacity }

    var load: Int { inFlight.withLock { $0 } }

    /// Takes a place in the queue, or throws 503 when it is full; `leave` gives it back.
    func admit() throws {
        let admitted = inFlight.withLock { count -> Bool in
            guard count < capacity else { return false }
            count += 1
            return true
        }
        guard admitted else {
            throw HTTPError(503, "the server is busy (\(capacity) requests already queued); try again shortly",
                            headers: [("Retry-After", "5")])
        }
    }

    func leave() { inFlight.withLock { $0 -= 1 } }

    func run<T: Sendable>(_ body: () async throws -> T) async throws -> T {
        try admit()
        defer { leave() }
        return try await body()
    }
}
