import EarshotCore
import Foundation

/// Long work (training, enrolment) answered either way a client likes: as one JSON result when it is done, or,
/// when the request says `Accept: text/event-stream`, as Server-Sent Events while it runs — `progress` and
/// `epoch` events, then `done` with the result or `error` with the error body. The place in the work queue is
/// taken before answering, so a full queue is still a plain 503.
enum Jobs {
    typealias Emit = @Sendable (_ event: String, _ payload: any Encodable & Sendable) -> Void

    static func run<T: Encodable & Sendable>(_ request: HTTPRequest, _ services: Services, status: Int = 200,
                                             uploads: [UploadedFile] = [],
                                             _ work: @escaping @Sendable (@escaping Emit) async throws -> T) async throws -> HTTPResponse {
        guard (request.header("accept") ?? "").contains("text/event-stream") else {
            return .json(try await services.work.run { try await work { _, _ in } }, status: status)
        }
        try services.work.admit()
        let channel = ByteChannel()
        let emit: Emit = { event, payload in
            channel.sendEvent(event, payload)
        }
        // the request (and its uploaded files) ends when the stream does, so the job can read them throughout
        let job = Task {
            defer { services.work.leave(); channel.finish() }
            do { emit("done", try await work(emit)) } catch {
                let response = ErrorResponses.response(for: error, uploads: uploads)
                if case let .bytes(body) = response.body { channel.sendEvent("error", json: body) }
            }
        }
        _ = job
        return HTTPResponse(status: 200, headers: [("Content-Type", "text/event-stream"), ("Cache-Control", "no-store")],
                            body: .stream(channel))
    }
}
