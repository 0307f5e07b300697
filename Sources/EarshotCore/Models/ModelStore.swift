import Foundation

/// Knows where setup put every runtime and model (under `EARSHOT_HOME`, default `~/.cache/earshot`).
/// It never downloads: a missing file is reported with the command that installs it.
public struct ModelStore: Sendable {
    public let home: URL

    public static let installCommand = "make setup"

    public init(home: URL? = nil) {
        self.home = home ?? ModelStore.defaultHome
    }

    public static var defaultHome: URL {
        if let custom = ProcessInfo.processInfo.environment["EARSHOT_HOME"], !custom.isEmpty {
            return URL(fileURLWithPath: custom)
        }
        return FileManager.default.homeDirectoryForCurrentUser.appendingPathComponent(".cache/earshot")
    }

    /// What identifies the installed build of a model: a hash of the stamp setup writes beside it (the hashes of
    /// the source files and of the tools that prepared them). It changes whenever the network could compute
    /// anything else, so caches and trained heads keyed by it are never used with another build.
    public func buildIdentity(of directory: String, model: String) throws -> String {
        let stamp = try file("\(directory)/.earshot-stamp", of: model)
        guard let data = FileManager.default.contents(atPath: stamp), !data.isEmpty else {
            throw ModelError.missing(model: model, path: stamp)
        }
        return SHA256.hex(data)
    }

    /// The path of an installed file, or an error naming the model (and how to install it). A file the
    /// catalogue lists must still be the one setup installed: a changed file is refused.
    public func file(_ relativePath: String, of model: String) throws -> String {
        let path = home.appendingPathComponent(relativePath).path
        guard FileManager.default.isReadableFile(atPath: path) else {
            throw ModelError.missing(model: model, path: path)
        }
        if let (_, record) = try ModelCatalogue.installed(in: self).file(relativePath),
           ModelCatalogue.state(of: record, home: home) != .installed {
            throw ModelError.modified(model: model, path: path)
        }
        return path
    }

    /// `file(_:of:)` for a file that only some forms of a model have: nil when it is not there.
    public func fileIfPresent(_ relativePath: String, of model: String) throws -> String? {
        FileManager.default.fileExists(atPath: home.appendingPathComponent(relativePath).path)
            ? try file(relativePath, of: model) : nil
    }
}

public enum ModelError: Error, LocalizedError, Equatable {
    case missing(model: String, path: String)
    case failedToLoad(model: String, detail: String)
    /// The file is not the one setup installed (its size or SHA-256 differs from the catalogue's).
    case modified(model: String, path: String)
    case unknown(name: String, choices: [String])

    public var errorDescription: String? {
        switch self {
        case let .missing(model, path): return "model \(model) is not installed (no \(path))"
        case let .failedToLoad(model, detail): return "model \(model) could not be loaded (\(detail))"
        case let .modified(model, path):
            return "model \(model): \(path) is not the file setup installed (its SHA-256 differs from the model catalogue's)"
        case let .unknown(name, choices):
            return "unknown model '\(name)'; choose one of: \(choices.joined(separator: ", "))"
        }
    }

    public var recoverySuggestion: String? {
        switch self {
        case .missing, .failedToLoad, .modified:
            return "install it with `\(ModelStore.installCommand)` in the Earshot source folder (set EARSHOT_HOME if you installed elsewhere)"
        case .unknown: return nil
        }
    }
}
