import EarshotCore
import Foundation

/// Results kept as files named by what they are of — the recording's bytes and the job's tasks and options —
/// so a rerun (or another shard, or a copy of the same file under another name) skips work already done.
/// Each result is written atomically: a worker killed mid-write leaves no half file. Failures are not kept,
/// so a rerun tries those files again.
public struct BatchOutputFolder: Sendable {
    public let path: String

    public init(path: String) throws {
        self.path = path
        do { try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true) } catch {
            throw BatchError.badManifest(path: path, problem: "cannot create the output folder: \(error.localizedDescription)")
        }
    }

    /// The file a job's result goes in: the recording's SHA-256 (first 32 hex digits), then a digest of its tasks
    /// and options. Reads the whole recording (a megabyte at a time).
    public func resultFile(for job: BatchJob) throws -> String {
        let content = try SHA256.hex(fileAt: job.path)
        let settings = try EarshotJSON.text(Settings(tasks: job.tasks.map(\.rawValue).sorted(), options: job.options), pretty: false)
        return "\(path)/\(content.prefix(32))-\(SHA256.hex(Data(settings.utf8)).prefix(8)).json"
    }

    private struct Settings: Encodable {
        let tasks: [String]
        let options: BatchOptions
    }

    /// The kept result, when this job was done before.
    public func kept(at file: String) -> BatchResult? {
        guard let data = FileManager.default.contents(atPath: file) else { return nil }
        return try? EarshotJSON.decoder().decode(BatchResult.self, from: data)
    }

    public func keep(_ result: BatchResult, at file: String) throws {
        try Data((result.line + "\n").utf8).write(to: URL(fileURLWithPath: file), options: .atomic)
    }
}
