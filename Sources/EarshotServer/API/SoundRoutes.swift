import EarshotCore
import EarshotSound
import Foundation

/// Sound classification: classify an upload with the built-in AudioSet classifier or a trained model; train a
/// model from an uploaded zip of label folders; list, download, export and delete trained models.
enum SoundRoutes {
    struct ModelEntry: Codable, Sendable { var name: String; var labels: [String]; var features: String }

    static func add(to router: inout Router, _ services: Services) {
        router.add("POST", "/api/sounds/classify") { request, _ in
            let file = try request.requireFile("file")
            let top = try request.integer("top", default: 5, range: 1...50)
            let classifier = try services.soundClassifier(named: request.parameter("model"))
            var result = try await services.work.run { try await offload { try classifier.classify(file: file.path, top: top) } }
            result.source = file.filename
            return .json(result)
        }
        router.add("GET", "/api/sounds/models") { _, _ in
            let folder = services.configuration.soundModelsDirectory
            let names = ((try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? [])
                .filter { $0.hasSuffix(".model") }.map { String($0.dropLast(6)) }.sorted()
            return .json(names.compactMap { name -> ModelEntry? in
                guard let model = try? SoundClassifierModel.load(from: folder.appendingPathComponent("\(name).model").path) else { return nil }
                return ModelEntry(name: name, labels: model.labels, features: model.features.rawValue)
            })
        }
        router.add("GET", "/api/sounds/models/:name") { request, p in
            let path = try services.soundModelPath(p["name"], mustExist: true).path
            return .download(path: path, name: "\(p["name"]).model", contentType: "application/json", request: request)
        }
        router.add("DELETE", "/api/sounds/models/:name") { _, p in
            try FileManager.default.removeItem(at: try services.soundModelPath(p["name"], mustExist: true))
            return HTTPResponse(status: 204)
        }
        router.add("GET", "/api/sounds/models/:name/onnx") { _, p in
            let classifier = try services.soundClassifier(named: p["name"])
            guard let model = classifier.model else { throw HTTPError(404, "no sound model named '\(p["name"])'") }
            let store = services.models
            return try await services.withScratch("export") { folder in
                let path = folder.appendingPathComponent("model.onnx").path
                try await services.work.run {
                    try await offload { try SoundClassifierExporter.export(model, embedder: classifier.embedder, store: store, to: path) }
                }
                return try .attachment(file: path, name: "\(p["name"]).onnx", contentType: "application/octet-stream",
                                       slots: services.downloads)
            }
        }
        router.add("POST", "/api/sounds/train") { request, _ in try await SoundTraining.train(request, services) }
        router.add("POST", "/api/sounds/models/:name/evaluate") { request, p in try await SoundTraining.evaluate(request, services, model: p["name"]) }
    }
}
