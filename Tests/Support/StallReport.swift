import Foundation

/// What this process's threads are doing when a step that takes seconds has run for minutes: a rare stall (seen once
/// in a CI run, never again by hand) becomes a log that says where every thread waits, not just which test timed
/// out. It reports and asserts nothing; the step still fails or passes on its own. Uses gdb when it is installed
/// (it is not one of the project's dependencies), else the kernel's name of each thread's wait.
public final class StallReport: @unchecked Sendable {
    // @unchecked: `item` is set once in init and only cancelled after.
    private let item: DispatchWorkItem

    /// Reports on standard error if `cancel` has not been called within `seconds`.
    public init(_ step: String, after seconds: Double) {
        item = DispatchWorkItem { StallReport.report(step, seconds: seconds) }
        // a queue of its own: the report must run even when every shared thread is taken
        DispatchQueue(label: "earshot.tests.stall-report").asyncAfter(deadline: .now() + seconds, execute: item)
    }

    public func cancel() { item.cancel() }

    private static func report(_ step: String, seconds: Double) {
        var text = "==> stall: \(step) has run for \(Int(seconds)) s; the threads of process \(getpid()):\n"
        if let gdb = ["/usr/bin/gdb", "/usr/local/bin/gdb"].first(where: FileManager.default.isExecutableFile(atPath:)) {
            // into a file, not a pipe: gdb stops this process while it reads the threads, so nothing here could drain a
            // pipe, and gdb would wait on it for ever
            let file = FileManager.default.temporaryDirectory.appendingPathComponent("earshot-stall-\(getpid())-\(UUID().uuidString).txt")
            _ = FileManager.default.createFile(atPath: file.path, contents: nil)
            defer { try? FileManager.default.removeItem(at: file) }
            let process = Process()
            process.executableURL = URL(fileURLWithPath: gdb)
            process.arguments = ["-p", String(getpid()), "-batch", "-nx", "-ex", "thread apply all bt 20"]
            if let output = try? FileHandle(forWritingTo: file) {
                process.standardOutput = output
                process.standardError = output
                if (try? process.run()) != nil { process.waitUntilExit() }
                try? output.close()
            }
            let output = (try? String(contentsOf: file, encoding: .utf8)) ?? ""
            text += output.split(separator: "\n").filter { $0.hasPrefix("Thread ") || $0.hasPrefix("#") }.joined(separator: "\n")
        } else {
            let tasks = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/task")) ?? []
            for task in tasks.sorted() {
                let name = (try? String(contentsOfFile: "/proc/self/task/\(task)/comm", encoding: .utf8)) ?? "?"
                let wait = (try? String(contentsOfFile: "/proc/self/task/\(task)/wchan", encoding: .utf8)) ?? "?"
                text += "thread \(task) \(name.trimmingCharacters(in: .whitespacesAndNewlines)): \(wait)\n"
            }
        }
        FileHandle.standardError.write(Data((text + "\n==> end of stall report\n").utf8))
    }
}
