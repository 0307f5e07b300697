import Foundation

/// This machine's CPU as /proc/cpuinfo describes its first core: its model name and its flags. Results that depend
/// on the kernels a CPU's extensions choose (float references' readings) are keyed by `identity`; `earshot doctor`
/// prints the model and the flags that decide which kernels run.
public enum CPUInfo {
    /// The "model name" and "flags" lines as /proc/cpuinfo writes them ("" where it cannot be read).
    public static var identity: String {
        lines.filter { $0.hasPrefix("model name") || $0.hasPrefix("flags") }.prefix(2).joined(separator: "\n")
    }

    public static var model: String { field("model name") ?? "unknown" }

    public static var flags: Set<String> { Set((field("flags") ?? "").split(separator: " ").map(String.init)) }

    /// Read once: the CPU does not change under a running process.
    private static let lines: [Substring] = ((try? String(contentsOfFile: "/proc/cpuinfo", encoding: .utf8)) ?? "").split(separator: "\n")

    private static func field(_ name: String) -> String? {
        lines.first { $0.hasPrefix(name) }.flatMap { $0.split(separator: ":", maxSplits: 1).last }
            .map { $0.trimmingCharacters(in: .whitespaces) }
    }
}
