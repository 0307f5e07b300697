import EarshotCore
import EarshotLanguage
import EarshotServer
import EarshotSpeech
import Foundation

enum ServeCommand {
    static let command = Command(
        name: "serve",
        abstract: "Run the local web app (notes, live transcription, sounds, voices) and its HTTP API.",
        usage: "[options]",
        discussion: """
        One process serves the pages and the API with the models loaded once, and runs the notes' background
        work (notes added with the CLI meanwhile are processed too). The API speaks OpenAI's audio endpoints
        (/v1/audio/transcriptions, /v1/audio/translations, /v1/models), so existing clients work when pointed at
        it; the Earshot API is described at /api/openapi.json.
        It listens on loopback only unless --host says otherwise; any other host needs a token (one is generated
        and printed when --token is not given), which every request must carry.
        """,
        options: [
            Option(name: "host", value: "address", help: "Address to listen on (default 127.0.0.1; 0.0.0.0 for every interface)."),
            Option(name: "port", value: "n", help: "Port (default 8787; 0 picks a free one)."),
            Option(name: "token", value: "secret", help: "Require this token (Authorization: Bearer, or ?token= once in a browser)."),
            Option(name: "max-upload", value: "MB", help: "Largest upload in megabytes (default 512)."),
            Option(name: "model", value: "name", help: "Whisper for requests that name none: tiny.en (default) or base."),
            Option(name: "queue", value: "n", help: "Model requests waiting or running before 503 (default 16 per core)."),
            Option(name: "llm", value: "model", help: "Language model for the notes' titles and summaries: default (1.5B) or small (135M)."),
            Option(name: "no-notes-worker", value: nil, help: "Do not process notes in the background."),
            Option(name: "log-format", value: "format", help: "A line per request and background job on stderr: text (default), json or off."),
        ],
        examples: [
            "earshot serve",
            "earshot serve --port 9000 --model base",
            "earshot serve --llm small",
            "earshot serve --host 0.0.0.0 --token \"$(openssl rand -hex 16)\"",
            "curl -F file=@memo.m4a http://127.0.0.1:8787/v1/audio/transcriptions",
        ],
        run: run)

    static func run(_ args: ParsedArguments) async throws -> Int32 {
        guard args.positionals.isEmpty else { throw UsageError(message: "serve takes no file arguments", path: args.path) }
        var configuration = AppServer.Configuration()
        configuration.host = args.value("host") ?? "127.0.0.1"
        configuration.port = try args.int("port", default: 8787, range: 0...65535)
        configuration.maxUpload = try args.int("max-upload", default: 512, range: 1...65536) * 1024 * 1024
        configuration.queueCapacity = try args.int("queue", default: configuration.queueCapacity, range: 1...10_000)
        configuration.processNotes = !args.flag("no-notes-worker")
        configuration.log = ServerLog(format: try args.choice("log-format", default: ServerLog.Format.text))
        if let name = args.value("model") {
            do { configuration.speech.model = try WhisperModel(named: name) } catch {
                throw UsageError(message: error.localizedDescription, path: args.path)
            }
        }
        if let llm = args.value("llm") {
            do { configuration.notesLanguageModel = try LanguageModelChoice(named: llm) } catch {
                throw UsageError(message: error.localizedDescription, path: args.path)
            }
        }
        var generated = false
        if let token = args.value("token") {
            guard token.count >= 16 else { throw UsageError(message: "--token must have at least 16 characters", path: args.path) }
            configuration.token = token
        } else if !AccessPolicy.isLoopback(configuration.host) {
            configuration.token = AccessPolicy.generateToken()
            generated = true
        }
        let server = try AppServer(configuration)
        // unbuffered: scripts and tests read the address from a pipe
        StandardOutput.write("Earshot is listening on \(server.address)/ (Ctrl-C stops)\n")
        if let token = configuration.token {
            StandardOutput.write("open \(server.address)/?token=\(token) once in the browser; API clients send 'Authorization: Bearer \(token)'"
                                 + (generated ? " (a generated token: give --token to choose one)" : "") + "\n")
        }
        await waitForTermination()
        StandardError.write("stopping: open requests finish first\n")
        await server.stop()
        return 0
    }

    /// Returns on SIGINT or SIGTERM.
    private static func waitForTermination() async {
        await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
            let once = Locked(false)
            var sources: [DispatchSourceSignal] = []
            for number in [SIGINT, SIGTERM] {
                signal(number, SIG_IGN)
                let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
                source.setEventHandler {
                    guard once.withLock({ fired in defer { fired = true }; return !fired }) else { return }
                    done.resume()
                }
                source.resume()
                sources.append(source)
            }
            // the sources live as long as the process
            Signals.keep(sources)
        }
    }
}

private enum Signals {
    static let held = Locked<[DispatchSourceSignal]>([])
    static func keep(_ sources: [DispatchSourceSignal]) { held.withLock { $0 += sources } }
}
