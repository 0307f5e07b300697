import EarshotCore
import EarshotSpeech
import Foundation

/// One client of OpenAI's Realtime transcription protocol over a WebSocket: JSON events in (`session.update` or
/// `transcription_session.update`, `input_audio_buffer.append` / `.commit` / `.clear`), events out as the audio's
/// turns start, end and are read (`input_audio_buffer.speech_started`, `speech_stopped`, `committed`,
/// `conversation.item.created`, `conversation.item.input_audio_transcription.delta` and `.completed`, `error`).
/// Audio is 24 kHz mono 16-bit PCM in base64, resampled to Whisper's 16 kHz here.
final class RealtimeSession {
    static let inputRate = 24_000
    /// The longest turn, in seconds (memory: a turn's 16 kHz samples are held until it is read).
    static let maxTurn = 120.0

    private var connection: WebSocketConnection?
    private let services: Services
    private let dialect: RealtimeDialect
    private let id = RealtimeSession.identifier("sess")
    private var settings = RealtimeSettings()
    private let turns: LiveTurns
    private let resampler: StreamingResampler
    /// Item ids by turn, and the last item committed (each names the one before it).
    private var items: [Int: String] = [:]
    private var lastItem: String?
    /// What the deltas of the turn being read have said so far.
    private var said: [Int: String] = [:]
    private var eventNumber = 0

    /// Loads what the session reads with (the server's Whisper, the speech detector).
    init(services: Services, dialect: RealtimeDialect) throws {
        self.services = services
        self.dialect = dialect
        let transcriber = try services.transcriber(try OpenAIRoutes.configuration(model: nil, language: nil, services, task: .transcribe))
        turns = try LiveTurns(transcriber: transcriber, settings: Self.turnSettings(settings.detection), store: services.models)
        resampler = try StreamingResampler(from: Self.inputRate, to: LiveTurns.sampleRate)
    }

    private static func turnSettings(_ detection: LiveTurns.Detection?) -> LiveTurns.Settings {
        LiveTurns.Settings(detection: detection, partialInterval: 1.0, maxTurn: maxTurn)
    }

    /// Talks to the client until it leaves.
    func run(on connection: WebSocketConnection) async {
        self.connection = connection
        send(dialect.created, ["session": settings.object(id: id, dialect: dialect)])
        while let message = await connection.receive() {
            guard case let .text(text) = message else {
                fail("binary messages are not events: send each event as JSON text", code: "invalid_event", param: nil, event: nil)
                continue
            }
            await handle(text)
            if connection.isClosed { break }
        }
    }

    private func handle(_ text: String) async {
        guard let event = (try? JSONSerialization.jsonObject(with: Data(text.utf8))) as? [String: Any], let type = event["type"] as? String else {
            return fail("the event is not a JSON object with a \"type\"", code: "invalid_json", param: nil, event: nil)
        }
        let eventID = event["event_id"] as? String
        do {
            switch type {
            case "session.update", "transcription_session.update":
                guard let session = event["session"] as? [String: Any] else {
                    return fail("\(type) needs a \"session\" object", code: "missing_required_parameter", param: "session", event: eventID)
                }
                try update(session, dialect: type == "session.update" ? .ga : .beta)
            case "input_audio_buffer.append":
                guard let audio = event["audio"] as? String else {
                    return fail("input_audio_buffer.append needs \"audio\": base64 PCM16", code: "missing_required_parameter", param: "audio", event: eventID)
                }
                guard let bytes = Data(base64Encoded: audio), bytes.count % 2 == 0 else {
                    return fail("\"audio\" is not base64 of whole 16-bit samples", code: "invalid_value", param: "audio", event: eventID)
                }
                try await turns.append(resampler.process(Self.samples(bytes)), emit: report)
            case "input_audio_buffer.commit":
                guard try await turns.commit(emit: report) else {
                    return fail("the buffer holds less than \(Int(LiveTurns.shortestCommit * 1000)) ms of audio", code: "input_audio_buffer_commit_empty",
                                param: nil, event: eventID)
                }
            case "input_audio_buffer.clear":
                turns.clear()
                send("input_audio_buffer.cleared", [:])
            default:
                fail("'\(type)' is not an event of a transcription session (session.update, input_audio_buffer.append, .commit, .clear)",
                     code: "unknown_event", param: "type", event: eventID)
            }
        } catch let invalid as RealtimeSettings.Invalid {
            fail(invalid.message, code: "invalid_value", param: invalid.param, event: eventID)
        } catch let full as LiveTurns.Failure {
            fail(full.localizedDescription, code: "input_audio_buffer_full", param: nil, event: eventID)
        } catch {
            fail(ErrorResponses.message(for: error), code: "server_error", param: nil, event: eventID, type: "server_error")
        }
    }

