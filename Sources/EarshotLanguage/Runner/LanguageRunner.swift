import EarshotCore
import Foundation

/// Language models run in a process of their own, `earshot-language-runner`, one per model, started on first
/// use and kept for the life of the process that uses it (as Ollama runs llama.cpp). A crash or a hang of the
/// runner fails only the request it was on, with a readable error; the next request starts a new runner.
///
/// The runner program is found through `EARSHOT_LANGUAGE_RUNNER`, else beside the running program (SwiftPM puts
/// every product of a package in one folder: `swift build --product earshot-language-runner`).
public final class LanguageRunner: Sendable {
    /// What a runner is for: a chat model (`chat default`, `chat small`) or the sentence embedder (`embed`); the
    /// runner's first arguments say which, written by `arguments` and read back by `init(arguments:)`.
    public enum Kind: Sendable, Equatable {
        case chat(LanguageModelChoice)
        case embed

        var arguments: [String] {
            switch self {
            case let .chat(choice): return ["chat", choice.rawValue]
            case .embed: return ["embed"]
            }
        }

        init(arguments: [String]) throws {
            switch arguments.first {
            case "chat": self = .chat(try LanguageModelChoice(named: arguments.dropFirst().first ?? "default"))
            case "embed": self = .embed
            default: throw LanguageError.failed("usage: earshot-language-runner chat [default|small] | embed [--threads N] [--home EARSHOT_HOME]")
            }
        }
    }

    public let kind: Kind
    private let threads: Int
    private let home: URL
    /// The running runner, if any; held while a request is out, so requests from several tasks take turns.
    private let process = Locked<RunnerProcess?>(nil)
    /// Its process id, apart from `process`, whose lock is held for as long as a request runs.
    private let runningID = Locked<Int32?>(nil)

    public init(_ kind: Kind, store: ModelStore = ModelStore(), threads: Int = 2) {
        self.kind = kind
        self.threads = threads
        home = store.home
    }

    /// The runner's process id, while one runs (tests stop it to check what a crash does).
    public var processID: Int32? { runningID.withLock { $0 } }

    public static var executable: String {
        if let custom = ProcessInfo.processInfo.environment["EARSHOT_LANGUAGE_RUNNER"], !custom.isEmpty { return custom }
        return URL(fileURLWithPath: ProcessStatus.programPath).deletingLastPathComponent().appendingPathComponent("earshot-language-runner").path
    }

    /// Seconds a runner may take to load its model, or to answer one request (`EARSHOT_LANGUAGE_TIMEOUT`
    /// overrides the request limit): long enough for a 2,500-token prompt on a slow machine and a wait for
    /// another process's reply (one reply at a time per machine), short enough that a hung runner is noticed.
    static let loadTimeout = 300.0
    static var requestTimeout: Double {
        ProcessInfo.processInfo.environment["EARSHOT_LANGUAGE_TIMEOUT"].flatMap(Double.init) ?? 900
    }

    func ask(_ request: RunnerRequest) throws -> RunnerResponse {
        try process.withLock { process in
            let runner = try process ?? start()
            process = runner
            runningID.withLock { $0 = runner.pid }
            do {
                let response = try runner.ask(request, timeout: Self.requestTimeout)
                if let error = response.error { throw LanguageError.failed(error) }
                return response
            } catch let error as LanguageError where error.endedRunner {
                process = nil  // the next request starts a new runner
                runningID.withLock { $0 = nil }
                throw error
            }
        }
    }

    private func start() throws -> RunnerProcess {
        let executable = Self.executable
        guard FileManager.default.isExecutableFile(atPath: executable) else { throw LanguageError.runnerMissing(path: executable) }
        do {
            return try RunnerProcess(executable: executable, arguments: kind.arguments + ["--threads", String(threads), "--home", home.path],
                                     timeout: Self.loadTimeout)
        } catch let error as LanguageError {
            if case let .runnerCrashed(signal, code, _) = error { throw LanguageError.runnerCrashed(signal: signal, exitCode: code, doing: "loading its model") }
            throw error
        }
    }
}
