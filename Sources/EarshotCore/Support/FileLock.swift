import Foundation

/// An exclusive advisory lock on a file (flock), held while `body` runs: serialises read-modify-write work
/// on a store across processes. The kernel releases it if the process dies, so a killed holder never leaves
/// the store locked.
public enum FileLock {
    public static func withExclusiveLock<T>(at url: URL, _ body: () throws -> T) throws -> T {
        try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        let fd = open(url.path, O_RDWR | O_CREAT | O_CLOEXEC, 0o644)
        guard fd >= 0 else {
            throw CocoaError(.fileWriteUnknown, userInfo: [NSFilePathErrorKey: url.path,
                                                          NSLocalizedFailureReasonErrorKey: String(cString: strerror(errno))])
        }
        defer { close(fd) }
        while flock(fd, LOCK_EX) != 0 {
            guard errno == EINTR else {
                throw CocoaError(.fileWriteUnknown, userInfo: [NSFilePathErrorKey: url.path,
                                                              NSLocalizedFailureReasonErrorKey: String(cString: strerror(errno))])
            }
        }
        defer { flock(fd, LOCK_UN) }
        return try body()
    }
}
