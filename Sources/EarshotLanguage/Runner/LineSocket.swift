import Foundation
import Glibc

/// One end of a stream socket that carries JSON objects, one a line: what the runner's worker, its host and the
/// host's clients speak. Sends never raise SIGPIPE, and a read waits no longer than its deadline. Not
/// thread-safe: one owner at a time.
final class LineSocket {
    let fd: Int32
    private var buffered = Data()

    /// What a read got instead of a line.
    enum Failure: Error {
        case ended  // the other end closed (or reset) the socket
        case timedOut
        case unreadable  // a line that is not the JSON expected
    }

    init(fd: Int32) { self.fd = fd }
    deinit { close(fd) }

    func send(_ value: some Encodable) throws(Failure) {
        guard var line = try? JSONEncoder().encode(value) else { throw .unreadable }
        line.append(0x0A)
        let sent = line.withUnsafeBytes { raw -> Bool in
            var offset = 0
            while offset < raw.count {
                let n = Glibc.send(fd, raw.baseAddress! + offset, raw.count - offset, Int32(MSG_NOSIGNAL))
                if n < 0 && errno == EINTR { continue }
                guard n > 0 else { return false }
                offset += n
            }
            return true
        }
        if !sent { throw .ended }
    }

    /// The next line, decoded; waits until `deadline` (nil: as long as the other end is there).
    func receive<T: Decodable>(_ type: T.Type, deadline: Date? = nil) throws(Failure) -> T {
        while true {
            if let newline = buffered.firstIndex(of: 0x0A) {
                let line = buffered[buffered.startIndex..<newline]
                buffered = Data(buffered[(newline + 1)...])
                guard let value = try? JSONDecoder().decode(T.self, from: line) else { throw .unreadable }
                return value
            }
            let left = deadline.map { $0.timeIntervalSinceNow } ?? 3600
            guard left > 0 else { throw .timedOut }
            var poller = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            let ready = poll(&poller, 1, Int32(min(left, 3600) * 1000))
            if ready < 0 && errno == EINTR { continue }
            guard ready > 0 else { continue }
            var chunk = [UInt8](repeating: 0, count: 65_536)
            let n = recv(fd, &chunk, chunk.count, 0)
            if n < 0 && errno == EINTR { continue }
            guard n > 0 else { throw .ended }
            buffered.append(contentsOf: chunk[..<n])
        }
    }
}
