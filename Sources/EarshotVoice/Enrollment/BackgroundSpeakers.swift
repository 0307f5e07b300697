import EarshotCore
import Foundation

/// Other people's voices for enrolment to train against: by default the set setup synthesises with
/// espeak-ng's voices (`EARSHOT_HOME/voice/background`), or a folder of real recordings. Their window
/// d-vectors are computed once and cached beside the profiles.
public struct BackgroundSpeakers: Sendable {
    public let directory: String
    let cacheDirectory: URL

    public init(directory: String? = nil, store: ModelStore = ModelStore()) {
        self.directory = directory ?? store.home.appendingPathComponent("voice/background").path
        cacheDirectory = store.home.appendingPathComponent("voice/cache")
    }

    public func files() -> [String] {
        let extensions: Set<String> = ["wav", "flac", "ogg", "mp3", "m4a", "opus"]
        let root = URL(fileURLWithPath: directory).resolvingSymlinksInPath().path  // a linked folder is listed too
        return ((try? FileManager.default.subpathsOfDirectory(atPath: root)) ?? [])
            .filter { extensions.contains(($0 as NSString).pathExtension.lowercased()) }.sorted()
            .map { "\(root)/\($0)" }
    }

    /// Window d-vectors of every background recording (unreadable or speechless ones are skipped).
    public func windows(using enrollment: SpeakerEnrollment, progress: ((Int, Int) -> Void)? = nil) throws -> [[Float]] {
        let files = files()
        guard !files.isEmpty else { throw VoiceError.noBackground(path: directory) }
        let listing = files.map { file -> String in
            let attributes = try? FileManager.default.attributesOfItem(atPath: file)
            return "\(file):\(attributes?[.size] as? Int ?? 0):\((attributes?[.modificationDate] as? Date)?.timeIntervalSince1970 ?? 0)"
        }
        // what computes the windows, besides the encoder's build: the first recording's windows, computed now. Earshot's
        // own front-end, speech trimming and windowing shape them, and a change to any of them left this cache holding
        // windows the new code would not compute (the model's hash alone does not change with them)
        let first = try? enrollment.windows(of: files[0], minimumSpeech: 0.5)
        let probe = SHA256.hex((first ?? []).flatMap { $0 }.withUnsafeBytes { Data($0) })
        let key = SHA256.hex(Data((listing + [enrollment.encoder.modelHash, probe]).joined(separator: "\n").utf8))
        let folder = "background-\(SHA256.hex(Data(directory.utf8)).prefix(8))-"
        let cache = cacheDirectory.appendingPathComponent("\(folder)\(key.prefix(16)).bin")
        if let data = try? Data(contentsOf: cache), data.count % (4 * SpeakerEncoder.dimension) == 0, !data.isEmpty {
            let floats = data.withUnsafeBytes { Array($0.bindMemory(to: Float.self)) }
            return stride(from: 0, to: floats.count, by: SpeakerEncoder.dimension).map { Array(floats[$0..<($0 + SpeakerEncoder.dimension)]) }
        }
        var all: [[Float]] = first ?? []
        progress?(1, files.count)
        for (i, file) in files.enumerated().dropFirst() {
            if let w = try? enrollment.windows(of: file, minimumSpeech: 0.5) { all += w }
            progress?(i + 1, files.count)
        }
        guard !all.isEmpty else { throw VoiceError.noBackground(path: directory) }
        try? FileManager.default.createDirectory(at: cacheDirectory, withIntermediateDirectories: true)
        try? all.flatMap { $0 }.withUnsafeBytes { Data($0) }.write(to: cache, options: .atomic)
        // windows kept for this folder's earlier recordings or by other code are not read again (one file per folder;
        // names of 16 hex digits alone are from before the folder was in the name)
        for old in (try? FileManager.default.contentsOfDirectory(atPath: cacheDirectory.path)) ?? []
        where (old.hasPrefix(folder) || old.count == "background-".count + 16 + ".bin".count) && old != cache.lastPathComponent {
            try? FileManager.default.removeItem(at: cacheDirectory.appendingPathComponent(old))
        }
        return all
    }
}
