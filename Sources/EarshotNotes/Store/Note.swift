import EarshotCore
import EarshotSpeech
import EarshotVoice
import Foundation

/// The work done on a note after it is saved, in order; each stage runs once it is the note's next.
public enum NoteStage: String, Sendable, CaseIterable, Codable {
    case transcribe
    case summarise
    case embed

    var position: Int { Self.allCases.firstIndex(of: self)! }
}

/// Where a stage of a note stands.
public struct StageStatus: Sendable, Equatable, Codable {
    public enum State: String, Sendable, Codable { case pending, running, done, failed }
    public var stage: NoteStage
    public var state: State
    public var attempts: Int
    /// Times the stage's result was committed: 1 once done, whatever was killed on the way.
    public var completions: Int
    public var error: String?
}

/// A voice note as stored.
public struct Note: Sendable, Equatable {
    public var id: Int
    public var created: Date
    /// The file name the recording was added from.
    public var sourceName: String
    /// The recording's path inside the store.
    public var audioPath: String
    public var duration: Double
    public var title: String
    /// Who wrote the title: "none" (not yet), "extract" (key words), "llm", "user".
    public var titleBy: String
    public var summary: String
    public var actions: [ActionItem]
    public var transcript: String
    public var segments: [TranscriptSegment]
    public var languageModel: String
    public var tags: [String]
    public var stages: [StageStatus]
    /// The summary template the note is written with (`SummaryTemplate`).
    public var template = SummaryTemplate.defaultName

    /// The voices heard, in order of appearance (enrolled names, `SPEAKER_nn` for others); empty when the note was
    /// not labelled (one voice nobody enrolled).
    public var speakers: [String] {
        var seen: [String] = []
        for s in segments { if let speaker = s.speaker, !seen.contains(speaker) { seen.append(speaker) } }
        return seen
    }

    /// Whether the transcript (and with it the speakers) is there.
    public var isTranscribed: Bool { stages.first { $0.stage == .transcribe }?.state == .done }

    /// The transcript as the language model reads it: a line per segment, `Name: ` before what an enrolled person
    /// said, so action items can name their owners (only names: numbered voices would become title key words).
    public var transcriptForReading: String { Self.reading(segments) ?? transcript }

    /// Segments as the language model reads them, or nil when no named person speaks in them (the plain transcript).
    public static func reading(_ segments: [TranscriptSegment]) -> String? {
        guard segments.contains(where: { $0.speaker.map(isName) ?? false }) else { return nil }
        return segments.map { s in (s.speaker.flatMap { isName($0) ? "\($0): " : nil } ?? "") + s.text }.joined(separator: "\n")
    }

    static func isName(_ speaker: String) -> Bool { !speaker.hasPrefix("SPEAKER_") }

    /// Where the note's background work stands, in words: "ready", "summarise failed", "transcribe…",
    /// "waiting: embed".
    public var status: String {
        if stages.allSatisfy({ $0.state == .done }) { return "ready" }
        if let failed = stages.first(where: { $0.state == .failed }) { return "\(failed.stage.rawValue) failed" }
        if let running = stages.first(where: { $0.state == .running }) { return "\(running.stage.rawValue)…" }
        if let next = stages.first(where: { $0.state == .pending }) { return "waiting: \(next.stage.rawValue)" }
        return ""
    }

    /// The note at a glance, without its texts: what `notes list --json` prints.
    public struct Overview: Sendable, Codable, Equatable {
        public var id: Int
        public var title: String
        public var created: Date
        public var duration: Double
        public var tags: [String]
        public var source: String
        /// Each stage's state by stage name.
        public var stages: [String: StageStatus.State]
        public var status: String
    }

    public var overview: Overview {
        Overview(id: id, title: title, created: created, duration: duration, tags: tags, source: sourceName,
                stages: Dictionary(uniqueKeysWithValues: stages.map { ($0.stage.rawValue, $0.state) }), status: status)
    }

    /// The note's title, or a placeholder while it has none.
    public var displayTitle: String { title.isEmpty ? "(untitled: \(sourceName))" : title }
}

