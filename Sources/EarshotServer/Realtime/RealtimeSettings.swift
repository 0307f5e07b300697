import EarshotCore
import EarshotSpeech
import Foundation

/// A Realtime transcription session's configuration, read from and written as both dialects of OpenAI's protocol:
/// the GA one (`session.update` with `{"type": "transcription", "audio": {"input": {…}}}`) and the beta one
/// (`transcription_session.update` with `input_audio_format`, `input_audio_transcription`, `turn_detection`).
/// Fields an update leaves out keep their values; `turn_detection: null` turns detection off (the client commits).
struct RealtimeSettings: Equatable {
    var model = OpenAIRoutes.alias
    var language: String?
    var prompt: String?
    var detection: LiveTurns.Detection? = LiveTurns.Detection()
    /// The detection type a client asked for (`semantic_vad` is read as `server_vad` with its timings).
    var detectionType = "server_vad"

    struct Invalid: Error {
        var message: String
        var param: String
    }

    /// Applies an update's `session` object.
    mutating func apply(_ session: [String: Any], dialect: RealtimeDialect) throws {
        switch dialect {
        case .ga:
            if let type = session["type"] as? String, type != "transcription" {
                throw Invalid(message: "this server only transcribes: session.type must be \"transcription\" (connect with ?intent=transcription)",
                              param: "session.type")
            }
            let input = (session["audio"] as? [String: Any])?["input"] as? [String: Any] ?? [:]
            if let format = input["format"] as? [String: Any] { try Self.checkFormat(type: format["type"] as? String, rate: format["rate"], param: "session.audio.input.format") }
            if let transcription = input["transcription"] as? [String: Any] {
                try applyTranscription(transcription, param: "session.audio.input.transcription")
            }
            if input.keys.contains("turn_detection") { try applyDetection(input["turn_detection"], param: "session.audio.input.turn_detection") }
        case .beta:
            if let format = session["input_audio_format"] {
                guard let name = format as? String, name == "pcm16" else {
                    throw Invalid(message: "input_audio_format must be \"pcm16\" (24 kHz mono 16-bit PCM)", param: "session.input_audio_format")
                }
            }
            if let transcription = session["input_audio_transcription"] as? [String: Any] {
                try applyTranscription(transcription, param: "session.input_audio_transcription")
            }
            if session.keys.contains("turn_detection") { try applyDetection(session["turn_detection"], param: "session.turn_detection") }
        }
    }

    static func checkFormat(type: String?, rate: Any?, param: String) throws {
        guard type == nil || type == "audio/pcm" else {
            throw Invalid(message: "audio format '\(type!)' is not spoken here: send audio/pcm (24 kHz mono 16-bit PCM)", param: param + ".type")
        }
        if let rate, (rate as? NSNumber)?.intValue != RealtimeSession.inputRate {
            throw Invalid(message: "audio/pcm is 24000 Hz", param: param + ".rate")
        }
    }

    /// The same limits as the HTTP transcription endpoint's fields (`InputLimits`).
    private mutating func applyTranscription(_ transcription: [String: Any], param: String) throws {
        for key in ["model", "language"] {
            if let value = transcription[key] as? String, value.utf8.count > 64 {
                throw Invalid(message: "\(key) '\(ShownText.echoed(value, limit: 64))' is not a \(key) name", param: param + "." + key)
            }
        }
        if let prompt = transcription["prompt"] as? String, prompt.utf8.count > InputLimits.promptBytes {
            throw Invalid(message: "prompt is \(prompt.utf8.count) bytes; at most \(InputLimits.promptBytes) are read (Whisper reads 223 tokens)",
                          param: param + ".prompt")
        }
        if let model = transcription["model"] as? String { self.model = model }
        if transcription.keys.contains("language") { language = transcription["language"] as? String }
        if transcription.keys.contains("prompt") { prompt = (transcription["prompt"] as? String).flatMap { $0.isEmpty ? nil : $0 } }
    }

    private mutating func applyDetection(_ value: Any?, param: String) throws {
        guard let detection = value as? [String: Any] else {
            if value == nil || value is NSNull { self.detection = nil; return }
            throw Invalid(message: "turn_detection must be an object or null", param: param)
        }
        let type = detection["type"] as? String ?? "server_vad"
        guard ["server_vad", "semantic_vad"].contains(type) else {
            throw Invalid(message: "turn_detection.type must be server_vad or semantic_vad", param: param + ".type")
        }
        var next = self.detection ?? LiveTurns.Detection()
        if let threshold = (detection["threshold"] as? NSNumber)?.floatValue {
            guard (0...1).contains(threshold) else { throw Invalid(message: "threshold must be from 0 to 1", param: param + ".threshold") }
            next.threshold = threshold
        }
        if let padding = (detection["prefix_padding_ms"] as? NSNumber)?.doubleValue {
            guard (0...5_000).contains(padding) else { throw Invalid(message: "prefix_padding_ms must be from 0 to 5000", param: param + ".prefix_padding_ms") }
            next.prefixPadding = padding / 1000
        }
        if let silence = (detection["silence_duration_ms"] as? NSNumber)?.doubleValue {
            guard (32...10_000).contains(silence) else {
                throw Invalid(message: "silence_duration_ms must be from 32 to 10000", param: param + ".silence_duration_ms")
            }
            next.silenceDuration = silence / 1000
        }
        self.detection = next
        detectionType = type
    }

    /// The session object `session.created` / `session.updated` (or their beta names) carry: the whole effective
    /// configuration.
    func object(id: String, dialect: RealtimeDialect) -> [String: Any] {
        let transcription: [String: Any] = ["model": model, "language": language as Any? ?? NSNull(), "prompt": prompt ?? ""]
        let turnDetection: Any = detection.map { detection -> [String: Any] in
            ["type": detectionType, "threshold": Double(detection.threshold), "prefix_padding_ms": Int((detection.prefixPadding * 1000).rounded()),
             "silence_duration_ms": Int((detection.silenceDuration * 1000).rounded())]
        } ?? NSNull()
        switch dialect {
        case .ga:
            return ["type": "transcription", "object": "realtime.transcription_session", "id": id,
                    "audio": ["input": ["format": ["type": "audio/pcm", "rate": RealtimeSession.inputRate], "transcription": transcription,
                                        "turn_detection": turnDetection, "noise_reduction": NSNull()]],
                    "include": [String]()]
        case .beta:
            return ["object": "realtime.transcription_session", "id": id, "input_audio_format": "pcm16",
                    "input_audio_transcription": transcription, "turn_detection": turnDetection,
                    "input_audio_noise_reduction": NSNull(), "include": [String]()]
        }
    }
}

/// Which of OpenAI's two Realtime dialects a client speaks: the event names of the session differ.
enum RealtimeDialect {
    case ga, beta

    var created: String { self == .ga ? "session.created" : "transcription_session.created" }
    var updated: String { self == .ga ? "session.updated" : "transcription_session.updated" }
}
