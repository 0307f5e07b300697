import EarshotCore
import EarshotSpeech
import EarshotVoice
import Foundation

/// OpenAI's audio API, so existing clients (the `openai` libraries, tools built on them) work unchanged:
/// POST /v1/audio/transcriptions, POST /v1/audio/translations, GET /v1/models.
/// "whisper-1" means the server's default Whisper (the base model when a non-English language or translation
/// is asked for). `prompt` and `temperature` are honoured; `response_format=verbose_json` with
/// `timestamp_granularities[]=word` lists every word with its time; `response_format=diarized_json` says who
/// spoke each segment (OpenAI's `gpt-4o-transcribe-diarize` shape, that model name accepted as an alias).
enum OpenAIRoutes {
    static let alias = "whisper-1"
    static let diarizeAlias = "gpt-4o-transcribe-diarize"
    /// OpenAI's other transcription models, taken as `whisper-1` (clients that name them still work).
    static let otherOpenAIModels: Set<String> = ["gpt-4o-transcribe", "gpt-4o-mini-transcribe", "gpt-4o-mini-transcribe-2025-12-15",
                                                 "gpt-realtime-whisper"]

    struct ModelList: Codable, Sendable {
        struct Entry: Codable, Sendable { var id: String; var object = "model"; var created = 0; var ownedBy = "earshot"
            enum CodingKeys: String, CodingKey { case id, object, created, ownedBy = "owned_by" } }
        var object = "list"
        var data: [Entry]
    }

    /// What a transcription used, as OpenAI reports it for Whisper: the seconds of audio read.
    struct DurationUsage: Codable, Sendable {
        var type = "duration"
        var seconds: Double
    }

    /// OpenAI's `json` answer: the text, and the audio's seconds as its usage.
    struct TextBody: Codable, Sendable { var text: String; var usage: DurationUsage? }

    /// OpenAI's verbose_json: segments with Whisper's own measures, and words when asked for.
    struct Verbose: Codable, Sendable {
        struct Segment: Codable, Sendable {
            var id: Int, seek = 0, start: Double, end: Double, text: String, tokens: [Int]
            var temperature: Double, avgLogprob: Double, compressionRatio: Double, noSpeechProb: Double
            enum CodingKeys: String, CodingKey {
                case id, seek, start, end, text, tokens, temperature, avgLogprob = "avg_logprob", compressionRatio = "compression_ratio",
                     noSpeechProb = "no_speech_prob"
            }
        }
        struct Word: Codable, Sendable { var word: String; var start: Double; var end: Double }
        var task: String
        var language: String
        var duration: Double
        var text: String
        var segments: [Segment]?
        var words: [Word]?
        var usage: DurationUsage?
    }

    /// OpenAI's diarized_json: segments with their speaker — a known speaker's name, an enrolled person's, or
    /// `A`, `B`, … in order of appearance.
    struct Diarized: Codable, Sendable {
        struct Segment: Codable, Sendable {
            var type = "transcript.text.segment"
            var id: String, start: Double, end: Double, text: String, speaker: String
        }
        var task = "transcribe"
        var duration: Double
        var text: String
        var segments: [Segment]
        var usage: DurationUsage
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
        try configuration(model: request.field("model"), language: request.field("language"), services, task: task)
    }

