import Foundation

/// Facts about processes that several parts of Earshot need: is a worker still running, who started a process,
/// which program is this, and a signal's name for a message.
public enum ProcessStatus {
    /// Whether `pid` runs. A zombie (dead, not yet reaped: common in containers whose first process reaps
    /// nothing) answers kill(pid, 0) like a live process, so its state in /proc is read too.
    public static func isRunning(_ pid: Int32) -> Bool {
        guard kill(pid, 0) == 0 || errno == EPERM else { return false }
        return stat(pid)?.first != "Z"
    }

    /// The parent of `pid`, from /proc.
    public static func parent(of pid: Int32) -> Int32? {
        stat(pid).flatMap { $0.count > 1 ? Int32($0[1]) : nil }
    }

    /// /proc/PID/stat after the command name ("state ppid ..."): the name may hold spaces, so read after the last ')'.
    private static func stat(_ pid: Int32) -> [Substring]? {
        guard let text = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8), let close = text.lastIndex(of: ")") else { return nil }
        return text[text.index(after: close)...].split(separator: " ")
    }

    /// The running program's path (/proc/self/exe), for finding programs installed beside it or starting itself again.
    public static var programPath: String {
        (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
    }

    /// "illegal instruction (signal 4)".
    public static func describe(signal: Int32) -> String {
        "\(String(cString: strsignal(signal)).lowercased()) (signal \(signal))"
    }
}
