import EarshotCore
import Foundation

/// What the server says it does, a line each on standard error: one per request (method, path, status, bytes,
/// milliseconds), one per background job (note, stage, outcome, seconds) and one per live session. `text` for
/// people, `json` (one object a line) for log collectors; `off` for a server embedded in another program that logs on
/// its own.
public struct ServerLog: Sendable {
    public enum Format: String, Sendable, CaseIterable { case text, json, off }
    public let format: Format
    /// Where lines go (standard error by default; tests collect them).
    let write: @Sendable (String) -> Void

    public init(format: Format, write: @escaping @Sendable (String) -> Void = { FileHandle.standardError.write(Data($0.utf8)) }) {
        self.format = format
        self.write = write
    }

    /// A request as answered: `bytes` is nil for a streamed body (events, live sessions).
    func request(method: String, path: String, status: Int, bytes: Int?, milliseconds: Double) {
        emit(["kind": "request", "method": method, "path": path, "status": status, "bytes": bytes.map { $0 as Any } ?? NSNull(),
              "ms": (milliseconds * 10).rounded() / 10],
             text: "\(method) \(path) \(status) \(bytes.map(String.init) ?? "stream") \(String(format: "%.1f", milliseconds)) ms")
    }

    /// A background job's end: `outcome` is "done" or "failed", with the error when it failed.
    func job(note: Int, stage: String, outcome: String, seconds: Double, detail: String) {
        emit(["kind": "job", "note": note, "stage": stage, "outcome": outcome, "seconds": (seconds * 100).rounded() / 100, "detail": detail],
             text: "job note \(note) \(stage) \(outcome) \(String(format: "%.2f", seconds)) s: \(detail)")
    }

    /// A live session's end (`/api/live`): "ended" when its audio ended or its reader left, "failed" with the error.
    func live(session: String, kind: String, outcome: String, seconds: Double, detail: String) {
        emit(["kind": "live", "session": session, "type": kind, "outcome": outcome, "seconds": (seconds * 100).rounded() / 100,
              "detail": detail],
             text: "live \(kind) session \(session) \(outcome) \(String(format: "%.2f", seconds)) s\(detail.isEmpty ? "" : ": " + detail)")
    }

    /// Something the server could not do in the background (opening the notes store, say).
    func problem(_ message: String) {
        emit(["kind": "error", "message": message], text: "error: \(message)")
    }

    private func emit(_ fields: [String: Any], text: String) {
        let time = ISO8601DateFormatter.string(from: Date(), timeZone: TimeZone(identifier: "UTC")!,
                                               formatOptions: [.withInternetDateTime, .withFractionalSeconds])
        switch format {
        case .off: return
        // a path or a name from a request may hold a line break or a terminal escape: one line each, written as escapes
        case .text: write("\(time) \(ShownText.escaped(text))\n")
        case .json:
            var object = fields
            object["time"] = time
            guard let data = try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys]) else { return }
            write(String(decoding: data, as: UTF8.self) + "\n")
        }
    }
}
