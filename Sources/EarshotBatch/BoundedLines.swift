import EarshotCore
import Foundation

/// Lines of a file descriptor (standard input, for `earshot batch`), each read up to `InputLimits.batchLineBytes`:
/// a longer line is skipped to its end without being kept, and given as `.tooLong` with its size, so one endless
/// line cannot take the memory of a worker that streams job lines.
public struct BoundedLines {
    public enum Line: Equatable {
        case text(String)
        case tooLong(bytes: Int)
    }

    private let descriptor: Int32
    private let limit: Int
    private var buffer: [UInt8] = []
    private var start = 0
    private var ended = false

    public init(descriptor: Int32 = STDIN_FILENO, limit: Int = InputLimits.batchLineBytes) {
        self.descriptor = descriptor
        self.limit = limit
    }

    /// The next line without its line break, or nil at the end of the input.
    public mutating func next() -> Line? {
        var kept: [UInt8] = [], length = 0
        while true {
            if start < buffer.count {
                let end = buffer[start...].firstIndex(of: UInt8(ascii: "\n"))
                let piece = buffer[start..<(end ?? buffer.count)]
                length += piece.count
                if length <= limit { kept += piece }
                start = end.map { $0 + 1 } ?? buffer.count
                if end != nil { return line(kept, length) }
            }
            guard !ended else { return length > 0 ? line(kept, length) : nil }
            buffer = [UInt8](repeating: 0, count: 1 << 16)
            start = 0
            let count = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            if count <= 0 { ended = true; buffer = [] } else { buffer.removeSubrange(count...) }
        }
    }

    private func line(_ bytes: [UInt8], _ length: Int) -> Line {
        guard length <= limit else { return .tooLong(bytes: length) }
        var text = String(decoding: bytes, as: UTF8.self)
        if text.hasSuffix("\r") { text.removeLast() }
        return .text(text)
    }
}
