import EarshotCore
import Foundation

/// The web app's pages and assets (package resources: no build step, nothing from a CDN), the health check
/// and the OpenAPI document.
enum PageRoutes {
    /// Each page's name and title; its body is Pages/NAME.body.html, its script Pages/NAME.js.
    static let pages = ["notes": "Notes", "people": "People", "listen": "Listen", "sounds": "Sounds", "voice": "Voice", "transcribe": "Transcribe"]
    /// Pages load only what they ship with; media from the server or from the page's own recordings.
    static let contentSecurity = "default-src 'self'; img-src 'self' data:; media-src 'self' blob:; style-src 'self'; "
        + "script-src 'self'; connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'self'"

    struct Health: Codable, Sendable {
        var status: String
        var queue: Int
        var queueCapacity: Int
        var liveSessions: Int
        enum CodingKeys: String, CodingKey { case status, queue, queueCapacity = "queue_capacity", liveSessions = "live_sessions" }
    }

    static func add(to router: inout Router, _ services: Services) {
        router.add("GET", "/") { _, _ in page("notes") }
        router.add("GET", "/:page") { _, p in
            guard pages[p["page"]] != nil else { throw HTTPError(404, "no page '\(p["page"])'") }
            return page(p["page"])
        }
        router.add("GET", "/assets/:file") { _, p in
            let name = p["file"]
            guard SafeName.isValid(name), let type = assetType(name), let path = resource(name) else {
                throw HTTPError(404, "no asset '\(name)'")
            }
            return HTTPResponse(status: 200, headers: [("Content-Type", type), ("Cache-Control", "no-cache")],
                                body: .bytes(try Data(contentsOf: path)))
        }
        router.add("GET", "/api/health") { _, _ in
            .json(Health(status: "ok", queue: services.work.load, queueCapacity: services.work.capacity, liveSessions: services.live.count))
        }
        router.add("GET", "/api/openapi.json") { _, _ in
            HTTPResponse(status: 200, headers: [("Content-Type", "application/json")], body: .bytes(OpenAPIDocument.json))
        }
    }

    /// The page `name`: the shared frame (Pages/page.html: head, navigation) around its body.
    static func page(_ name: String) -> HTTPResponse {
        guard let title = pages[name], let frame = resource("page.html").flatMap({ try? String(contentsOf: $0, encoding: .utf8) }),
              let body = resource("\(name).body.html").flatMap({ try? String(contentsOf: $0, encoding: .utf8) }) else {
            return .error(500, "the page \(name) is missing from the installed resources")
        }
        let html = frame.replacingOccurrences(of: "{{title}}", with: title).replacingOccurrences(of: "{{page}}", with: name)
            .replacingOccurrences(of: "{{body}}", with: body)
        return HTTPResponse(status: 200, headers: [("Content-Type", "text/html; charset=utf-8"), ("Content-Security-Policy", contentSecurity),
                                                   ("Cache-Control", "no-cache")], body: .bytes(Data(html.utf8)))
    }

    static func resource(_ name: String) -> URL? {
        guard let folder = Bundle.module.url(forResource: "Pages", withExtension: nil) else { return nil }
        let url = folder.appendingPathComponent(name)
        return FileManager.default.fileExists(atPath: url.path) ? url : nil
    }

    static func assetType(_ name: String) -> String? {
        switch (name as NSString).pathExtension {
        case "js": return "text/javascript; charset=utf-8"
        case "css": return "text/css; charset=utf-8"
        case "svg": return "image/svg+xml"
        case "png": return "image/png"
        default: return nil
        }
    }
}
