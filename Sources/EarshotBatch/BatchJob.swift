import EarshotCore
import EarshotSpeech
import Foundation

/// What Earshot can do to one file in a batch. `words` and `speakers` imply `transcribe` (words are timed,
/// speakers label the transcript's words); `speakers` alone with `diarize` gives turns without text.
public enum BatchTask: String, Codable, Sendable, CaseIterable {
    case transcribe, words, speakers, diarize, sounds
}

/// Per-job settings, as a batch line's `options` object. Thread counts belong to the worker, not the job: one
/// loaded copy of each model serves every job.
public struct BatchOptions: Codable, Sendable, Hashable {
    public var model: String?
    public var language: String?
    public var beamSize: Int?
    public var prompt: String?
    public var hotwords: String?
    public var temperature: Double?
    public var numSpeakers: Int?
    /// How many sound labels to report (default 5).
    public var top: Int?

    public init(model: String? = nil, language: String? = nil, beamSize: Int? = nil, prompt: String? = nil, hotwords: String? = nil,
                temperature: Double? = nil, numSpeakers: Int? = nil, top: Int? = nil) {
        self.model = model
        self.language = language
        self.beamSize = beamSize
        self.prompt = prompt
        self.hotwords = hotwords
        self.temperature = temperature
        self.numSpeakers = numSpeakers
        self.top = top
    }

    enum CodingKeys: String, CodingKey {
        case model, language, prompt, hotwords, temperature, top
        case beamSize = "beam_size"
        case numSpeakers = "num_speakers"
    }
}

/// One line of `earshot batch`'s input: `{"id": "...", "path": "...", "tasks": ["transcribe", ...], "options": {...}}`.
/// `tasks` defaults to `["transcribe"]`, `id` to the path.
public struct BatchJob: Codable, Sendable, Equatable {
    public var id: String
    public var path: String
    public var tasks: [BatchTask]
    public var options: BatchOptions

    public init(id: String? = nil, path: String, tasks: [BatchTask] = [.transcribe], options: BatchOptions = BatchOptions()) {
        self.id = id ?? path
        self.path = path
        self.tasks = tasks
        self.options = options
    }

    enum CodingKeys: String, CodingKey { case id, path, tasks, options }

    public init(from decoder: Decoder) throws {
        let read = try Line(from: decoder)
        self.init(id: read.id, path: read.path, tasks: read.tasks ?? [.transcribe], options: read.options ?? BatchOptions())
    }

    /// A job line as written: what it leaves out takes the caller's defaults.
    private struct Line: Decodable {
        let id: String?
        let path: String
        let tasks: [BatchTask]?
        let options: BatchOptions?
    }

    /// Reads one input line; `tasks` and `options` stand for a line that gives none. A line that is not a job
    /// names what is wrong with it (`BatchError.badJob`).
    public static func parse(line: String, number: Int, tasks: [BatchTask] = [.transcribe],
                             options: BatchOptions = BatchOptions()) throws -> BatchJob {
        do {
            let read = try JSONDecoder().decode(Line.self, from: Data(line.utf8))
            // no file system has a longer path; what is refused is quoted only in part
            if read.path.utf8.count > Int(PATH_MAX) {
                throw BatchError.badJob(line: number, problem: "\"path\" '\(ShownText.echoed(read.path))' is longer than a path can be")
            }
            return BatchJob(id: read.id, path: read.path, tasks: read.tasks ?? tasks, options: read.options ?? options)
        } catch let error as BatchError {
            throw error
        } catch let DecodingError.dataCorrupted(context) where context.codingPath.isEmpty {
            throw BatchError.badJob(line: number, problem: "not JSON (\(context.debugDescription))")
        } catch let DecodingError.dataCorrupted(context) where context.codingPath.first?.stringValue == "tasks" {
            let tasks = BatchTask.allCases.map(\.rawValue).joined(separator: ", ")
            throw BatchError.badJob(line: number, problem: "\(context.debugDescription) (tasks are \(tasks))")
        } catch let DecodingError.keyNotFound(key, _) {
            throw BatchError.badJob(line: number, problem: "no \"\(key.stringValue)\"")
        } catch let DecodingError.typeMismatch(_, context), let DecodingError.valueNotFound(_, context) {
            let field = context.codingPath.map(\.stringValue).filter { Int($0) == nil }.joined(separator: ".")
            throw BatchError.badJob(line: number, problem: "\"\(field)\" has the wrong type")
        } catch {
            throw BatchError.badJob(line: number, problem: error.localizedDescription)
        }
    }

    /// The transcription settings the job asks for, on the worker's thread count.
    func transcription(threads: Int, defaultModel: WhisperModel) throws -> Transcriber.Configuration {
        let model = try options.model.map { try WhisperModel(named: $0) } ?? defaultModel
        let language = options.language ?? "en"
        try model.check(language: language)
        let beam = options.beamSize ?? 1
        guard (1...16).contains(beam) else { throw BatchError.badOption("beam_size must be 1-16, not \(beam)") }
        let temperature = options.temperature ?? 0
        guard (0...1).contains(temperature) else { throw BatchError.badOption("temperature must be 0-1, not \(temperature)") }
        return Transcriber.Configuration(model: model, threads: threads, language: language, beamSize: beam, prompt: options.prompt,
                                         hotwords: options.hotwords, words: tasks.contains(.words) || tasks.contains(.speakers),
                                         temperature: temperature)
    }

    /// Whether the job needs text: asked for directly, or through words, or speakers without `diarize` alone.
    var needsTranscript: Bool {
        tasks.contains(.transcribe) || tasks.contains(.words) || (tasks.contains(.speakers) && !tasks.contains(.diarize))
    }

    var needsVoices: Bool { tasks.contains(.speakers) || tasks.contains(.diarize) }
}

public enum BatchError: Error, LocalizedError, Equatable {
    case badJob(line: Int, problem: String)
    case badOption(String)
    case badShard(String)
    case badManifest(path: String, problem: String)

    public var errorDescription: String? {
        switch self {
        case let .badJob(line, problem): return "input line \(line) is not a job: \(problem)"
        case let .badOption(problem): return problem
        case let .badShard(problem): return problem
        case let .badManifest(path, problem): return "\(path): \(problem)"
        }
    }
}

extension BatchJob {
    /// The id of a line that is not a valid job, when it is JSON with a string `id` (so the failure can be matched).
    public static func id(inBadLine line: String) -> String? {
        let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any]
        return object?["id"] as? String
    }
}
