import EarshotCore
import EarshotLanguage
import EarshotNotes
import EarshotSound
import EarshotSpeech
import EarshotVoice
import Foundation

/// `earshot serve`: the local web app and its HTTP API over the library's entry types, one process with
/// the models loaded once. Also runs the notes' background work, so notes added by the CLI get processed too.
public final class AppServer: Sendable {
    public struct Configuration: Sendable {
        public var host = "127.0.0.1"
        public var port = 8787
        /// Required off loopback (the CLI generates one); optional on loopback.
        public var token: String?
        public var maxUpload = 512 * 1024 * 1024
        public var models = ModelStore()
        public var notesDirectory: URL
        /// Where sound classifiers trained through the app are kept.
        public var soundModelsDirectory: URL
        /// The Whisper used for transcription requests that do not name one.
        public var speech = Transcriber.Configuration()
        /// Model requests waiting or running at once before 503s (default 16 per core).
        public var queueCapacity = 16 * ProcessInfo.processInfo.activeProcessorCount
        /// Run the notes' waiting stages in the background.
        public var processNotes = true
        /// The language model that writes the notes' titles, summaries and action items.
        public var notesLanguageModel = LanguageModelChoice.standard
        /// A line per request and per background job on standard error.
        public var log = ServerLog(format: .text)

        public init(models: ModelStore = ModelStore()) {
            self.models = models
            notesDirectory = NotesStore.defaultDirectory(models)
            soundModelsDirectory = models.home.appendingPathComponent("sound-models")
        }
    }

    public let configuration: Configuration
    let services: Services
    private let http: HTTPServer
    private let notesWorker: NotesWorker?

    /// The address to open, e.g. http://127.0.0.1:8787 (with the chosen port when started with port 0).
    public var address: String {
        let host = configuration.host.contains(":") ? "[\(configuration.host)]" : configuration.host
        return "http://\(host):\(http.port)"
    }

    public var port: Int { http.port }

    /// Opens the stores and starts listening. Models load on first use, each once.
    public init(_ configuration: Configuration) throws {
        if !AccessPolicy.isLoopback(configuration.host) && configuration.token == nil {
            throw ServerError.unsafeHost(configuration.host)
        }
        self.configuration = configuration
        let services = try Services(configuration)
        self.services = services
        let router = Routes.all(services)
        let policy = AccessPolicy(token: configuration.token)
        let limits = HTTPServer.Limits(maxUpload: configuration.maxUpload)
        let log = configuration.log
        var logger: HTTPServer.Logger?
        if log.format != .off {
            logger = { @Sendable method, path, status, bytes, milliseconds in
                log.request(method: method, path: path, status: status, bytes: bytes, milliseconds: milliseconds)
            }
        }
        http = try HTTPServer(
            host: configuration.host, port: configuration.port, limits: limits,
            uploads: services.scratchRoot.appendingPathComponent("uploads"),
            commonHeaders: [("X-Content-Type-Options", "nosniff"), ("Referrer-Policy", "no-referrer"), ("X-Frame-Options", "DENY")],
            gate: { head in
                if let refusal = policy.check(head) { return refusal }
                switch router.match(method: head.method, path: head.path) {
                case .found: return nil
                case .notFound: return .error(404, "no such endpoint: \(head.method) \(head.path)")
                case let .wrongMethod(allowed):
                    return .error(405, "\(head.path) does not take \(head.method) (it takes \(allowed.joined(separator: ", ")))",
                                  headers: [("Allow", allowed.joined(separator: ", "))])
                }
            },
            logger: logger,
            handler: { request in
                guard case let .found(route, parameters) = router.match(method: request.method, path: request.path) else {
                    return .error(404, "no such endpoint")
                }
                do { return try await route.handler(request, parameters) } catch {
                    return ErrorResponses.response(for: error, uploads: request.allFiles)
                }
            })
        notesWorker = configuration.processNotes ? NotesWorker(services: services) : nil
        notesWorker?.start()
    }

    /// Stops listening (open connections finish), the realtime sessions (each finishes the event it is handling; `stop`
    /// waits up to `RealtimeRoutes.stopWait`) and the notes' background work: the stage in flight finishes (`stop`
    /// waits for it, up to `NotesWorker.stopWait`), later stages wait for the next start. Nothing of the server's is
    /// left running in the process after it. It blocks its thread while it waits, and the sessions' and the notes' work
    /// need a thread of Swift's cooperative pool to end: from an async function, await `stop() async` instead, which
    /// waits on a dispatch queue.
    public func stop() {
        services.noteEvents.finish()
        http.stop()
        // the sockets are closed; each realtime session ends after the event it is handling (a turn Whisper is reading)
        if !Self.waitUntilZero(services.realtimeSessions, seconds: RealtimeRoutes.stopWait) {
            configuration.log.problem("a realtime session was still reading its audio \(Int(RealtimeRoutes.stopWait)) s after stopping")
        }
        if notesWorker?.stop() == false {
            configuration.log.problem("the notes worker's stage in flight did not finish within \(Int(NotesWorker.stopWait)) s of stopping; "
                + "the next `earshot serve` or `earshot notes process` runs it again")
        }
    }

    /// Realtime (WebSocket) sessions open now: none once `stop` has returned.
    public var realtimeSessionsOpen: Int { services.realtimeSessions.withLock { $0 } }

    /// Waits (polling: the count changes a few times in a session's life) until `count` is 0, up to `seconds`.
    private static func waitUntilZero(_ count: Locked<Int>, seconds: Double) -> Bool {
        let deadline = Date().addingTimeInterval(seconds)
        while count.withLock({ $0 }) > 0 {
            if Date() > deadline { return false }
            usleep(10_000)
        }
        return true
    }

    /// `stop()` for an async caller. Blocking one of the pool's threads there could keep the notes' work from the thread
    /// it needs to end: on a one-core machine the pool has one thread, and Ctrl-C on `earshot serve` would wait out the
    /// whole `NotesWorker.stopWait` (found by reading; the pool is two threads wide on the 2-core test machines, where
    /// it did not show).
    public func stop() async {
        _ = try? await offload { self.stop() }  // it throws nothing
    }
}
