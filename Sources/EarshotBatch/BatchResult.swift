import EarshotCore
import EarshotSound
import EarshotSpeech
import EarshotVoice
import Foundation

/// One line of `earshot batch`'s output: what the job's tasks produced, or why the file could not be used.
/// Fields a job did not ask for are left out. `seconds` is the compute time the job took in this worker.
public struct BatchResult: Codable, Sendable, Equatable {
    /// The job's id; nil only for an input line that was not a job and held none.
    public var id: String?
    public var path: String?
    public var ok: Bool
    /// Length of the audio in seconds.
    public var duration: Double?
    public var text: String?
    public var language: String?
    public var model: String?
    public var segments: [JSONTranscriptWriter.Segment]?
    public var speakers: [DiarizedSpeaker]?
    public var turns: [SpeakerTurn]?
    public var sounds: [LabelScore]?
    public var error: String?
    public var seconds: Double?

    public init(id: String?, path: String?, ok: Bool, error: String? = nil) {
        self.id = id
        self.path = path
        self.ok = ok
        self.error = error
    }

    static func failure(_ job: BatchJob, _ error: Error) -> BatchResult {
        BatchResult(id: job.id, path: job.path, ok: false, error: describe(error, path: job.path))
    }

    /// An error as one sentence that names the file, with what to do about it when the library says.
    static func describe(_ error: Error, path: String) -> String {
        let text = error.descriptionWithAdvice
        return text.contains(path) ? text : "\(path): \(text)"
    }

    /// The result as one line of JSON (keys sorted), without the newline.
    public var line: String { (try? EarshotJSON.text(self, pretty: false)) ?? #"{"ok":false,"error":"unencodable result"}"# }
}
