import Foundation

/// The windows of one recording read on several lanes at once, their results taken in the windows' order. A window's
/// decoding steps are too small to keep two threads busy, so two windows read side by side, one thread each, finish
/// sooner than one after the other on both threads; the text is the same, as each window is decoded alone with the
/// same options and Whisper's results do not depend on its thread count.
///
/// Used from one thread (the transcriber's): `submit` starts a window as soon as a lane is free (waiting for one when
/// all are busy), `next` waits for the oldest window's result. At most `limit` windows are held at a time, so memory
/// stays bounded however long the recording.
final class WindowsInFlight<Item>: @unchecked Sendable {
    // @unchecked: `pending` is touched only by the one thread that uses this; the rest is immutable.
    typealias Read = (item: Item, result: Result<SpeechRecognizer.WindowResult, Error>)
    typealias Reader = @Sendable (ArraySlice<Float>, SpeechRecognizer.Decoding) throws -> SpeechRecognizer.WindowResult

    /// One submitted window: its result is set on the lane that read it, then `done` is signalled.
    private final class Pending: @unchecked Sendable {
        // @unchecked: `result` is written once on a lane before `done.signal()` and read only after `done.wait()`
        let item: Item
        var result: Result<SpeechRecognizer.WindowResult, Error> = .failure(CancellationError())
        let done = DispatchSemaphore(value: 0)
        init(_ item: Item) { self.item = item }
    }

    private let reader: Reader
    /// The lanes: a concurrent queue, `lanesFree` keeping it to `lanes` windows at a time.
    private let queue = DispatchQueue(label: "earshot.transcriber.windows", attributes: .concurrent)
    private let lanesFree: DispatchSemaphore
    private var pending: [Pending] = []
    /// The most windows submitted and not yet taken: two per lane, so a lane that finishes a short window is given the
    /// next one while the oldest is still being read.
    let limit: Int

    /// `reader` reads one window as it is told; it is called from `lanes` threads at once.
    init(lanes: Int, reader: @escaping Reader) {
        let lanes = max(1, lanes)
        self.reader = reader
        lanesFree = DispatchSemaphore(value: lanes)
        limit = 2 * lanes
    }

    var isFull: Bool { pending.count >= limit }
    var isEmpty: Bool { pending.isEmpty }

    /// Starts reading `samples` as `decoding` says on the next free lane; call only when not `isFull`.
    func submit(_ item: Item, samples: ArraySlice<Float>, as decoding: SpeechRecognizer.Decoding) {
        precondition(!isFull)
        let window = Pending(item)
        pending.append(window)
        lanesFree.wait()
        queue.async { [reader, lanesFree] in
            window.result = Result { try reader(samples, decoding) }
            lanesFree.signal()
            window.done.signal()
        }
    }

    /// The oldest submitted window and its result, once it is read; nil when none is waiting.
    func next() -> Read? {
        guard !pending.isEmpty else { return nil }
        let window = pending.removeFirst()
        window.done.wait()
        return (window.item, window.result)
    }

    /// Waits for every window still being read (after an error, so nothing runs on once the caller has returned).
    func finishAll() {
        while next() != nil {}
    }
}
