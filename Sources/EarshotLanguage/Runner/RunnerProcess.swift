internal import CSpawn
import EarshotCore
import Foundation

/// One running worker, `earshot-language-runner KIND …`: a child process whose standard input and output are one
/// end of a socket pair. Not thread-safe: its owner (`RunnerHost`) serialises requests.
final class RunnerProcess {
    let pid: pid_t
    private let socket: LineSocket
    /// Set once the child has been reaped: its pid may then belong to another process.
    private var reaped = false

    /// Starts `executable` with `arguments` and waits (at most `timeout` s) for its first line.
    init(executable: String, arguments: [String], timeout: Double) throws {
        var ends: [Int32] = [0, 0]
        guard socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0, &ends) == 0 else {
            throw LanguageError.failed("cannot start the language-model runner (socketpair: \(String(cString: strerror(errno))))")
        }
        socket = LineSocket(fd: ends[0])
        let spawned = RunnerProcess.spawn(executable, arguments, standardIO: ends[1])
        close(ends[1])
        pid = try spawned.get()
        let first = try receive(timeout: timeout, doing: "loading its model")
        if let error = first.error { throw LanguageError.failed(error) }
    }

    deinit {
        // closing the socket (as the LineSocket goes) makes the worker read end-of-file and exit; one that is
        // busy or stopped is killed
        if !reaped { kill(pid, SIGKILL); _ = Self.reap(pid) }
    }

    /// Sends one request and waits for its answer (a streamed reply's pieces go to `onPartial` on the way). A worker
    /// that dies or does not answer in time is stopped and reported as `LanguageError.runnerCrashed` /
    /// `.runnerTimedOut`; the owner then starts a new one.
    func ask(_ request: RunnerRequest, timeout: Double, onPartial: (RunnerResponse) -> Void = { _ in }) throws -> RunnerResponse {
        do { try socket.send(request) } catch { throw ended(doing: "reading a request") }
        let deadline = Date().addingTimeInterval(timeout)
        while true {
            let response = try receive(timeout: timeout, until: deadline, doing: "answering")
            guard response.partial != nil else { return response }
            onPartial(response)
        }
    }

    private func receive(timeout: Double, until deadline: Date? = nil, doing what: String) throws -> RunnerResponse {
        do {
            return try socket.receive(RunnerResponse.self, deadline: deadline ?? Date().addingTimeInterval(timeout))
        } catch .timedOut {
            kill(pid, SIGKILL)
            _ = Self.reap(pid)
            reaped = true
            throw LanguageError.runnerTimedOut(seconds: timeout, doing: what)
        } catch .unreadable {
            throw LanguageError.failed("the language-model runner answered something unreadable while \(what)")
        } catch {
            throw ended(doing: what)
        }
    }

    /// The worker's end: how it died (a signal, or an exit code), after reaping it.
    private func ended(doing what: String) -> LanguageError {
        let status = Self.reap(pid)
        reaped = true
        return .runnerCrashed(signal: status.signal, exitCode: status.exitCode, doing: what)
    }

    /// Starts `executable` with `standardIO` as its stdin and stdout (and `standardError` as its stderr when given),
    /// holding no other descriptor of this process: Foundation's pipes are not close-on-exec, so a child started
    /// while another thread had a pipe open would hold its write end for its whole life, and whoever reads the
    /// pipe to its end would wait for the runner (a test suite hung on exactly that). No Swift crash reporter in
    /// the child: with it, a fatal signal first suspends threads and prints a backtrace, and a signal sent from
    /// outside could even be survived; without it, it ends at once. `newSession`: out of the caller's process
    /// group, so a Ctrl-C meant for the caller does not reach it.
    static func spawn(_ executable: String, _ arguments: [String], standardIO: Int32, standardError: Int32? = nil,
                      newSession: Bool = false) -> Result<pid_t, LanguageError> {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, standardIO, STDIN_FILENO)
        posix_spawn_file_actions_adddup2(&actions, standardIO, STDOUT_FILENO)
        if let standardError { posix_spawn_file_actions_adddup2(&actions, standardError, STDERR_FILENO) }
        posix_spawn_file_actions_addclosefrom_np(&actions, 3)
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        if newSession { posix_spawnattr_setflags(&attributes, Int16(EARSHOT_POSIX_SPAWN_SETSID)) }
        let argv = ([executable] + arguments).map { strdup($0) } + [nil]
        var environment = ProcessInfo.processInfo.environment
        environment["SWIFT_BACKTRACE"] = "enable=no"
        let envp = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer { (argv + envp).forEach { free($0) } }
        var child: pid_t = 0
        let rc = posix_spawn(&child, executable, &actions, &attributes, argv, envp)
        guard rc == 0 else { return .failure(.failed("cannot start \(executable): \(String(cString: strerror(rc)))")) }
        return .success(child)
    }

    /// Waits for the child and decodes its wait status (the WIFSIGNALED macros are not visible to Swift).
    static func reap(_ pid: pid_t) -> (signal: Int32?, exitCode: Int32?) {
        wait(pid, options: 0) ?? (nil, nil)
    }

    /// The same without waiting: nil while the child still runs.
    static func reapIfEnded(_ pid: pid_t) -> (signal: Int32?, exitCode: Int32?)? {
        wait(pid, options: WNOHANG)
    }

    private static func wait(_ pid: pid_t, options: Int32) -> (signal: Int32?, exitCode: Int32?)? {
        var status: Int32 = 0
        while true {
            let rc = waitpid(pid, &status, options)
            if rc == 0 { return nil }
            if rc > 0 { break }
            if errno != EINTR { return (nil, nil) }
        }
        let signal = status & 0x7f
        return signal == 0 ? (nil, (status >> 8) & 0xff) : (signal, nil)
    }
}