    private func update(_ session: [String: Any], dialect: RealtimeDialect) throws {
        var next = settings
        try next.apply(session, dialect: dialect)
        if next.model != settings.model || next.language != settings.language || next.prompt != settings.prompt {
            var configuration: Transcriber.Configuration
            do {
                configuration = try OpenAIRoutes.configuration(model: next.model, language: next.language, services, task: .transcribe)
            } catch {
                throw RealtimeSettings.Invalid(message: ErrorResponses.message(for: error), param: "session.audio.input.transcription")
            }
            configuration.prompt = next.prompt
            turns.transcriber = try services.transcriber(configuration)  // audio already buffered stays, and is read by the new one
        }
        if next.detection != settings.detection { turns.settings = Self.turnSettings(next.detection) }
        settings = next
        send(dialect.updated, ["session": settings.object(id: id, dialect: dialect)])
    }

    /// A turn's progress, as the protocol's events.
    private func report(_ event: LiveTurns.Event) {
        switch event {
        case let .speechStarted(turn, at):
            send("input_audio_buffer.speech_started", ["audio_start_ms": Self.milliseconds(at), "item_id": item(turn)])
        case let .speechStopped(turn, at):
            send("input_audio_buffer.speech_stopped", ["audio_end_ms": Self.milliseconds(at), "item_id": item(turn)])
        case let .committed(turn):
            let id = item(turn)
            send("input_audio_buffer.committed", ["previous_item_id": lastItem as Any? ?? NSNull(), "item_id": id])
            send("conversation.item.created", ["previous_item_id": lastItem as Any? ?? NSNull(), "item": [
                "id": id, "object": "realtime.item", "type": "message", "status": "completed", "role": "user",
                "content": [["type": "input_audio", "transcript": NSNull()]]]])
            lastItem = id
        case let .partial(turn, text):
            // deltas only add: the words a new reading keeps from the last one, less its last (maybe cut) word
            let words = text.split(separator: " ")
            delta(turn, String(words.dropLast().joined(separator: " ")))
        case let .completed(turn, text, duration):
            delta(turn, text)
            send("conversation.item.input_audio_transcription.completed", [
                "item_id": item(turn), "content_index": 0, "transcript": text,
                "usage": ["type": "duration", "seconds": (duration * 1000).rounded() / 1000]])
            items[turn] = nil
            said[turn] = nil
        }
    }

    /// Sends what `text` adds to what the turn's deltas said, when it starts with that.
    private func delta(_ turn: Int, _ text: String) {
        let before = said[turn] ?? ""
        guard text.count > before.count, text.hasPrefix(before) else { return }
        said[turn] = text
        send("conversation.item.input_audio_transcription.delta", ["item_id": item(turn), "content_index": 0, "delta": String(text.dropFirst(before.count))])
    }

    private func item(_ turn: Int) -> String {
        if let id = items[turn] { return id }
        let id = Self.identifier("item")
        items[turn] = id
        return id
    }

    private func fail(_ message: String, code: String, param: String?, event: String?, type: String = "invalid_request_error") {
        send("error", ["error": ["type": type, "code": code, "message": message, "param": param as Any? ?? NSNull(), "event_id": event as Any? ?? NSNull()]])
    }

    private func send(_ type: String, _ fields: [String: Any]) {
        eventNumber += 1
        var event = fields
        event["type"] = type
        event["event_id"] = "event_\(id.dropFirst(5))_\(eventNumber)"
        guard let data = try? JSONSerialization.data(withJSONObject: event, options: [.withoutEscapingSlashes]) else { return }
        connection?.send(String(decoding: data, as: UTF8.self))
    }

    static func samples(_ pcm: Data) -> [Float] {
        var samples = [Float](repeating: 0, count: pcm.count / 2)
        pcm.withUnsafeBytes { raw in
            for i in 0..<samples.count {
                samples[i] = Float(Int16(littleEndian: raw.loadUnaligned(fromByteOffset: i * 2, as: Int16.self))) / 32_768
            }
        }
        return samples
    }

    static func milliseconds(_ seconds: Double) -> Int { Int((seconds * 1000).rounded()) }

    static func identifier(_ prefix: String) -> String {
        var generator = SystemRandomNumberGenerator()
        return prefix + "_" + (0..<10).map { _ in String(format: "%02x", UInt8.random(in: 0...255, using: &generator)) }.joined()
    }
}
