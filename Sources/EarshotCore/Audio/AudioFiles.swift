import Foundation

/// Which files in a folder are recordings, judged by their names: what folder-wide commands (sound training,
/// batch transcription) pick up. Anything else Earshot can decode still works when named directly.
public enum AudioFiles {
    public static let extensions: Set<String> = ["wav", "flac", "ogg", "oga", "opus", "mp3", "m4a", "aac", "aif", "aiff", "webm", "caf", "amr", "3gp", "mp4", "mka", "wma"]

    public static func isAudio(_ path: String) -> Bool {
        extensions.contains((path as NSString).pathExtension.lowercased())
    }

    /// The recordings below `folder` (all depths, links followed, hidden entries skipped), as paths that begin
    /// with `folder`, sorted.
    public static func list(under folder: String) -> [String] {
        let resolved = URL(fileURLWithPath: folder).resolvingSymlinksInPath().path
        let relative = ((try? FileManager.default.subpathsOfDirectory(atPath: resolved)) ?? [])
            .filter { isAudio($0) && !$0.split(separator: "/").contains { $0.hasPrefix(".") } }
        let base = folder.hasSuffix("/") ? String(folder.dropLast()) : folder
        return relative.sorted().map { "\(base)/\($0)" }
    }
}
