import EarshotCore
import Foundation

/// The processes this one started, and theirs, read from /proc (tests find a language model's worker to stop it).
public enum ChildProcesses {
    /// Running descendants of this process whose command line contains every one of `words`.
    public static func find(_ words: [String]) -> [pid_t] {
        let me = getpid()
        return running(words).filter { pid in
            var ancestor = ProcessStatus.parent(of: pid)
            while let next = ancestor, next > 1 {
                if next == me { return true }
                ancestor = ProcessStatus.parent(of: next)
            }
            return false
        }
    }

    /// Every running process of the machine whose command line contains every one of `words`.
    public static func running(_ words: [String]) -> [pid_t] {
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
        return entries.compactMap { Int32($0) }.filter { pid in
            let command = (try? Data(contentsOf: URL(fileURLWithPath: "/proc/\(pid)/cmdline"))).map {
                String(decoding: $0.map { $0 == 0 ? 0x20 : $0 }, as: UTF8.self)
            } ?? ""
            return ProcessStatus.isRunning(pid) && words.allSatisfy(command.contains)
        }
    }

    /// Waits up to `seconds` for such a child to appear.
    public static func wait(for words: [String], seconds: Double) -> pid_t? {
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline {
            if let pid = find(words).first { return pid }
            Thread.sleep(forTimeInterval: 0.05)
        }
        return nil
    }
}
