import EarshotCore
import Foundation
import Glibc

/// The machine's one copy of a language model, as Ollama's server owns its llama.cpp runners:
/// `earshot-language-runner host KIND … --socket PATH` listens on a Unix socket under EARSHOT_HOME, owns the worker
/// process that loads the model (`earshot-language-runner KIND …`), and answers the requests of every Earshot
/// process on the machine one at a time. A worker that crashes or hangs fails only the request it was on: the
/// host is its parent, so it can say how it ended (a signal, an exit code) to the client that asked, and it starts
/// a new worker for the next request. Nothing of llama.cpp runs in the host itself, so an instruction the CPU
/// faults on cannot take it down. It leaves once no client has been connected for its keep-alive.
///
/// Clients find or start it through `RunnerAddress` (`LanguageRunner`); the start and the leaving both happen
/// under the address's file lock, and clients connect only while holding it, so a client never reaches a host
/// that is on its way out.
enum RunnerHost {
    /// `arguments`: host KIND [MODEL] --threads N --home DIR --socket PATH --lock PATH --keep-alive SECONDS.
    /// Returns the exit code.
    static func main(_ arguments: [String]) -> Int32 {
        func option(_ name: String) -> String? { LanguageRunnerService.option(name, in: arguments) }
        guard let path = option("--socket"), let lock = option("--lock"), let kind = try? LanguageRunner.Kind(arguments: Array(arguments.dropFirst())) else {
            FileHandle.standardError.write(Data("usage: earshot-language-runner host KIND … --socket PATH --lock PATH [--keep-alive SECONDS]\n".utf8))
            return 2
        }
        let keepAlive = option("--keep-alive").flatMap(Double.init) ?? LanguageRunner.defaultKeepAlive
        let worker = Worker(executable: ProcessStatus.programPath,
                            arguments: kind.arguments + ["--threads", option("--threads") ?? "2"] + (option("--home").map { ["--home", $0] } ?? []))
        let listener: Int32
        do { listener = try listen(at: path) } catch {
            FileHandle.standardError.write(Data("earshot-language-runner host: \(error)\n".utf8))
            return 1
        }

        var bound = stat()
        stat(path, &bound)
        // clients connected now, and when the last one left
        let clients = Locked((count: 0, lastLeft: Date()))
        while true {
            var poller = pollfd(fd: listener, events: Int16(POLLIN), revents: 0)
            if poll(&poller, 1, 1000) > 0 {
                let client = accept(listener, nil, nil)
                if client >= 0 {
                    _ = fcntl(client, F_SETFD, FD_CLOEXEC)  // no worker started later may hold it
                    clients.withLock { $0.count += 1 }
                    Thread.detachNewThread {
                        serve(LineSocket(fd: client), worker: worker)
                        clients.withLock { $0 = (count: $0.count - 1, lastLeft: Date()) }
                    }
                }
                continue
            }
            let (count, lastLeft) = clients.withLock { $0 }
            guard count == 0 else { continue }
            // its socket removed (EARSHOT_HOME deleted, as tests do with theirs) or taken over: nobody can reach it
            var now = stat()
            if stat(path, &now) != 0 || now.st_ino != bound.st_ino {
                close(listener)
                worker.stop()
                return 0
            }
            guard Date().timeIntervalSince(lastLeft) >= keepAlive else { continue }
            // leaving: under the clients' lock, and only if nobody connected in the meantime
            let leaving = (try? FileLock.withExclusiveLock(at: URL(fileURLWithPath: lock)) { () -> Bool in
                var pending = pollfd(fd: listener, events: Int16(POLLIN), revents: 0)
                guard poll(&pending, 1, 0) == 0, clients.withLock({ $0.count }) == 0 else { return false }
                unlink(path)
                close(listener)
                return true
            }) ?? false
            if leaving {
                worker.stop()
                return 0
            }
        }
    }

    /// One client's requests, until it closes its connection. Each is logged on the host's standard error (its
    /// log file under EARSHOT_HOME/run): when, what, for which process, how long, how it ended.
    static func serve(_ client: LineSocket, worker: Worker) {
        let peer = peerProcess(client.fd)
        // first a greeting: a client that reached a host on its way out (killed, its socket not yet closed) hears
        // nothing and starts another
        var hello = RunnerResponse(ready: true)
        hello.pid = getpid()
        do { try client.send(hello) } catch { return }
        while let request = try? client.receive(RunnerRequest.self) {
            let start = Date()
            // a streamed reply's pieces go on to the client as they come; one that has gone hears nothing more
            let response = worker.answer(request) { try? client.send($0) }
            let outcome = response.crash.map { "failed: \($0.error.errorDescription ?? "")" } ?? response.error.map { "error: \($0)" } ?? "ok"
            let line = "\(ISO8601DateFormatter().string(from: start)) \(request.op.rawValue) for process \(peer.map(String.init) ?? "?") by worker "
                + "\(response.pid.map(String.init) ?? "-"): \(String(format: "%.2f", Date().timeIntervalSince(start))) s, \(outcome)\n"
            FileHandle.standardError.write(Data(line.utf8))
            do { try client.send(response) } catch { return }
        }
    }

    /// The process on the other end of a Unix socket (SO_PEERCRED: pid, uid, gid).
    static func peerProcess(_ fd: Int32) -> Int32? {
        var credentials = [Int32](repeating: 0, count: 3)
        var size = socklen_t(MemoryLayout<Int32>.size * 3)
        return getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &credentials, &size) == 0 ? credentials[0] : nil
    }

    static func listen(at path: String) throws -> Int32 {
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw LanguageError.failed("socket: \(String(cString: strerror(errno)))") }
        var address = try RunnerAddress.unixAddress(path)
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        guard bound == 0, Glibc.listen(fd, 64) == 0 else {
            let reason = String(cString: strerror(errno))
            close(fd)
            throw LanguageError.failed("cannot listen on \(path): \(reason)")
        }
        chmod(path, 0o600)
        return fd
    }

    /// The worker process, started by the first request (so that a crash while loading fails that request) and
    /// again after it crashed or hung; one request at a time.
    final class Worker: @unchecked Sendable {
        let executable: String
        let arguments: [String]
        private let process = Locked<RunnerProcess?>(nil)

        init(executable: String, arguments: [String]) {
            self.executable = executable
            self.arguments = arguments
        }

        func answer(_ request: RunnerRequest, onPartial: (RunnerResponse) -> Void = { _ in }) -> RunnerResponse {
            process.withLock { process in
                do {
                    let worker = try process ?? start()
                    process = worker
                    var response = try worker.ask(request, timeout: request.timeout ?? LanguageRunner.requestTimeout, onPartial: onPartial)
                    response.pid = worker.pid
                    return response
                } catch let error as LanguageError where error.endedRunner {
                    let pid = process?.pid
                    process = nil  // the next request starts a new worker
                    var response = RunnerResponse(error: error.errorDescription)
                    response.crash = RunnerCrash(error)
                    response.pid = pid
                    return response
                } catch {
                    return RunnerResponse(error: (error as? LocalizedError)?.errorDescription ?? "\(error)")
                }
            }
        }

        func stop() { process.withLock { $0 = nil } }

        private func start() throws -> RunnerProcess {
            do {
                return try RunnerProcess(executable: executable, arguments: arguments, timeout: LanguageRunner.loadTimeout)
            } catch let error as LanguageError {
                if case let .runnerCrashed(signal, code, _) = error { throw LanguageError.runnerCrashed(signal: signal, exitCode: code, doing: "loading its model") }
                throw error
            }
        }
    }
}
