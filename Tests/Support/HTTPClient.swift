import Foundation

/// A real HTTP client for the server's tests: curl, run as a user would run it (no shared code with the server).
public struct HTTPClient: Sendable {
    public struct Response: Sendable {
        public let status: Int
        /// Header names in lower case.
        public let headers: [String: String]
        public let body: Data
        public var text: String { String(decoding: body, as: UTF8.self) }

        /// The body as a JSON object (or [:] when it is not one).
        public var json: [String: Any] { (try? JSONSerialization.jsonObject(with: body)) as? [String: Any] ?? [:] }
        public var jsonArray: [[String: Any]] { (try? JSONSerialization.jsonObject(with: body)) as? [[String: Any]] ?? [] }
        /// The message of an error body.
        public var errorMessage: String { (json["error"] as? [String: Any])?["message"] as? String ?? "" }
    }

    public let base: String
    public var headers: [String: String] = [:]

    public init(base: String, headers: [String: String] = [:]) {
        self.base = base
        self.headers = headers
    }

    /// `form` fields become `-F name=value`; `files` `-F name=@path`; `body` is sent as is.
    public func request(_ method: String, _ path: String, headers extra: [String: String] = [:], form: [(String, String)] = [],
                        files: [(String, URL)] = [], body: Data? = nil, maxSeconds: Int = 600) throws -> Response {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("earshot-http-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let out = dir.appendingPathComponent("body"), head = dir.appendingPathComponent("headers")
        var arguments = ["-s", "-S", "--max-time", String(maxSeconds), "-X", method, "-o", out.path, "-D", head.path, "-w", "%{http_code}"]
        for (name, value) in headers.merging(extra, uniquingKeysWith: { $1 }) { arguments += ["-H", "\(name): \(value)"] }
        for (name, value) in form { arguments += ["--form-string", "\(name)=\(value)"] }
        for (name, file) in files { arguments += ["-F", "\(name)=@\(file.path)"] }
        if let body {
            let bodyFile = dir.appendingPathComponent("request")
            try body.write(to: bodyFile)
            arguments += ["--data-binary", "@\(bodyFile.path)"]
        }
        arguments.append(base + path)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/curl")
        process.arguments = arguments
        let pipe = Pipe()
        process.standardOutput = pipe
        try process.run()
        let code = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        var headers: [String: String] = [:]
        for line in (try? String(contentsOf: head, encoding: .utf8))?.split(separator: "\r\n") ?? [] {
            if let colon = line.firstIndex(of: ":") {
                headers[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
            }
        }
        return Response(status: Int(code) ?? 0, headers: headers, body: (try? Data(contentsOf: out)) ?? Data())
    }

    public func get(_ path: String, headers: [String: String] = [:]) throws -> Response { try request("GET", path, headers: headers) }

    /// Reads a Server-Sent Events stream until it ends or `maxSeconds` pass: each event's name and data line.
    public func events(_ path: String, method: String = "GET", form: [(String, String)] = [], files: [(String, URL)] = [],
                       maxSeconds: Int = 300) throws -> [(event: String, data: String)] {
        let response = try request(method, path, headers: ["Accept": "text/event-stream"], form: form, files: files, maxSeconds: maxSeconds)
        return Self.events(in: response.text)
    }

    /// The events of a Server-Sent Events body: each event's name and data line.
    public static func events(in text: String) -> [(event: String, data: String)] {
        var events: [(String, String)] = []
        var name = "message"
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            if line.hasPrefix("event: ") { name = String(line.dropFirst(7)) }
            if line.hasPrefix("data: ") { events.append((name, String(line.dropFirst(6)))); name = "message" }
        }
        return events
    }
}
