import EarshotCore
import Foundation

/// The processes this one started, read from /proc (tests find a runner to stop it).
public enum ChildProcesses {
    /// Children of this process whose command line contains every one of `words`.
    public static func find(_ words: [String]) -> [pid_t] {
        let me = getpid()
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
        return entries.compactMap { Int32($0) }.filter { pid in
            guard ProcessStatus.parent(of: pid) == me else { return false }
            let command = (try? Data(contentsOf: URL(fileURLWithPath: "/proc/\(pid)/cmdline"))).map {
                String(decoding: $0.map { $0 == 0 ? 0x20 : $0 }, as: UTF8.self)
            } ?? ""
            return words.allSatisfy(command.contains)
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
