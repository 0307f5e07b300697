import EarshotCore
import EarshotVoice
import Foundation

/// Voice ID: enrol a person from uploaded or browser-recorded clips (their head trained here, on the CPU),
/// verify, identify among everyone enrolled, list, remove, export the trained model as ONNX.
enum VoiceRoutes {
    struct Prompts: Codable, Sendable { var prompts: [String]; var clipSeconds: Double; var clips: Int
        enum CodingKeys: String, CodingKey { case prompts, clipSeconds = "clip_seconds", clips } }

    struct Progress: Codable, Sendable { var done: Int; var total: Int }

    static func add(to router: inout Router, _ services: Services) {
        router.add("GET", "/api/voices") { _, _ in .json(VoiceProfileStore(store: services.models).listing()) }
        router.add("GET", "/api/voices/prompts") { _, _ in
            .json(Prompts(prompts: Array(VoiceID.readingPrompts.prefix(5)), clipSeconds: 10, clips: 5))
        }
        router.add("POST", "/api/voices/identify") { request, _ in
            let file = try request.requireFile("file")
            let voices = try services.voices()
            var result = try await services.work.run { try await voices.identify(file: file.path) }
            result.source = file.filename
            return .json(result)
        }
        router.add("POST", "/api/voices/:name/enroll") { request, p in
            let clips = request.files("clips")
            guard !clips.isEmpty else { throw HTTPError(400, "send the recordings as 'clips' files (5 of about 10 s each is best)") }
            if let empty = clips.first(where: { $0.size == 0 }) { throw HTTPError(400, "\(empty.filename): the file is empty") }
            let voices = try services.voices()
            let name = p["name"], paths = clips.map(\.path)
            return try await Jobs.run(request, services, status: 201, uploads: clips) { emit in
                try await voices.enroll(name, clips: paths) { done, total in emit("progress", Progress(done: done, total: total)) }
            }
        }
        router.add("POST", "/api/voices/:name/verify") { request, p in
            let file = try request.requireFile("file")
            let threshold = try request.parameter("threshold").map { text -> Float in
                guard let t = Float(text), t > 0, t < 1 else { throw HTTPError(400, "threshold must be between 0 and 1, got '\(text)'") }
                return t
            }
            let voices = try services.voices()
            return .json(try await services.work.run { try await voices.verify(p["name"], file: file.path, threshold: threshold) })
        }
        router.add("DELETE", "/api/voices/:name") { _, p in
            try await services.voices().remove(p["name"])
            return HTTPResponse(status: 204)
        }
        router.add("GET", "/api/voices/:name/export") { request, p in
            let voices = try services.voices()
            return try await services.withScratch("export") { folder in
                let path = folder.appendingPathComponent("voice.onnx").path
                let profile = try await voices.export(p["name"], to: path)
                return try .attachment(file: path, name: "\(SafeName.fileName(profile.name)).onnx", contentType: "application/octet-stream",
                                       headers: [("X-Earshot-Threshold", String(profile.threshold))], slots: services.downloads)
            }
        }
    }
}
