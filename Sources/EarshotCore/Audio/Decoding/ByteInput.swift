import Foundation

/// Bytes read in order from a file, a pipe or memory. Decoders read a block at a time through it, so the
/// memory a recording needs does not grow with its length.
protocol ByteInput: AnyObject {
    /// Up to `count` bytes; fewer only at the end of the input.
    func read(_ count: Int) throws -> [UInt8]
    /// Bytes not yet read, when the input knows (a pipe does not).
    var remaining: Int? { get }
    /// Passes over `count` bytes (a chunk the decoder does not need), or to the end when fewer are left.
    func skip(_ count: Int) throws
}

extension ByteInput {
    func skip(_ count: Int) throws { try skipByReading(count) }

    fileprivate func skipByReading(_ count: Int) throws {
        var left = count
        while left > 0 {
            let got = try read(min(left, 1 << 20)).count
            if got == 0 { return }
            left -= got
        }
    }
}

/// An open file descriptor: a regular file (whose size is known) or a pipe.
final class FileInput: ByteInput {
    private let fd: Int32
    private let name: String
    private let ownsDescriptor: Bool
    private var left: Int?

    /// Opens a regular file for reading.
    init(path: String, name: String) throws {
        fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw AudioError.unreadable(path: name, reason: String(cString: strerror(errno))) }
        self.name = name
        ownsDescriptor = true
        var info = stat()
        left = fstat(fd, &info) == 0 && info.st_mode & S_IFMT == S_IFREG ? Int(info.st_size) : nil
    }

    /// Reads a descriptor someone else owns (a pipe from ffmpeg) until its end.
    init(descriptor: Int32, name: String) {
        fd = descriptor
        self.name = name
        ownsDescriptor = false
        left = nil
    }

    deinit { if ownsDescriptor { close(fd) } }

    var remaining: Int? { left }

    /// Back to the first byte of a regular file (after its first bytes were read to tell its format).
    func rewind() throws {
        var info = stat()
        guard fstat(fd, &info) == 0, lseek(fd, 0, SEEK_SET) == 0 else {
            throw AudioError.unreadable(path: name, reason: String(cString: strerror(errno)))
        }
        left = Int(info.st_size)
    }

    /// Skips by seeking where the file allows it, without reading the bytes.
    func skip(_ count: Int) throws {
        guard let size = left else { return try skipByReading(count) }
        let step = min(count, size)
        guard lseek(fd, off_t(step), SEEK_CUR) >= 0 else {
            throw AudioError.unreadable(path: name, reason: String(cString: strerror(errno)))
        }
        left = size - step
    }

    func read(_ count: Int) throws -> [UInt8] {
        var bytes = [UInt8](repeating: 0, count: count)
        var filled = 0
        while filled < count {
            let got = bytes.withUnsafeMutableBytes { Foundation.read(fd, $0.baseAddress! + filled, count - filled) }
            if got == 0 { break }
            if got < 0 {
                if errno == EINTR { continue }
                throw AudioError.unreadable(path: name, reason: String(cString: strerror(errno)))
            }
            filled += got
        }
        if filled < count { bytes.removeSubrange(filled...) }
        left = left.map { max(0, $0 - filled) }
        return bytes
    }
}

/// Bytes already in memory (tests, fuzzing, a WAV received whole).
final class DataInput: ByteInput {
    private let data: Data
    private var offset: Int

    init(_ data: Data) {
        self.data = data
        offset = data.startIndex
    }

    var remaining: Int? { data.endIndex - offset }

    func read(_ count: Int) throws -> [UInt8] {
        let end = min(data.endIndex, offset + count)
        defer { offset = end }
        return [UInt8](data[offset..<end])
    }
}
