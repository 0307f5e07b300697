import EarshotCore
import Foundation

/// Every endpoint, by area. Each area's file says what it serves; the OpenAPI document lists them all.
enum Routes {
    static func all(_ services: Services) -> Router {
        var router = Router()
        OpenAIRoutes.add(to: &router, services)
        AskRoutes.add(to: &router, services)
        NotesRoutes.add(to: &router, services)
        CorrectionRoutes.add(to: &router, services)
        TemplateRoutes.add(to: &router, services)
        PeopleRoutes.add(to: &router, services)
        PeopleRoutes.addActions(to: &router, services)
        SoundRoutes.add(to: &router, services)
        VoiceRoutes.add(to: &router, services)
        LiveRoutes.add(to: &router, services)
        RealtimeRoutes.add(to: &router, services)
        PageRoutes.add(to: &router, services)
        return router
    }
}

extension HTTPRequest {
    /// The one file uploaded as `name`; 400 when there is none, several, or it is empty.
    func requireFile(_ name: String) throws -> UploadedFile {
        guard case .form = body else {
            throw HTTPError(415, "send the audio as multipart/form-data with a '\(name)' file field")
        }
        let found = files(name)
        guard let file = found.first else { throw HTTPError(400, "the form has no '\(name)' file") }
        guard found.count == 1 else { throw HTTPError(400, "the form has \(found.count) '\(name)' files; send one") }
        guard file.size > 0 else { throw HTTPError(400, "\(file.filename): the file is empty") }
        return file
    }

    /// A JSON body (at most 1 MB) decoded as `T`; 400 with the decoder's reason otherwise.
    func json<T: Decodable>(_ type: T.Type) throws -> T {
        guard case let .raw(path, size) = body else { throw HTTPError(400, "send a JSON body (Content-Type: application/json)") }
        guard size <= 1 << 20 else { throw HTTPError(413, "the JSON body is larger than 1 MB") }
        guard (header("content-type") ?? "").lowercased().hasPrefix("application/json") else {
            throw HTTPError(415, "send the body as application/json")
        }
        do {
            let decoder = EarshotJSON.decoder()
            decoder.keyDecodingStrategy = .convertFromSnakeCase
            return try decoder.decode(T.self, from: try Data(contentsOf: URL(fileURLWithPath: path)))
        } catch { throw HTTPError(400, "the JSON body is not what this endpoint takes: \(Self.describe(error))") }
    }

    private static func describe(_ error: Error) -> String {
        switch error {
        case let DecodingError.keyNotFound(key, _): return "missing '\(key.stringValue)'"
        case let DecodingError.typeMismatch(_, context), let DecodingError.valueNotFound(_, context):
            return "wrong type at '\(context.codingPath.map(\.stringValue).joined(separator: "."))'"
        case DecodingError.dataCorrupted: return "not valid JSON"
        default: return "\(error)"
        }
    }

    /// A whole-number parameter from the query or form; 400 outside `range`.
    func integer(_ name: String, default fallback: Int, range: ClosedRange<Int>) throws -> Int {
        guard let text = query[name] ?? field(name) else { return fallback }
        guard let value = Int(text), range.contains(value) else {
            throw HTTPError(400, "'\(name)' must be a whole number from \(range.lowerBound) to \(range.upperBound), got '\(text)'")
        }
        return value
    }

    /// A yes/no query parameter (`?open=true`, `1`, `false`, `0`): false when it is not given.
    func flag(_ name: String) throws -> Bool {
        switch query[name] {
        case nil, "false", "0": return false
        case "true", "1": return true
        default: throw HTTPError(400, "\(name) must be true or false")
        }
    }

    /// A person's id from the query (`?person=7`), or nil when it is not given.
    func personID() throws -> Int? {
        try query["person"].map { text in try Int(text).flatMap { $0 > 0 ? $0 : nil }.orThrow(HTTPError(400, "person must be a person's id")) }
    }

    /// A text parameter from the query or form.
    func parameter(_ name: String) -> String? { query[name] ?? field(name) }
}

/// Runs blocking library work (decoding, a value type's model call) on a dispatch thread, not on one of the few
/// cooperative threads every request shares.
func offload<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { continuation in
        DispatchQueue.global(qos: .userInitiated).async { continuation.resume(with: Result { try body() }) }
    }
}

