import Dispatch

/// A serial executor on a dispatch queue of its own. Earshot's actors run long synchronous model work
/// (seconds of Whisper or enrolment training); on Swift's shared cooperative pool — one thread per core —
/// that would hold a thread other tasks need. Each actor gets its own queue instead.
public final class DispatchQueueExecutor: SerialExecutor, Sendable {
    private let queue: DispatchQueue

    public init(label: String) {
        queue = DispatchQueue(label: label, qos: .userInitiated)
    }

    public func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        queue.async { job.runSynchronously(on: self.asUnownedSerialExecutor()) }
    }

    public func asUnownedSerialExecutor() -> UnownedSerialExecutor {
        UnownedSerialExecutor(ordinary: self)
    }
}
