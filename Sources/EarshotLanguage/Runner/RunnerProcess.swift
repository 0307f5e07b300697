internal import CSpawn
import EarshotCore
import Foundation

/// One running `earshot-language-runner`: a child process whose standard input and output are one end of a
/// socket pair (sends never raise SIGPIPE, and reads can wait with a time limit). Not thread-safe: its owner
/// (`LanguageRunner`) serialises requests.
final class RunnerProcess {
    let pid: pid_t
    private let socket: Int32
    private var buffered = Data()
    /// Set once the child has been reaped: its pid may then belong to another process.
    private var reaped = false

    /// Starts `executable` with `arguments` and waits (at most `timeout` s) for its first line.
    init(executable: String, arguments: [String], timeout: Double) throws {
        var ends: [Int32] = [0, 0]
        guard socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0, &ends) == 0 else {
            throw LanguageError.failed("cannot start the language-model runner (socketpair: \(String(cString: strerror(errno))))")
        }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, ends[1], STDIN_FILENO)
        posix_spawn_file_actions_adddup2(&actions, ends[1], STDOUT_FILENO)
        // Nothing else of this process's goes with it: Foundation's pipes are not close-on-exec, so a runner
        // started while another thread had a child's pipe open would hold that pipe's write end for its whole
        // life, and whoever reads the pipe to its end would wait for the runner (a test suite hung on exactly that).
        posix_spawn_file_actions_addclosefrom_np(&actions, 3)
        let argv = ([executable] + arguments).map { strdup($0) } + [nil]
        // no Swift crash reporter in the runner: with it, a fatal signal first suspends threads and prints a
        // backtrace, and a signal sent from outside could even be survived; without it, it ends at once
        var environment = ProcessInfo.processInfo.environment
        environment["SWIFT_BACKTRACE"] = "enable=no"
        let envp = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer { (argv + envp).forEach { free($0) } }
        var child: pid_t = 0
        let rc = posix_spawn(&child, executable, &actions, nil, argv, envp)
        close(ends[1])
        guard rc == 0 else {
            close(ends[0])
            throw LanguageError.failed("cannot start \(executable): \(String(cString: strerror(rc)))")
        }
        pid = child
        socket = ends[0]
        let first = try receive(timeout: timeout, doing: "loading its model")
        if let error = first.error { throw LanguageError.failed(error) }
    }

    deinit {
        close(socket)  // the runner reads end-of-file and exits
        if !reaped { kill(pid, SIGKILL); _ = Self.reap(pid) }
    }

    /// Sends one request and waits for its answer. A runner that dies or does not answer in time is stopped and
    /// reported as `LanguageError.runnerCrashed` / `.runnerTimedOut`; the owner then starts a new one.
    func ask(_ request: RunnerRequest, timeout: Double) throws -> RunnerResponse {
        var line = try JSONEncoder().encode(request)
        line.append(0x0A)
        try line.withUnsafeBytes { raw in
            var offset = 0
            while offset < raw.count {
                let n = send(socket, raw.baseAddress! + offset, raw.count - offset, Int32(MSG_NOSIGNAL))
                if n < 0 && errno == EINTR { continue }
                guard n > 0 else { throw ended(doing: "reading a request") }
                offset += n
            }
        }
        return try receive(timeout: timeout, doing: "answering")
    }

    private func receive(timeout: Double, doing what: String) throws -> RunnerResponse {
        let deadline = Date().addingTimeInterval(timeout)
        while true {
            if let newline = buffered.firstIndex(of: 0x0A) {
                let line = buffered[buffered.startIndex..<newline]
                buffered = Data(buffered[(newline + 1)...])
                do { return try JSONDecoder().decode(RunnerResponse.self, from: line) } catch {
                    throw LanguageError.failed("the language-model runner answered something unreadable while \(what)")
                }
            }
            let left = deadline.timeIntervalSinceNow
            guard left > 0 else {
                kill(pid, SIGKILL)
                _ = Self.reap(pid)
                reaped = true
                throw LanguageError.runnerTimedOut(seconds: timeout, doing: what)
            }
            var poller = pollfd(fd: socket, events: Int16(POLLIN), revents: 0)
            let ready = poll(&poller, 1, Int32(min(left, 3600) * 1000))
            if ready < 0 && errno == EINTR { continue }
            guard ready > 0 else { continue }
            var chunk = [UInt8](repeating: 0, count: 65_536)
            let n = recv(socket, &chunk, chunk.count, 0)
            if n < 0 && errno == EINTR { continue }
            guard n > 0 else { throw ended(doing: what) }
            buffered.append(contentsOf: chunk[..<n])
        }
    }

    /// The runner's end: how it died (a signal, or an exit code), after reaping it.
    private func ended(doing what: String) -> LanguageError {
        let status = Self.reap(pid)
        reaped = true
        return .runnerCrashed(signal: status.signal, exitCode: status.exitCode, doing: what)
    }

    /// Waits for the child and decodes its wait status (the WIFSIGNALED macros are not visible to Swift).
    static func reap(_ pid: pid_t) -> (signal: Int32?, exitCode: Int32?) {
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 {
            if errno != EINTR { return (nil, nil) }
        }
        let signal = status & 0x7f
        return signal == 0 ? (nil, (status >> 8) & 0xff) : (signal, nil)
    }
}
