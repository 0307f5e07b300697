import Foundation

/// What a container says about itself, asked of ffprobe (installed with ffmpeg). Every answer is optional: without
/// ffprobe, or for a file it cannot read, callers fall back to what they know otherwise.
enum FFprobe {
    /// ffprobe's standard output for `arguments` followed by `path`, or nil when it is missing or fails.
    static func run(_ arguments: [String], path: String) -> Data? {
        guard let ffprobe = findExecutable("ffprobe") else { return nil }
        let probe = Process()
        probe.executableURL = URL(fileURLWithPath: ffprobe)
        probe.arguments = ["-v", "error"] + arguments + [path]
        let out = Pipe()
        probe.standardOutput = out
        probe.standardError = FileHandle.nullDevice
        probe.standardInput = FileHandle.nullDevice
        guard (try? probe.run()) != nil else { return nil }
        let data = out.fileHandleForReading.readDataToEndOfFile()
        probe.waitUntilExit()
        return probe.terminationStatus == 0 ? data : nil
    }

    /// The container's duration in seconds, or nil.
    static func duration(_ path: String) -> Double? {
        guard let data = run(["-show_entries", "format=duration", "-of", "default=nw=1:nk=1"], path: path) else { return nil }
        let text = String(decoding: data, as: UTF8.self)
        return Double(text.trimmingCharacters(in: .whitespacesAndNewlines)).flatMap { $0.isFinite && $0 > 0 ? $0 : nil }
    }

    /// The container's tags and then its streams' (a container's own value wins), keys lower-cased.
    static func tags(_ path: String) -> [String: String] {
        guard let data = run(["-show_entries", "format_tags:stream_tags", "-of", "json"], path: path),
              let json = try? JSONSerialization.jsonObject(with: data) as? [String: Any] else { return [:] }
        var tags: [String: String] = [:]
        let streams = (json["streams"] as? [[String: Any]] ?? []).compactMap { $0["tags"] as? [String: Any] }
        for group in [(json["format"] as? [String: Any])?["tags"] as? [String: Any] ?? [:]] + streams {
            for (key, value) in group {
                if let value = value as? String, tags[key.lowercased()] == nil { tags[key.lowercased()] = value }
            }
        }
        return tags
    }
}
