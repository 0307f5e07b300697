import Foundation

/// Why a piece of audio could not be read. Every message names the file and says what to do.
public enum AudioError: Error, LocalizedError, Equatable {
    case unreadable(path: String, reason: String)
    case empty(path: String)
    case truncated(path: String, detail: String)
    case notAudio(path: String, detail: String)
    case unsupported(path: String, detail: String)
    case noSamples(path: String)
    /// It decodes, but what it holds cannot be sound: a forged sample rate, NaN or infinite samples.
    case damaged(path: String, detail: String)
    case missingTool(path: String, tool: String, install: String)
    case resampling(detail: String)

    public var errorDescription: String? {
        switch self {
        case let .unreadable(path, reason): return "\(path): cannot read file (\(reason))"
        case let .empty(path): return "\(path): file is empty"
        case let .truncated(path, detail): return "\(path): truncated audio file (\(detail))"
        case let .notAudio(path, detail): return "\(path): not an audio file (\(detail))"
        case let .unsupported(path, detail): return "\(path): unsupported audio format (\(detail))"
        case let .noSamples(path): return "\(path): contains no audio samples"
        case let .damaged(path, detail): return "\(path): damaged audio (\(detail))"
        case let .missingTool(path, tool, install):
            return "\(path): this format needs \(tool), which is not installed (install it with: \(install))"
        case let .resampling(detail): return "resampling failed: \(detail)"
        }
    }
}