    /// The same from a model's name (nil: `whisper-1`) and a language code (nil or empty: the model's default).
    static func configuration(model: String?, language: String?, _ services: Services, task: WhisperTask) throws -> Transcriber.Configuration {
        var speech = services.configuration.speech
        let language = language.map { $0.lowercased() }.flatMap { $0.isEmpty ? nil : $0 }
        let name = model ?? alias
        if name == alias || name == diarizeAlias || otherOpenAIModels.contains(name) {
            if task == .translate || (language != nil && language != "en") { speech.model = .base }
        } else {
            guard let model = WhisperModel(rawValue: name) else {
                throw HTTPError(400, "unknown model '\(ShownText.echoed(name))'; GET /v1/models lists them (\(alias), "
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

    /// OpenAI's streamed transcription events: the text a piece at a time as Whisper reads it, then the whole.
    struct TextDelta: Codable, Sendable { var type = "transcript.text.delta"; var delta: String }
    struct TextDone: Codable, Sendable {
        var type = "transcript.text.done"
        var text: String
        var usage: DurationUsage
    }

    /// `stream=true`: Server-Sent Events while the file is read — a `transcript.text.delta` per segment (joined,
    /// they are the text), then `transcript.text.done`; an `error` event if it fails. The place in the work queue
    /// is taken first, so a full queue is still a plain 503; the upload lives until the stream ends.
    static func streamed(_ file: UploadedFile, _ transcriber: Transcriber, _ services: Services) throws -> HTTPResponse {
        try services.work.admit()
        let channel = ByteChannel()
        let sent = Locked(0)
        let job = Task {
            defer { services.work.leave(); channel.finish() }
            do {
                let transcript = try await transcriber.transcribe(file: file.path, segments: { segments in
                    for segment in segments {
                        let first = sent.withLock { count in defer { count += 1 }; return count == 0 }
                        channel.sendEvent("transcript.text.delta", TextDelta(delta: first ? segment.text : " " + segment.text))
                    }
                })
                channel.sendEvent("transcript.text.done", TextDone(text: transcript.text, usage: .init(seconds: transcript.duration)))
            } catch {
                let response = ErrorResponses.response(for: error, uploads: [file])
                if case let .bytes(body) = response.body { channel.sendEvent("error", json: body) }
            }
        }
        _ = job
        return HTTPResponse(status: 200, headers: [("Content-Type", "text/event-stream"), ("Cache-Control", "no-store")],
                            body: .stream(channel))
    }

    /// A prompt longer than this cannot be meant for Whisper (`InputLimits.promptBytes`, Realtime's limit too).
    static let maxPromptBytes = InputLimits.promptBytes

    static func transcribe(_ request: HTTPRequest, _ services: Services, task: WhisperTask) async throws -> HTTPResponse {
        let file = try request.requireFile("file")
        var speech = try configuration(request, services, task: task)
        let format = request.field("response_format") ?? "json"
        guard ["json", "text", "srt", "vtt", "verbose_json", "diarized_json"].contains(format) else {
            throw HTTPError(400, "response_format must be json, text, srt, vtt, verbose_json or diarized_json; got '\(ShownText.echoed(format))'")
        }
        let known = try knownSpeakers(request)
        if known != nil && format != "diarized_json" {
            throw HTTPError(400, "known_speaker_names[] needs response_format=diarized_json; got '\(ShownText.echoed(format))'")
        }
        let granularities = Set(request.fields("timestamp_granularities[]") + request.fields("timestamp_granularities"))
        if let other = granularities.first(where: { $0 != "segment" && $0 != "word" }) {
            throw HTTPError(400, "timestamp_granularities must be 'segment' or 'word'; got '\(ShownText.echoed(other))'")
        }
        if !granularities.isEmpty && format != "verbose_json" {
            throw HTTPError(400, "timestamp_granularities needs response_format=verbose_json; got '\(ShownText.echoed(format))'")
        }
        // diarized segments are cut where the words change speaker
        speech.words = granularities.contains("word") || format == "diarized_json"
        if let prompt = request.field("prompt"), !prompt.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty {
            guard prompt.utf8.count <= maxPromptBytes else {
                throw HTTPError(400, "prompt is \(prompt.utf8.count) bytes; at most \(maxPromptBytes) are read (Whisper reads 223 tokens)")
            }
            speech.prompt = prompt
        }
        if let text = request.field("temperature"), !text.isEmpty {
            guard let temperature = Double(text), temperature.isFinite, (0...1).contains(temperature) else {
                throw HTTPError(400, "temperature must be a number from 0 to 1; got '\(ShownText.echoed(text))'")
            }
            speech.temperature = temperature
        }
        let transcriber = try services.transcriber(speech, forFile: file.path)
        if let stream = request.field("stream"), stream.lowercased() == "true" {
            guard format == "json" || format == "text" else {
                throw HTTPError(400, "stream=true answers with text events: response_format must be json or text; got '\(ShownText.echoed(format))'")
            }
            return try streamed(file, transcriber, services)
        }
        // what the diarizer would refuse is refused before any audio is read
        let diarization = format == "diarized_json" ? try await diarizationOptions(request, known: known, services) : nil
        var transcript = try await services.work.run { try await transcriber.transcribe(file: file.path) }
        transcript.source = file.filename
        switch format {
        case "diarized_json":
            let diarizer = try services.diarizer()
            let options = diarization ?? Diarizer.Options()
            let voices = try await services.work.run { try diarizer.diarize(file: file.path, options: options) }
            let letters = openAILetters(voices)
            let segments = transcript.labelled(by: voices).segments.enumerated().map { i, s in
                Diarized.Segment(id: "seg_\(i)", start: s.start, end: s.end, text: s.text,
                                 speaker: s.speaker.map { letters[$0] ?? $0 } ?? "unknown")
            }
            return .json(Diarized(duration: transcript.duration, text: transcript.text, segments: segments,
                                  usage: .init(seconds: transcript.duration)))
        case "text": return .text(transcript.text + "\n")
        case "srt": return .text(SubRipWriter().render(transcript), contentType: "application/x-subrip; charset=utf-8")
        case "vtt": return .text(WebVTTWriter().render(transcript), contentType: "text/vtt; charset=utf-8")
        case "verbose_json":
            let segments = transcript.segments.enumerated().map { id, s in
                Verbose.Segment(id: id, start: s.start, end: s.end, text: s.text, tokens: s.tokens ?? [], temperature: s.temperature ?? 0,
                                avgLogprob: s.averageLogProbability ?? 0, compressionRatio: s.compressionRatio ?? 0,
                                noSpeechProb: s.noSpeechProbability ?? 0)
            }
            // OpenAI lists segments unless only words were asked for
            let words = speech.words ? transcript.words.map { word in
                Verbose.Word(word: word.word.trimmingCharacters(in: CharacterSet.whitespaces), start: word.start, end: word.end)
            } : nil
            // no language only where "auto" heard no speech: OpenAI's field is never empty
            return .json(Verbose(task: task.rawValue, language: transcript.language ?? "en", duration: transcript.duration,
                                 text: transcript.text, segments: granularities == ["word"] ? nil : segments, words: words,
                                 usage: DurationUsage(seconds: transcript.duration)))
        default: return .json(TextBody(text: transcript.text, usage: DurationUsage(seconds: transcript.duration)))
        }
    }

    /// The diarizer's options of a `diarized_json` request, checked as the diarizer checks them (a speaker count out of
    /// range, a known name nobody enrolled or named) without reading audio. The people named in the notes name voices
    /// as enrolled people do; a notes store that cannot be read names nobody (the transcription is not refused for it).
    static func diarizationOptions(_ request: HTTPRequest, known: [Diarizer.KnownSpeaker]?, _ services: Services) async throws -> Diarizer.Options {
        var options = Diarizer.Options()
        options.known = known
        options.voices = (try? await services.notes().namedVoices()) ?? []
        if let count = request.field("num_speakers"), !count.isEmpty {  // Earshot's own: when the caller knows
            guard let n = Int(count), (1...Diarizer.maxSpeakers).contains(n) else {
                throw HTTPError(400, "num_speakers must be a whole number from 1 to \(Diarizer.maxSpeakers); got '\(ShownText.echoed(count))'")
            }
            options.numSpeakers = n
        }
        try services.diarizer().validate(options)
        return options
    }

    /// `known_speaker_names[]` with `known_speaker_references[]` (data URLs of short clips, in the same order),
    /// as OpenAI takes them; a name given without a reference means that enrolled voice (Earshot's own).
    static func knownSpeakers(_ request: HTTPRequest) throws -> [Diarizer.KnownSpeaker]? {
        let names = request.fields("known_speaker_names[]") + request.fields("known_speaker_names")
        let references = request.fields("known_speaker_references[]") + request.fields("known_speaker_references")
        guard !names.isEmpty || !references.isEmpty else { return nil }
        guard references.count <= names.count else {
            throw HTTPError(400, "\(references.count) known_speaker_references[] for \(names.count) known_speaker_names[]: give a name for each")
        }
        guard names.count <= Diarizer.maxSpeakers else {
            throw HTTPError(400, "\(names.count) known_speaker_names[]: at most \(Diarizer.maxSpeakers) speakers are told apart")
        }
        let checked = try names.map { name -> String in
            switch NameRule.checked(name) {
            case let .success(name): return name
            case let .failure(problem):
                throw HTTPError(400, "known_speaker_names[] '\(ShownText.echoed(name))' cannot name a speaker: \(problem)")
            }
        }
        guard Set(checked).count == checked.count else {
            throw HTTPError(400, "known_speaker_names[] must be distinct")
        }
        return try checked.enumerated().map { i, name in
            guard i < references.count else { return Diarizer.KnownSpeaker(name: name) }
            return Diarizer.KnownSpeaker(name: name, reference: try clip(dataURL: references[i], of: name))
        }
    }

    /// A `data:audio/...;base64,...` URL's audio.
    static func clip(dataURL: String, of name: String) throws -> AudioBuffer {
        guard dataURL.hasPrefix("data:"), let comma = dataURL.firstIndex(of: ","),
              dataURL[..<comma].hasSuffix(";base64"), let bytes = Data(base64Encoded: String(dataURL[dataURL.index(after: comma)...])) else {
            throw HTTPError(400, "the reference of '\(name)' is not a base64 data URL (data:audio/wav;base64,…)")
        }
        do { return try AudioFileLoader(sampleRate: SpeakerEncoder.sampleRate).load(data: bytes, name: "the reference of '\(name)'") } catch {
            throw HTTPError(400, (error as? LocalizedError)?.errorDescription ?? "\(error)")
        }
    }

    /// OpenAI labels voices nobody named A, B, … in order of appearance.
    static func openAILetters(_ voices: Diarization) -> [String: String] {
        var letters: [String: String] = [:]
        for turn in voices.turns where !voices.speakers.contains(where: { $0.label == turn.speaker && $0.enrolled }) {
            if letters[turn.speaker] == nil && turn.speaker.hasPrefix("SPEAKER_") {
                letters[turn.speaker] = String(UnicodeScalar(UInt8(65 + letters.count % 26)))
            }
        }
        return letters
    }
}
