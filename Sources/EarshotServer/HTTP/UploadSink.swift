import Foundation

/// Where a request's body goes while it arrives: a temporary file for raw bodies, text fields and files for
/// forms. Text fields are held in memory, each up to `maxField` bytes and all of them together up to four times
/// that; every file is deleted by `remove`.
final class UploadSink {
    let folder: URL
    let maxField: Int
    // text fields as bytes until the end: a chunk boundary may split a character
    private var fields: [String: [Data]] = [:]
    private(set) var files: [String: [UploadedFile]] = [:]
    private var rawPath: String?
    private var rawSize = 0
    private var open: FileHandle?
    private var openKey: String?
    private var created: [String] = []
    private var fieldCount = 0
    private var fieldBytes = 0
    // the part being received: its name and how many bytes it has had
    private var partKey: String?
    private var partBytes = 0
    /// What went wrong with the body, if anything: the request is answered with it.
    var failure: HTTPError?

    init(folder: URL, maxField: Int) {
        self.folder = folder
        self.maxField = maxField
    }

    private func newFile() throws -> (String, FileHandle) {
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let path = folder.appendingPathComponent("upload-\(UUID().uuidString)").path
        guard FileManager.default.createFile(atPath: path, contents: nil, attributes: [.posixPermissions: 0o600]),
              let handle = FileHandle(forWritingAtPath: path) else {
            throw HTTPError(507, "the server cannot store the upload (\(folder.path) is not writable)")
        }
        created.append(path)
        return (path, handle)
    }

    private func write(_ bytes: UnsafeRawBufferPointer, to handle: FileHandle) throws {
        do { try handle.write(contentsOf: Data(bytes)) } catch {
            throw HTTPError(507, "the server ran out of space storing the upload")
        }
    }

    /// A chunk of a raw (non-form) body.
    func appendRaw(_ bytes: UnsafeRawBufferPointer) {
        guard failure == nil else { return }
        do {
            if open == nil { let (path, handle) = try newFile(); rawPath = path; open = handle }
            try write(bytes, to: open!)
            rawSize += bytes.count
        } catch { failure = error as? HTTPError }
    }

    /// A chunk of one form part, as the multipart parser hands them: `offset` 0 starts a new value, except that
    /// the parser may first announce a part with an empty chunk at offset 0 and then send its bytes at offset 0.
    func appendPart(key: String, filename: String?, contentType: String?, offset: UInt64, bytes: UnsafeRawBufferPointer) {
        guard failure == nil else { return }
        let startsPart = offset == 0 && !(partKey == key && partBytes == 0)
        partKey = key
        partBytes = startsPart ? bytes.count : partBytes + bytes.count
        do {
            if let filename {
                if startsPart || openKey != key {
                    try open?.close()
                    let (path, handle) = try newFile()
                    open = handle
                    openKey = key
                    files[key, default: []].append(UploadedFile(filename: filename, contentType: contentType ?? "application/octet-stream",
                                                                path: path, size: 0))
                }
                try write(bytes, to: open!)
                files[key]![files[key]!.count - 1].size += bytes.count
            } else {
                if startsPart || fields[key] == nil {
                    fieldCount += 1
                    guard fieldCount <= 1000 else { throw HTTPError(400, "the form has more than 1000 fields") }
                    fields[key, default: []].append(Data())
                }
                guard fields[key]![fields[key]!.count - 1].count + bytes.count <= maxField else {
                    throw HTTPError(400, "form field '\(key)' is longer than \(maxField) bytes")
                }
                fieldBytes += bytes.count
                guard fieldBytes <= 4 * maxField else {
                    throw HTTPError(400, "the form's text fields hold more than \(4 * maxField) bytes; send files as file parts")
                }
                fields[key]![fields[key]!.count - 1].append(contentsOf: bytes)
            }
        } catch { failure = error as? HTTPError ?? HTTPError(400, "\(error)") }
    }

    /// The body, complete.
    func finish(isForm: Bool) -> RequestBody {
        try? open?.close()
        open = nil
        if isForm { return .form(fields: fields.mapValues { $0.map { String(decoding: $0, as: UTF8.self) } }, files: files) }
        if let rawPath { return .raw(path: rawPath, size: rawSize) }
        return .none
    }

    func remove() {
        try? open?.close()
        for path in created { try? FileManager.default.removeItem(atPath: path) }
    }
}
