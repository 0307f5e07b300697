import EarshotCore
import EarshotSound
import EarshotSpeech
import EarshotVoice
import Foundation

/// Live sessions for the pages' microphones: open one (`transcribe`, `sound` or `voice`), send audio as raw
/// little-endian 32-bit float samples at 16 kHz in POSTs of any size, read the results as Server-Sent Events,
/// close it. Transcription sends `partial` and `final` events (LiveEvent JSON; with `speakers`, each final line names
/// the enrolled voice that spoke it, or "someone else"); sound sends `sound` events; voice
/// sends `voice` events (the person's score on the last 4 s, every second) and `silence` when there is too little
/// speech to judge.
enum LiveRoutes {
    struct Opened: Codable, Sendable {
        var id: String
        var kind: String
        var sampleRate: Int
        var audio: String
        var events: String
        enum CodingKeys: String, CodingKey { case id, kind, sampleRate = "sample_rate", audio, events }
    }

    struct Open: Codable, Sendable {
        var kind: String
        /// sound: a trained model's name (default the built-in classifier); voice: the enrolled person's name.
        var model: String?
        var name: String?
        var threshold: Float?
        /// transcribe: label each final line with the enrolled voice that spoke it.
        var speakers: Bool?
    }

    /// A voice session scores the last `voiceWindow` seconds every `voiceHop` seconds of new audio.
    static let voiceWindow = 4.0, voiceHop = 1.0

    static let sampleRate = 16_000

    static func add(to router: inout Router, _ services: Services) {
        router.add("POST", "/api/live") { request, _ in
            let open = try request.json(Open.self)
            // load the models (and check the person) before answering, so a missing one is this request's error
            let work: @Sendable (LiveSessions.Session) async throws -> Void
            switch open.kind {
            case "transcribe":
                let transcriber = try services.transcriber()
                let voices = open.speakers == true ? try services.voices() : nil
                try await voices?.requireSomeoneEnrolled()
                work = { session in try await transcribe(session, with: transcriber, speakers: voices) }
            case "sound":
                let classifier = try services.soundClassifier(named: open.model)
                let settings = SoundClassifier.LiveSettings(threshold: open.threshold ?? 0.3)
                work = { session in try await classify(session, with: classifier, settings: settings) }
            case "voice":
                guard let name = open.name else { throw HTTPError(400, "a voice session needs the 'name' of an enrolled person") }
                let voices = try services.voices()
                guard await voices.isEnrolled(name) else {
                    throw VoiceError.unknownProfile(name, known: await voices.enrolled().profiles.map(\.name))
                }
                work = { session in try await verify(session, name: name, with: voices) }
            default:
                throw HTTPError(400, "kind must be transcribe, sound or voice")
            }
            let session = try services.live.open(kind: open.kind, sampleRate: sampleRate)
            let log = services.configuration.log, opened = Date()
            let task = Task {
                let outcome: (String, detail: String)
                do {
                    try await work(session)
                    _ = send("end", ["id": session.id], to: session)
                    outcome = ("ended", session.events.isCancelled ? "its events' reader left" : "")
                } catch {
                    _ = send("error", APIErrorBody(error: .init(message: error.localizedDescription, type: "server_error", code: 500)), to: session)
                    outcome = ("failed", error.localizedDescription)
                }
                log.live(session: session.id, kind: open.kind, outcome: outcome.0, seconds: Date().timeIntervalSince(opened), detail: outcome.detail)
                session.events.finish()
                services.live.remove(session.id)
            }
            session.worker.withLock { $0 = task }
            // a reader that left sends no more audio: end the session then. Before, it lived on until another session
            // opened after its 120 s idle limit. The HTTP server notices that a waiting stream's client has gone when
            // a keep-alive cannot be written: 15-30 s (measured: 27 s after curl left; the first write after the
            // client's close still succeeds).
            session.events.onCancel { services.live.remove(session.id) }
            let base = "/api/live/\(session.id)"
            return .json(Opened(id: session.id, kind: open.kind, sampleRate: sampleRate, audio: "\(base)/audio", events: "\(base)/events"),
                         status: 201)
        }
        router.add("POST", "/api/live/:id/audio") { request, p in
            let session = try services.live.session(p["id"])
            guard case let .raw(path, size) = request.body else { throw HTTPError(400, "send the samples as the request body") }
            guard size % 4 == 0 else { throw HTTPError(400, "the body is \(size) bytes, not whole 32-bit float samples") }
            guard size <= sampleRate * 4 * 30 else { throw HTTPError(413, "send at most 30 s of audio per request") }
            let data = try Data(contentsOf: URL(fileURLWithPath: path))
            var samples = [Float](repeating: 0, count: size / 4)
            _ = samples.withUnsafeMutableBytes { data.copyBytes(to: $0) }
            guard samples.allSatisfy({ $0.isFinite && abs($0) <= 1_000 }) else { throw HTTPError(400, "the samples are not audio (NaN, infinite or huge)") }
            session.lastAudio.withLock { $0 = Date() }
            session.audio.push(samples)
            return HTTPResponse(status: 204)
        }
        router.add("GET", "/api/live/:id/events") { _, p in
            let session = try services.live.session(p["id"])
            guard session.attached.withLock({ attached in defer { attached = true }; return !attached }) else {
                throw HTTPError(409, "this session's events are already being read")
            }
            return HTTPResponse(status: 200, headers: [("Content-Type", "text/event-stream"), ("Cache-Control", "no-store")],
                                body: .stream(session.events))
        }
        router.add("DELETE", "/api/live/:id") { _, p in
            // ends the audio: the last events (a final line) still go out, then the stream ends
            _ = try services.live.session(p["id"])
            services.live.remove(p["id"])
            return HTTPResponse(status: 204)
        }
    }

    private static func transcribe(_ session: LiveSessions.Session, with transcriber: Transcriber, speakers: VoiceID?) async throws {
        for try await event in transcriber.live(session.audio, speakers: speakers) {
            let type: String = if case .partial = event { "partial" } else { "final" }
            guard send(type, event, to: session) else { return }
        }
    }

    private static func classify(_ session: LiveSessions.Session, with classifier: SoundClassifier,
                                 settings: SoundClassifier.LiveSettings) async throws {
        for try await event in classifier.listen(session.audio, settings: settings) {
            guard send("sound", event, to: session) else { return }
        }
    }

    private static func verify(_ session: LiveSessions.Session, name: String, with voices: VoiceID) async throws {
        let window = Int(voiceWindow * Double(sampleRate)), hop = Int(voiceHop * Double(sampleRate))
        var recent: [Float] = [], fresh = 0
        for try await chunk in session.audio.chunks(sampleRate: sampleRate) {
            recent += chunk
            fresh += chunk.count
            if recent.count > window { recent.removeFirst(recent.count - window) }
            guard fresh >= hop, recent.count >= window / 2 else { continue }
            fresh = 0
            let audio = AudioBuffer(samples: recent, sampleRate: sampleRate)
            do {
                guard send("voice", try await voices.verify(name, audio: audio, source: session.audio.name), to: session) else { return }
            } catch VoiceError.notEnoughSpeech {
                guard send("silence", ["seconds": audio.duration], to: session) else { return }
            }
        }
    }

    private static func send<T: Encodable>(_ event: String, _ value: T, to session: LiveSessions.Session) -> Bool {
        session.events.sendEvent(event, value)
    }
}
