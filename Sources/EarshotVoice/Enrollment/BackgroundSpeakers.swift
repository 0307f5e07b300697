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
        let listing = files.map { "\($0):\((try? FileManager.default.attributesOfItem(atPath: $0)[.size] as? Int) ?? 0)" }
        let key = SHA256.hex(Data((listing + [enrollment.encoder.modelHash]).joined(separator: "\n").utf8))
        let cache = cacheDirectory.appendingPathComponent("background-\(key.prefix(16)).bin")
        if let data = try? Data(contentsOf: cache), data.count % (4 * SpeakerEncoder.dimension) == 0, !data.isEmpty {
            let floats = data.withUnsafeBytes { Array($0.bindMemory(to: Float.self)) }
            return stride(from: 0, to: floats.count, by: SpeakerEncoder.dimension).map { Array(floats[$0..<($0 + SpeakerEncoder.dimension)]) }
        }
        var all: [[Float]] = []
        for (i, file) in files.enumerated() {
            if let w = try? enrollment.windows(of: file, minimumSpeech: 0.5) { all += w }
            progress?(i + 1, files.count)
        }
        guard !all.isEmpty else { throw VoiceError.noBackground(path: directory) }
        try? FileManager.default.createDirectory(at: cacheDirectory, withIntermediateDirectories: true)
        try? all.flatMap { $0 }.withUnsafeBytes { Data($0) }.write(to: cache, options: .atomic)
        return all
    }
}
