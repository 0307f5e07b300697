import EarshotCore
import Foundation

/// The files a batch works through when it is given folders and manifests instead of job lines, and the
/// share of them one worker of several takes (`--shard I/N`).
public enum BatchInputs {
    /// Jobs for every recording below each folder (all depths, sorted) and every line of each manifest, in the
    /// order given. A manifest is a text file of paths, one per line (relative paths are taken from the
    /// manifest's folder; blank lines and `#` comments skipped), or of job lines (`{"path": ...}`); its own
    /// tasks and options stand, the others get `tasks` and `options`. A job's id is its path as listed.
    public static func jobs(from inputs: [String], tasks: [BatchTask], options: BatchOptions) throws -> [BatchJob] {
        var jobs: [BatchJob] = []
        for input in inputs {
            var isFolder: ObjCBool = false
            guard FileManager.default.fileExists(atPath: input, isDirectory: &isFolder) else {
                throw BatchError.badManifest(path: input, problem: "no such file or folder")
            }
            if isFolder.boolValue {
                jobs += AudioFiles.list(under: input).map { BatchJob(path: $0, tasks: tasks, options: options) }
            } else if AudioFiles.isAudio(input) {
                jobs.append(BatchJob(path: input, tasks: tasks, options: options))
            } else {
                jobs += try manifest(input, tasks: tasks, options: options)
            }
        }
        var seen = Set<String>()
        for job in jobs where !seen.insert(job.id).inserted {
            throw BatchError.badManifest(path: job.path, problem: "listed twice (ids must be unique)")
        }
        return jobs
    }

    static func manifest(_ path: String, tasks: [BatchTask], options: BatchOptions) throws -> [BatchJob] {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw BatchError.badManifest(path: path, problem: "cannot be read")
        }
        guard let text = String(data: data, encoding: .utf8), !data.contains(0) else {
            throw BatchError.badManifest(path: path, problem: "is neither a recording Earshot knows by its name nor a text manifest")
        }
        let folder = (path as NSString).deletingLastPathComponent
        var jobs: [BatchJob] = []
        for (index, raw) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let line = raw.trimmingCharacters(in: .whitespacesAndNewlines)
            if line.isEmpty || line.hasPrefix("#") { continue }
            if line.hasPrefix("{") {
                do { jobs.append(try BatchJob.parse(line: line, number: index + 1, tasks: tasks, options: options)) } catch {
                    throw BatchError.badManifest(path: path, problem: error.localizedDescription)
                }
            } else {
                let file = line.hasPrefix("/") || folder.isEmpty ? line : "\(folder)/\(line)"
                jobs.append(BatchJob(path: file, tasks: tasks, options: options))
            }
        }
        return jobs
    }

    /// `I/N` as (I, N), 0 ≤ I < N.
    public static func shard(_ text: String) throws -> (index: Int, count: Int) {
        let parts = text.split(separator: "/")
        guard parts.count == 2, let i = Int(parts[0]), let n = Int(parts[1]), n >= 1, (0..<n).contains(i) else {
            throw BatchError.badShard("--shard takes I/N with 0 ≤ I < N (e.g. 0/4), not '\(text)'")
        }
        return (i, n)
    }

    /// The jobs that belong to shard `index` of `count`: chosen by a hash of each id, so a file stays in its
    /// shard when others are added or removed, and the shards together hold every job once.
    public static func jobs(_ jobs: [BatchJob], inShard index: Int, of count: Int) -> [BatchJob] {
        jobs.filter { shardIndex(of: $0.id, count: count) == index }
    }

    static func shardIndex(of id: String, count: Int) -> Int {
        let digest = SHA256.digest(Data(id.utf8))
        let value = digest.prefix(8).reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
        return Int(value % UInt64(count))
    }
}