public enum NotesError: Error, LocalizedError, Equatable {
    case notAudio(path: String, problem: String)
    case unknownNote(Int)
    case emptyQuery
    case badQuery(query: String, problem: String)
    case storage(path: String, problem: String)
    case storeTooNew(path: String, version: Int, supported: Int)
    case noSuchTag(String)
    /// The database is missing, empty or damaged while recordings remain: `NotesLibrary.repair` rebuilds it.
    case needsRepair(path: String, problem: String, recordings: Int)
    case unknownSpeaker(note: Int, speaker: String, speakers: [String])
    case badSpeakerName(String)
    /// The note has no transcript yet (its speakers come with it).
    case notTranscribed(Int)
    /// Too little of a voice in a note to enrol it.
    case tooLittleSpeech(note: Int, speaker: String, seconds: Double)
    /// The note was deleted while a stage of it ran: its result was dropped.
    case deletedWhileWorking(Int, stage: String)
    case unknownPerson(Int)
    /// A request about people that cannot be done (merging someone with themselves).
    case badPeople(String)
    /// Note `note` has no action item `item` (numbered from 1; it has `count`).
    case unknownAction(note: Int, item: Int, count: Int)
    /// A number of speakers a recording cannot have (1 to `Diarizer.maxSpeakers`).
    case badSpeakerCount(Int)
    /// Note `note` has no segment `segment` (numbered from 1; it has `count`).
    case unknownSegment(note: Int, segment: Int, count: Int)
    /// A correction that cannot be made (empty text, nothing to change, a segment changed since).
    case badCorrection(String)
    /// A summary template that cannot be made or removed as asked.
    case badTemplate(String)
    case unknownTemplate(name: String, known: [String])

    public var errorDescription: String? {
        switch self {
        case let .notAudio(path, problem): return "\(path): \(problem); nothing was stored"
        case let .unknownNote(id): return "no note with id \(id)"
        case .emptyQuery: return "the search query is empty: give some words to look for"
        case let .badQuery(query, problem): return "cannot search for '\(query)': \(problem)"
        case let .storage(path, problem): return "notes store \(path): \(problem)"
        case let .storeTooNew(path, version, supported):
            return "notes store \(path) is at schema version \(version); this Earshot reads up to \(supported): update Earshot"
        case let .noSuchTag(tag): return "no note is tagged '\(tag)'"
        case let .needsRepair(path, problem, recordings):
            return "\(path): \(problem), and \(recordings) recording(s) are stored beside it; nothing was changed"
        case let .unknownSpeaker(note, speaker, speakers):
            return "note \(note) has no speaker '\(speaker)'" + (speakers.isEmpty ? ": its transcript is not labelled by speaker"
                : " (its speakers: \(speakers.joined(separator: ", ")))")
        case let .badSpeakerName(name):
            return "'\(ShownText.echoed(name))' cannot name a speaker: give 1 to \(NameRule.maximumCharacters) printable characters "
                + "on one line (no control characters or direction marks), not starting with SPEAKER_"
        case let .deletedWhileWorking(id, stage):
            return "note \(id) was deleted while its \(stage) stage ran; the result was dropped"
        case let .unknownPerson(id): return "no person with id \(id) (`earshot people list` shows who is known)"
        case let .badPeople(problem): return problem
        case let .unknownSegment(note, segment, count):
            return "note \(note) has no segment \(segment)" + (count == 0 ? ": its transcript is empty"
                : " (it has \(count), numbered from 1 as `earshot notes show \(note)` numbers them)")
        case let .badCorrection(problem): return problem
        case let .badTemplate(problem): return problem
        case let .unknownTemplate(name, known):
            return "no summary template is called '\(name)' (there are: \(known.joined(separator: ", ")); `earshot notes template add` makes one)"
        case let .badSpeakerCount(count):
            return "\(count) speakers: give a number from 1 to \(Diarizer.maxSpeakers), or leave it out to have the voices counted; nothing was stored"
        case let .unknownAction(note, item, count):
            return "note \(note) has no action item \(item)" + (count == 0 ? ": it has none" : " (it has \(count), numbered from 1)")
        case let .notTranscribed(id):
            return "note \(id) is not transcribed yet: its speakers are known once it is "
                + "(`earshot notes process` does it, as does a running `earshot serve`)"
        case let .tooLittleSpeech(note, speaker, seconds):
            return "\(speaker) says \(String(format: "%.1f", seconds)) s in note \(note): enrolling a voice needs at least "
                + "\(Int(NoteSpeech.minimumSeconds)) s; nothing was changed"
        }
    }
}
