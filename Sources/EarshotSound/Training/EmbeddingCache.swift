import EarshotCore
import Foundation

/// Window embeddings of files, stored under `EARSHOT_HOME/cache/sound-embeddings` by a hash of the file's
/// content, the window settings and the embedding model: retraining after adding files embeds only the
/// new ones, and a renamed file is still found. Entries are written atomically.
public struct EmbeddingCache: Sendable {
    public let directory: URL

    public init(store: ModelStore = ModelStore()) {
        directory = store.home.appendingPathComponent("cache/sound-embeddings")
    }

    /// A cache in a folder of your choice.
    public init(directory: URL) {
        self.directory = directory
    }

    public func key(contentHash: String, window: WindowSettings, modelHash: String) -> String {
        // "v2": entries hold each window's speech share (entries of the first layout are not read as this one)
        SHA256.hex(Data("\(contentHash)|\(window.duration)|\(window.overlap)|\(modelHash)|v2".utf8))
    }

    public func load(_ key: String) -> [SoundWindow]? {
        guard let data = try? Data(contentsOf: directory.appendingPathComponent(key + ".bin")), data.count >= 8 else { return nil }
        let floats = data.withUnsafeBytes { Array($0.bindMemory(to: Float.self)) }
        let count = Int(floats[0]), size = Int(floats[1])
        let stride = 3 + size
        guard floats.count == 2 + count * stride else { return nil }  // damaged: recompute
        return (0..<count).map { i in
            let base = 2 + i * stride
            let speech = floats[base + 2]
            return SoundWindow(start: Double(floats[base]), end: Double(floats[base + 1]),
                               embedding: Array(floats[(base + 3)..<(base + stride)]), scores: [],
                               speech: speech.isNaN ? nil : speech)
        }
    }

    /// Layout: window count, embedding size, then per window start, end, speech share (NaN: none) and the embedding.
    public func store(_ windows: [SoundWindow], key: String) {
        var floats: [Float] = [Float(windows.count), Float(windows.first?.embedding.count ?? 0)]
        for w in windows { floats += [Float(w.start), Float(w.end), w.speech ?? .nan] + w.embedding }
        try? FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        try? floats.withUnsafeBytes { Data($0) }.write(to: directory.appendingPathComponent(key + ".bin"), options: .atomic)
    }
}
