import Foundation

/// The public evaluation data beside the project (`../shared/data`, or `$EARSHOT_DATA`).
/// Absent on a user's machine: tests that need it skip with a message.
public enum SharedData {
    public static var root: URL? {
        if let custom = ProcessInfo.processInfo.environment["EARSHOT_DATA"], !custom.isEmpty {
            return URL(fileURLWithPath: custom)
        }
        let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
        let candidate = packageRoot.deletingLastPathComponent().appendingPathComponent("shared/data")
        return FileManager.default.fileExists(atPath: candidate.path) ? candidate : nil
    }

    /// A dataset folder, or nil when the data is not here.
    public static func folder(_ name: String) -> URL? {
        guard let dir = root?.appendingPathComponent(name), FileManager.default.fileExists(atPath: dir.path) else { return nil }
        return dir
    }

    /// Rows of a tab- or comma-separated file with a header line, as dictionaries.
    public static func table(_ url: URL, separator: Character) throws -> [[String: String]] {
        let lines = try String(contentsOf: url, encoding: .utf8).split(separator: "\n").map(String.init)
        guard let header = lines.first?.split(separator: separator, omittingEmptySubsequences: false).map(String.init) else { return [] }
        return lines.dropFirst().map { line in
            let fields = line.split(separator: separator, maxSplits: header.count - 1, omittingEmptySubsequences: false).map(String.init)
            return Dictionary(uniqueKeysWithValues: zip(header, fields))
        }
    }
}
