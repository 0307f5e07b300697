import EarshotCore
import EarshotSpeech
import Foundation

/// OpenAI's audio API, so existing clients (the `openai` libraries, tools built on them) work unchanged:
/// POST /v1/audio/transcriptions, POST /v1/audio/translations, GET /v1/models.
/// "whisper-1" means the server's default Whisper (the base model when a non-English language or translation
/// is asked for). `prompt` and `temperature` are accepted and not used: decoding is greedy, without a prompt.
enum OpenAIRoutes {
    static let alias = "whisper-1"

    struct ModelList: Codable, Sendable {
        struct Entry: Codable, Sendable { var id: String; var object = "model"; var created = 0; var ownedBy = "earshot"
            enum CodingKeys: String, CodingKey { case id, object, created, ownedBy = "owned_by" } }
        var object = "list"
        var data: [Entry]
    }

    struct TextBody: Codable, Sendable { var text: String }

    /// OpenAI's verbose_json, with the fields Earshot measures (no token ids or log-probabilities).
    struct Verbose: Codable, Sendable {
        struct Segment: Codable, Sendable { var id: Int; var start: Double; var end: Double; var text: String }
        var task: String
        var language: String
        var duration: Double
        var text: String
        var segments: [Segment]
    }

    static func add(to router: inout Router, _ services: Services) {
        router.add("GET", "/v1/models") { _, _ in
            .json(ModelList(data: ([alias] + WhisperModel.allCases.map(\.rawValue)).map { ModelList.Entry(id: $0) }))
        }
        router.add("POST", "/v1/audio/transcriptions") { request, _ in try await transcribe(request, services, task: .transcribe) }
        router.add("POST", "/v1/audio/translations") { request, _ in try await transcribe(request, services, task: .translate) }
    }

    /// Which Whisper, language and task a request asks for.
    static func configuration(_ request: HTTPRequest, _ services: Services, task: WhisperTask) throws -> Transcriber.Configuration {
        var speech = services.configuration.speech
        let language = request.field("language").map { $0.lowercased() }.flatMap { $0.isEmpty ? nil : $0 }
        let name = request.field("model") ?? alias
        if name == alias {
            if task == .translate || (language != nil && language != "en") { speech.model = .base }
        } else {
            guard let model = WhisperModel(rawValue: name) else {
                throw HTTPError(400, "unknown model '\(name)'; GET /v1/models lists them (\(alias), "
                                + WhisperModel.allCases.map(\.rawValue).joined(separator: ", ") + ")")
            }
            speech.model = model
        }
        speech.task = task
        speech.language = language ?? (speech.model.isMultilingual ? "auto" : "en")
        if task == .translate && !speech.model.isMultilingual { throw SpeechError.cannotTranslate(model: speech.model) }
        try speech.model.check(language: speech.language)
        return speech
    }

    static func transcribe(_ request: HTTPRequest, _ services: Services, task: WhisperTask) async throws -> HTTPResponse {
        let file = try request.requireFile("file")
        let speech = try configuration(request, services, task: task)
        let format = request.field("response_format") ?? "json"
        guard ["json", "text", "srt", "vtt", "verbose_json"].contains(format) else {
            throw HTTPError(400, "response_format must be json, text, srt, vtt or verbose_json; got '\(format)'")
        }
        let granularities = Set(request.fields("timestamp_granularities[]") + request.fields("timestamp_granularities"))
        if granularities.contains("word") {
            throw HTTPError(400, "word timestamps are not available (Earshot times segments); ask for timestamp_granularities[]=segment")
        }
        if let other = granularities.first(where: { $0 != "segment" }) {
            throw HTTPError(400, "timestamp_granularities must be 'segment'; got '\(other)'")
        }
        let transcriber = try services.transcriber(speech)
        var transcript = try await services.work.run { try await transcriber.transcribe(file: file.path) }
        transcript.source = file.filename
        switch format {
        case "text": return .text(transcript.text + "\n")
        case "srt": return .text(SubRipWriter().render(transcript), contentType: "application/x-subrip; charset=utf-8")
        case "vtt": return .text(WebVTTWriter().render(transcript), contentType: "text/vtt; charset=utf-8")
        case "verbose_json":
            return .json(Verbose(task: task.rawValue, language: speech.language, duration: transcript.duration, text: transcript.text,
                                 segments: transcript.segments.enumerated().map { .init(id: $0, start: $1.start, end: $1.end, text: $1.text) }))
        default: return .json(TextBody(text: transcript.text))
        }
    }
}
