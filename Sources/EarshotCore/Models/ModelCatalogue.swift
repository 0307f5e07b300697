import Foundation

/// Every model and native runtime setup installed, as setup recorded them in `models/catalogue.json` under
/// `EARSHOT_HOME`: what each is for, its licence, and each file's SHA-256, size and modification time.
/// (The repository's `scripts/lock/models.json` is the same list with the pinned hashes of the downloads.)
public struct ModelCatalogue: Sendable, Codable, Equatable {
    public struct File: Sendable, Codable, Equatable {
        public var path: String
        public var sha256: String
        public var bytes: Int
        /// Seconds since 1970, as setup saw it: a file still this size and this old is taken as verified.
        public var modified: Double
    }

    public struct Model: Sendable, Codable, Equatable {
        public var id: String
        public var name: String
        /// "model", "runtime" or "reference" (float references the tests compare with).
        public var kind: String
        /// What needs it: transcription, sounds, voice, notes, tests.
        public var capabilities: [String]
        public var licence: String
        public var origin: String
        public var files: [File]
    }

    public var models: [Model]

    public static let relativePath = "models/catalogue.json"

    /// The catalogue setup wrote under `store`'s home: read once, and again only when setup rewrites it
    /// (every model file a network opens is checked against it).
    public static func installed(in store: ModelStore = ModelStore()) throws -> ModelCatalogue {
        let url = store.home.appendingPathComponent(relativePath)
        guard let attributes = try? FileManager.default.attributesOfItem(atPath: url.path) else {
            throw ModelError.missing(model: "model catalogue", path: url.path)
        }
        let version = "\(attributes[.size] ?? 0) \((attributes[.modificationDate] as? Date)?.timeIntervalSince1970 ?? 0)"
        if let (seen, catalogue) = read.withLock({ $0[url.path] }), seen == version { return catalogue }
        guard let data = FileManager.default.contents(atPath: url.path) else {
            throw ModelError.missing(model: "model catalogue", path: url.path)
        }
        let catalogue: ModelCatalogue
        do { catalogue = try JSONDecoder().decode(ModelCatalogue.self, from: data) } catch {
            throw ModelError.failedToLoad(model: "model catalogue", detail: "\(url.path) is damaged")
        }
        read.withLock { $0[url.path] = (version, catalogue) }
        return catalogue
    }

    private static let read = Locked<[String: (version: String, catalogue: ModelCatalogue)]>([:])

    /// The entry of an installed file, by its path under the home.
    public func file(_ relativePath: String) -> (model: Model, file: File)? {
        for model in models { if let file = model.files.first(where: { $0.path == relativePath }) { return (model, file) } }
        return nil
    }

    /// How an installed file compares with its record.
    public enum FileState: String, Sendable, Codable {
        case installed, missing, modified
    }

    /// Checks a file against its record: size and modification time first (cheap), its SHA-256 when they
    /// differ or when `thorough` (a file that hashed right is not hashed again while it keeps its size and date).
    public static func state(of file: File, home: URL, thorough: Bool = false) -> FileState {
        // setup's record follows symbolic links (libllama.so is one)
        let path = home.appendingPathComponent(file.path).resolvingSymlinksInPath().path
        guard let attributes = try? FileManager.default.attributesOfItem(atPath: path),
              let size = attributes[.size] as? Int else { return .missing }
        guard size == file.bytes else { return .modified }
        let modified = (attributes[.modificationDate] as? Date)?.timeIntervalSince1970 ?? 0
        if !thorough && abs(modified - file.modified) < 1e-3 { return .installed }
        let fingerprint = "\(path) \(size) \(modified) \(file.sha256)"
        if !thorough && hashedRight.withLock({ $0.contains(fingerprint) }) { return .installed }
        guard let data = try? Data(contentsOf: URL(fileURLWithPath: path), options: .alwaysMapped) else { return .missing }
        guard SHA256.hex(data) == file.sha256 else { return .modified }
        hashedRight.withLock { _ = $0.insert(fingerprint) }
        return .installed
    }

    private static let hashedRight = Locked<Set<String>>([])
}
