import Foundation

/// A file part of a multipart upload, already streamed to disk (removed when the request ends).
public struct UploadedFile: Sendable {
    /// The client's name for the file; never used as a path.
    public var filename: String
    public var contentType: String
    public var path: String
    public var size: Int
}

/// What a request carried after its headers.
public enum RequestBody: Sendable {
    case none
    /// A body that was not a form, streamed to a temporary file.
    case raw(path: String, size: Int)
    /// multipart/form-data or application/x-www-form-urlencoded: text fields (each may repeat) and files.
    case form(fields: [String: [String]], files: [String: [UploadedFile]])
}

/// One HTTP request, as a handler sees it: the body is complete and within the upload limit.
public struct HTTPRequest: Sendable {
    public var method: String
    /// The path without its query, already percent-decoded by the HTTP library.
    public var path: String
    public var query: [String: String]
    /// Header names in lower case.
    public var headers: [String: String]
    public var body: RequestBody

    public func header(_ name: String) -> String? { headers[name.lowercased()] }

    /// Path segments ("/api/notes/3" → ["api", "notes", "3"]).
    public var pathSegments: [String] { path.split(separator: "/").map(String.init) }

    /// A form's text field (its first value), or nil.
    public func field(_ name: String) -> String? {
        if case let .form(fields, _) = body { return fields[name]?.first }
        return nil
    }

    /// Every value of a repeated form field.
    public func fields(_ name: String) -> [String] {
        if case let .form(fields, _) = body { return fields[name] ?? [] }
        return []
    }

    public func files(_ name: String) -> [UploadedFile] {
        if case let .form(_, files) = body { return files[name] ?? [] }
        return []
    }

    /// Every uploaded file, whatever its field.
    public var allFiles: [UploadedFile] {
        if case let .form(_, files) = body { return files.values.flatMap { $0 } }
        return []
    }
}