extension HTTPResponse {
    /// A file as a download, honouring a single `Range: bytes=…` (audio players seek with it).
    static func download(path: String, name: String, contentType: String, request: HTTPRequest,
                         inline: Bool = false) -> HTTPResponse {
        guard let size = (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? NSNumber)?.int64Value else {
            return .error(404, "\(name) is not there any more")
        }
        var headers = [("Content-Type", contentType), ("Accept-Ranges", "bytes"), disposition(name, inline: inline)]
        guard let range = request.header("range") else {
            return HTTPResponse(status: 200, headers: headers, body: .file(path: path, offset: 0, length: size))
        }
        guard let (start, end) = ByteRange.parse(range, size: size) else {
            return .error(416, "cannot serve \(range) of a \(size)-byte file", headers: [("Content-Range", "bytes */\(size)")])
        }
        headers.append(("Content-Range", "bytes \(start)-\(end)/\(size)"))
        return HTTPResponse(status: 206, headers: headers, body: .file(path: path, offset: start, length: end - start + 1))
    }
}

extension HTTPResponse {
    static func disposition(_ name: String, inline: Bool = false) -> (String, String) {
        ("Content-Disposition", "\(inline ? "inline" : "attachment"); filename=\"\(name.replacingOccurrences(of: "\"", with: "'"))\"")
    }

    /// A file made for this answer (an export) as a download named `name`: sent from the disk (it may be removed as
    /// soon as this returns), in one of the server's download slots.
    static func attachment(file: String, name: String, contentType: String, headers: [(String, String)] = [],
                           slots: DownloadSlots) throws -> HTTPResponse {
        let opened = try slots.open(file)
        return HTTPResponse(status: 200, headers: [("Content-Type", contentType), disposition(name)] + headers, body: .opened(opened))
    }
}

/// How many made files (exports) are being sent at once. Each is read from the disk as its client takes it, so a
/// slow reader holds a descriptor, not the file in memory; past `limit` a download waits for a slot (503 with
/// Retry-After), so many slow readers cannot hold many descriptors and scratch files either.
final class DownloadSlots: Sendable {
    let limit: Int
    private let open = Locked(0)

    init(limit: Int) { self.limit = limit }

    var inUse: Int { open.withLock { $0 } }

    /// `path` opened in a slot, given back when its exchange ends.
    func open(_ path: String) throws -> OpenedFile {
        let taken = open.withLock { count -> Bool in
            guard count < limit else { return false }
            count += 1
            return true
        }
        guard taken else {
            throw HTTPError(503, "\(limit) downloads are in progress; try again shortly", headers: [("Retry-After", "2")])
        }
        let slots = self.open
        guard let file = OpenedFile(path: path, onClose: { slots.withLock { $0 -= 1 } }) else {
            open.withLock { $0 -= 1 }
            throw HTTPError(500, "the file made for this download cannot be opened")
        }
        return file
    }
}

extension Services {
    /// Runs `body` with a fresh folder of this server's scratch space, removed afterwards whatever happens.
    func withScratch<T>(_ purpose: String, _ body: (URL) async throws -> T) async throws -> T {
        let folder = scratch(purpose)
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        return try await body(folder)
    }
}

/// One `bytes=` range of RFC 9110: "a-b", "a-" or "-n" (the last n bytes); nil when unsatisfiable or several.
enum ByteRange {
    static func parse(_ header: String, size: Int64) -> (Int64, Int64)? {
        let spec = header.trimmingCharacters(in: .whitespaces)
        guard spec.hasPrefix("bytes="), size > 0 else { return nil }
        let value = spec.dropFirst(6)
        guard !value.contains(","), let dash = value.firstIndex(of: "-") else { return nil }
        let first = value[..<dash].trimmingCharacters(in: .whitespaces), last = value[value.index(after: dash)...].trimmingCharacters(in: .whitespaces)
        if first.isEmpty {
            guard let n = Int64(last), n > 0 else { return nil }
            return (max(0, size - n), size - 1)
        }
        guard let start = Int64(first), start >= 0, start < size else { return nil }
        if last.isEmpty { return (start, size - 1) }
        guard let end = Int64(last), end >= start else { return nil }
        return (start, min(end, size - 1))
    }
}
