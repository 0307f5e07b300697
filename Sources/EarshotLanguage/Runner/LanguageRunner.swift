import EarshotCore
import Foundation

/// Language models run in a process of their own, `earshot-language-runner`, one per model per machine (per
/// EARSHOT_HOME), shared by every Earshot process, as Ollama runs llama.cpp: the first process that needs a model
/// starts its host (`RunnerHost`), which owns the worker that loads it; later requests, from this process or any
/// other, reach the same host over a Unix socket. The host leaves `EARSHOT_LANGUAGE_KEEP_ALIVE` seconds (default
/// 300) after its last client has gone. A crash or a hang of the worker fails only the request it was on, with a
/// readable error; the next request gets a new worker.
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
    /// The connection to the host, if open; held while a request is out, so requests from several tasks take turns.
    private let connection = Locked<LineSocket?>(nil)
    /// The worker that answered last, apart from `connection`, whose lock is held for as long as a request runs.
    private let runningID = Locked<Int32?>(nil)

    public init(_ kind: Kind, store: ModelStore = ModelStore(), threads: Int = 2) {
        self.kind = kind
        self.threads = threads
        home = store.home
    }

    /// The worker's process id as of the last answer, nil after a crash (tests stop it to check what a crash does).
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

    /// Seconds a host stays after its last client has gone (`EARSHOT_LANGUAGE_KEEP_ALIVE`), so that the next
    /// command finds the model loaded.
    static let defaultKeepAlive = 300.0
    static var keepAlive: Double {
        ProcessInfo.processInfo.environment["EARSHOT_LANGUAGE_KEEP_ALIVE"].flatMap(Double.init).map { max(0, $0) } ?? defaultKeepAlive
    }

    /// `onPartial`: the pieces of a streamed reply (`RunnerRequest.stream`) as they come.
    func ask(_ request: RunnerRequest, onPartial: (String) -> Void = { _ in }) throws -> RunnerResponse {
        let executable = Self.executable
        guard FileManager.default.isExecutableFile(atPath: executable) else { throw LanguageError.runnerMissing(path: executable) }
        var request = request
        request.timeout = Self.requestTimeout
        return try connection.withLock { connection in
            // a connection can find its host gone (it crashed, or its keep-alive ran out between two requests of
            // this process): then once more, through a new host
            var streamed = false
            for attempt in 0..<2 {
                let host = try connection ?? open(executable)
                connection = host
                var response: RunnerResponse
                do throws(LineSocket.Failure) {
                    try host.send(request)
                    let deadline = Date().addingTimeInterval(Self.loadTimeout + 4 * request.timeout!)
                    response = try host.receive(RunnerResponse.self, deadline: deadline)
                    while let piece = response.partial {
                        streamed = true
                        onPartial(piece)
                        response = try host.receive(RunnerResponse.self, deadline: deadline)
                    }
                } catch {
                    connection = nil
                    runningID.withLock { $0 = nil }
                    // asked again only when nothing of the answer was told yet
                    if error == .ended && attempt == 0 && !streamed { continue }
                    throw LanguageError.failed(error == .timedOut ? "the language-model host did not answer" : "the language-model host went away while answering")
                }
                runningID.withLock { $0 = response.crash == nil ? response.pid : nil }
                if let crash = response.crash { throw crash.error }
                if let error = response.error { throw LanguageError.failed(error) }
                return response
            }
            throw LanguageError.failed("the language-model host went away while answering")
        }
    }

    private func open(_ executable: String) throws -> LineSocket {
        try RunnerAddress(kind: kind, home: home, executable: executable)
            .connect(starting: executable, arguments: kind.arguments + ["--threads", String(threads), "--home", home.path],
                     keepAlive: Self.keepAlive)
    }
}
