import EarshotCore

/// Maps method + path to a handler. Patterns are segments; ":name" captures one segment.
struct Router: Sendable {
    typealias Handler = @Sendable (HTTPRequest, Parameters) async throws -> HTTPResponse

    struct Parameters: Sendable {
        let values: [String: String]
        subscript(_ name: String) -> String { values[name] ?? "" }

        /// A captured id that must be a positive whole number.
        func id(_ name: String) throws -> Int {
            guard let id = Int(self[name]), id > 0 else {
                throw HTTPError(404, "'\(ShownText.echoed(self[name]))' is not \(name == "id" ? "an id" : "a \(name) number"): give a whole number from 1")
            }
            return id
        }
    }

    struct Route: Sendable {
        let method: String
        let pattern: [String]
        let handler: Handler
    }

    enum Match {
        case found(Route, Parameters)
        case wrongMethod(allowed: [String])
        case notFound
    }

    private(set) var routes: [Route] = []

    mutating func add(_ method: String, _ pattern: String, _ handler: @escaping Handler) {
        routes.append(Route(method: method, pattern: pattern.split(separator: "/").map(String.init), handler: handler))
    }

    func match(method: String, path: String) -> Match {
        let segments = path.split(separator: "/").map(String.init)
        var allowed: [String] = []
        for route in routes where route.pattern.count == segments.count {
            var values: [String: String] = [:]
            let fits = zip(route.pattern, segments).allSatisfy { pattern, segment in
                if pattern.hasPrefix(":") { values[String(pattern.dropFirst())] = segment; return true }
                return pattern == segment
            }
            guard fits else { continue }
            // HEAD is answered by GET's handler (the library sends no body)
            if route.method == method || (method == "HEAD" && route.method == "GET") {
                return .found(route, Parameters(values: values))
            }
            allowed.append(route.method)
        }
        return allowed.isEmpty ? .notFound : .wrongMethod(allowed: allowed)
    }
}
