import Foundation

/// Work on numbered items, several at once, its results handed on in the items' order: what reading many
/// recordings on several lanes needs (`earshot transcribe` and `earshot batch` with `--jobs`). Each lane takes the
/// next item as it finishes one, so a long item holds up only its own lane; a result that is ready before those
/// ahead of it waits for them (at most the items read meanwhile, which are small next to the audio).
public enum InOrderLanes {
    /// Runs `work(index, lane)` for every index in `0..<count` on `lanes` lanes (lane numbers `0..<lanes`) and calls
    /// `emit(index, result)` for each, in index order, as soon as it and every result before it are ready. An error
    /// thrown by `emit` stops the run: the items still being worked on are cancelled.
    public static func run<Result: Sendable>(count: Int, lanes: Int,
                                            work: @escaping @Sendable (_ index: Int, _ lane: Int) async -> Result,
                                            emit: (_ index: Int, _ result: Result) throws -> Void) async throws {
        try await withThrowingTaskGroup(of: (index: Int, lane: Int, result: Result).self) { group in
            var started = 0, emitted = 0
            var waiting: [Int: Result] = [:]
            func start(on lane: Int) {
                guard started < count else { return }
                let index = started
                started += 1
                group.addTask { (index, lane, await work(index, lane)) }
            }
            for lane in 0..<max(1, lanes) { start(on: lane) }
            while let done = try await group.next() {
                start(on: done.lane)
                waiting[done.index] = done.result
                while let next = waiting.removeValue(forKey: emitted) {
                    try emit(emitted, next)
                    emitted += 1
                }
            }
        }
    }
}
