import Foundation

/// The recent audio of a stream, addressed by absolute sample index, with the time each block arrived:
/// live streams keep a fixed stretch, recordings read block by block keep what their pieces still need.
struct AudioHistory {
    private var buffer: [Float] = []
    private var first = 0  // absolute index of buffer[0]
    private var arrivals: [(end: Int, time: Date)] = []
    /// Samples a live stream keeps; nil when the owner says what to forget.
    let keep: Int?

    init(keep: Int?) { self.keep = keep }

    /// One past the last sample appended: the length of the stream so far.
    var end: Int { first + buffer.count }
    /// Samples held now.
    var count: Int { buffer.count }

    mutating func append(_ chunk: [Float]) {
        buffer += chunk
        arrivals.append((end, Date()))
        if let keep { forget(before: end - keep) }
    }

    /// Drops the samples before `index`, in large steps so appends stay cheap.
    mutating func forget(before index: Int) {
        let drop = min(index, end) - first
        guard drop > 0, drop >= buffer.count / 2 else { return }
        buffer.removeFirst(drop)
        first += drop
        arrivals.removeAll { $0.end < first }
    }

    func samples(from start: Int, to stop: Int) -> ArraySlice<Float> {
        let a = max(first, start) - first
        let b = min(end, stop) - first
        return a < b ? buffer[a..<b] : []
    }

    /// When the chunk holding sample `index` arrived.
    func arrival(of index: Int) -> Date {
        arrivals.first { $0.end > index }?.time ?? arrivals.last?.time ?? Date()
    }
}
