import EarshotCore
import Foundation
import Glibc

/// Where the host of one model listens (`RunnerHost`), and how a client reaches it: connecting to a running host,
/// or starting one. One host per model, runner program and llama.cpp build per EARSHOT_HOME: the socket's name
/// holds a hash of the program, the home (whose models it serves) and the built runtime, so a rebuilt runner (or llama.cpp rebuilt in its portable
/// form by `make setup`) never answers through a host of the old one, which leaves at its keep-alive.
struct RunnerAddress {
    let socket: String
    let lock: URL
    let log: URL

    init(kind: LanguageRunner.Kind, home: URL, executable: String) {
        let identity = Data((kind.arguments + [executable, home.path]).joined(separator: " ").utf8)
            + LlamaRuntime.buildIdentity(of: executable, home: home)
        let name = "language-\(kind.arguments.joined(separator: "-"))-\(SHA256.hex(identity).prefix(12))"
        let folder = home.appendingPathComponent("run")
        lock = folder.appendingPathComponent("\(name).lock")
        log = folder.appendingPathComponent("\(name).log")
        // a Unix socket's path has room for 107 bytes: a deep EARSHOT_HOME gets one under /tmp, named by its path
        let near = folder.appendingPathComponent("\(name).sock").path
        socket = near.utf8.count < 100 ? near
            : "/tmp/earshot-\(getuid())/\(SHA256.hex(Data(home.path.utf8)).prefix(12))-\(name).sock"
    }

    /// A connection to the host, starting one when none listens. `arguments` are the host's: KIND, threads, home.
    func connect(starting executable: String, arguments: [String], keepAlive: Double) throws -> LineSocket {
        try FileManager.default.createDirectory(at: lock.deletingLastPathComponent(), withIntermediateDirectories: true,
                                                attributes: [.posixPermissions: 0o700])
        try FileManager.default.createDirectory(atPath: (socket as NSString).deletingLastPathComponent, withIntermediateDirectories: true,
                                                attributes: [.posixPermissions: 0o700])
        return try FileLock.withExclusiveLock(at: lock) {
            if let connection = Self.open(socket) { return connection }
            unlink(socket)  // a host that died without leaving: nobody listens there
            let log = Glibc.open(self.log.path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
            let null = Glibc.open("/dev/null", O_RDWR | O_CLOEXEC)
            defer { if log >= 0 { close(log) }; if null >= 0 { close(null) } }
            let host = try RunnerProcess.spawn(executable, ["host"] + arguments + ["--socket", socket, "--lock", lock.path, "--keep-alive", String(keepAlive)],
                                               standardIO: null, standardError: log >= 0 ? log : nil, newSession: true).get()
            // it outlives this process when this one ends first; while this one lives, it reaps it
            Thread.detachNewThread { _ = RunnerProcess.reap(host) }
            let deadline = Date().addingTimeInterval(30)
            while Date() < deadline {
                if let connection = Self.open(socket) { return connection }
                if kill(host, 0) != 0 || !ProcessStatus.isRunning(host) {
                    throw LanguageError.failed("the language-model host ended as it started (its log: \(self.log.path))")
                }
                Thread.sleep(forTimeInterval: 0.02)
            }
            throw LanguageError.failed("the language-model host did not listen within 30 s (its log: \(self.log.path))")
        }
    }

    /// A connection to the host listening at `path` once it has greeted it, or nil.
    static func open(_ path: String) -> LineSocket? {
        guard var address = try? unixAddress(path) else { return nil }
        let fd = Glibc.socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { return nil }
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        guard connected == 0 else { close(fd); return nil }
        let connection = LineSocket(fd: fd)
        guard let hello = try? connection.receive(RunnerResponse.self, deadline: Date().addingTimeInterval(10)), hello.ready == true else { return nil }
        return connection
    }

    static func unixAddress(_ path: String) throws -> sockaddr_un {
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let bytes = Array(path.utf8)
        guard bytes.count < MemoryLayout.size(ofValue: address.sun_path) else { throw LanguageError.failed("socket path too long: \(path)") }
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            raw.copyBytes(from: bytes)
            raw[bytes.count] = 0
        }
        return address
    }
}
