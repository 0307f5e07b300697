import EarshotCore
import EarshotSound
import Foundation

/// POST /api/sounds/train: a zip of label folders (`dog/*.wav`, `rain/*.wav`, ... at the top or inside one
/// folder) as `dataset`, or clips recorded in the browser as `clips[LABEL]` files, plus the model's `name`.
/// The model is saved under that name in the app's folder; the answer is the training summary.
enum SoundTraining {
    static func train(_ request: HTTPRequest, _ services: Services) async throws -> HTTPResponse {
        guard let name = request.field("name") else { throw HTTPError(400, "give the model a 'name'") }
        let output = try services.soundModelPath(name, mustExist: false)
        let store = services.models
        return try await job(request, services, status: 201) { root, emit in
            try await offload {
                let trainer = try SoundClassifierTrainer(features: nil, for: root.path, store: store)
                let result = try trainer.train(folder: root.path, progress: { emit("progress", Progress(step: $0.step.rawValue, done: $0.done, total: $0.total)) },
                                               onEpoch: { emit("epoch", $0) })
                try result.model.save(to: output.path)
                var summary = result.summary(savedAt: name)
                // paths inside the upload, not on the server
                summary.skipped = summary.skipped.map { skipped in
                    var s = skipped
                    s.path = s.path.replacingOccurrences(of: root.path + "/", with: "")
                    s.reason = s.reason.replacingOccurrences(of: root.path + "/", with: "")
                    return s
                }
                return summary
            }
        }
    }

    /// POST /api/sounds/models/{name}/evaluate: how a trained model does on labelled audio sent as for training.
    static func evaluate(_ request: HTTPRequest, _ services: Services, model name: String) async throws -> HTTPResponse {
        let classifier = try services.soundClassifier(named: name)
        guard let model = classifier.model else { throw HTTPError(404, "no sound model named '\(name)'") }
        return try await job(request, services) { root, emit in
            try await offload {
                try SoundClassifierTrainer(embedder: classifier.embedder).evaluate(model, folder: root.path) {
                    emit("progress", Progress(step: $0.step.rawValue, done: $0.done, total: $0.total))
                }
            }
        }
    }

    /// The labelled audio the request carries, unpacked into a scratch folder that lives as long as the job
    /// (which may outlive this handler when its progress streams).
    private static func job<T: Encodable & Sendable>(_ request: HTTPRequest, _ services: Services, status: Int = 200,
                                                     _ work: @escaping @Sendable (URL, @escaping Jobs.Emit) async throws -> T)
        async throws -> HTTPResponse {
        let folder = services.scratch("training")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        do {
            let root = try unpack(request, into: folder)
            return try await Jobs.run(request, services, status: status, uploads: request.allFiles) { emit in
                defer { try? FileManager.default.removeItem(at: folder) }
                return try await work(root, emit)
            }
        } catch {
            try? FileManager.default.removeItem(at: folder)
            throw error
        }
    }

    struct Progress: Codable, Sendable { var step: String; var done: Int; var total: Int }

    /// The labelled folder the request carries, laid out under `folder`.
    static func unpack(_ request: HTTPRequest, into folder: URL) throws -> URL {
        if let zip = request.files("dataset").first {
            return try unzip(zip, into: folder)
        }
        guard case let .form(_, files) = request.body else { throw HTTPError(415, "send a multipart form") }
        var labels = 0
        for (key, clips) in files where key.hasPrefix("clips[") && key.hasSuffix("]") {
            let label = String(key.dropFirst(6).dropLast())
            guard SafeName.isValid(label) else { throw HTTPError(400, "'\(label)' is not a usable label name") }
            let dir = folder.appendingPathComponent(label)
            try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
            for (i, clip) in clips.enumerated() {
                try FileManager.default.copyItem(atPath: clip.path, toPath: dir.appendingPathComponent("clip-\(i + 1).wav").path)
            }
            labels += 1
        }
        guard labels >= 2 else { throw HTTPError(400, "send a 'dataset' zip of label folders, or 'clips[LABEL]' files for two labels or more") }
        return folder
    }

    /// Extracts with Debian's unzip after checking the archive's listed size (no zip bombs); links are
    /// removed afterwards, and unzip itself refuses paths that climb out of the folder.
    static func unzip(_ zip: UploadedFile, into folder: URL) throws -> URL {
        let listing = try command("/usr/bin/unzip", ["-Zt", zip.path])
        // "N files, B bytes uncompressed, C bytes compressed: P%"
        let words = listing.split(separator: " ")
        guard words.count > 3, let bytes = Int(words[2]) else { throw HTTPError(400, "\(zip.filename): not a zip archive") }
        guard bytes <= 4 << 30 else { throw HTTPError(413, "\(zip.filename) unpacks to \(bytes) bytes; the limit is 4 GB") }
        _ = try command("/usr/bin/unzip", ["-qq", "-o", zip.path, "-d", folder.path])
        var root = folder
        let enumerator = FileManager.default.enumerator(at: folder, includingPropertiesForKeys: [.isSymbolicLinkKey])
        while let url = enumerator?.nextObject() as? URL {
            if (try? url.resourceValues(forKeys: [.isSymbolicLinkKey]).isSymbolicLink) == true { try? FileManager.default.removeItem(at: url) }
        }
        // one folder at the top (a zipped "dataset/" folder): its sub-folders are the labels
        let top = (try? FileManager.default.contentsOfDirectory(atPath: folder.path).filter { !$0.hasPrefix(".") && $0 != "__MACOSX" }) ?? []
        if top.count == 1, let sub = (try? FileManager.default.contentsOfDirectory(atPath: folder.appendingPathComponent(top[0]).path)),
           sub.contains(where: { var dir: ObjCBool = false
               return FileManager.default.fileExists(atPath: folder.appendingPathComponent(top[0]).appendingPathComponent($0).path, isDirectory: &dir) && dir.boolValue }) {
            root = folder.appendingPathComponent(top[0])
        }
        return root
    }

    private static func command(_ path: String, _ arguments: [String]) throws -> String {
        guard FileManager.default.isExecutableFile(atPath: path) else {
            throw HTTPError(503, "unzip is not installed (make setup installs it)")
        }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: path)
        process.arguments = arguments
        let out = Pipe()
        process.standardOutput = out
        process.standardError = FileHandle.nullDevice
        try process.run()
        let data = out.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 || process.terminationStatus == 1 else {  // 1: warnings (e.g. skipped names)
            throw HTTPError(400, "the upload is not a readable zip archive")
        }
        return String(decoding: data, as: UTF8.self)
    }
}
