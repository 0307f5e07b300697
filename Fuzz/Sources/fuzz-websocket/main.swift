import EarshotCore
import EarshotServer
import Foundation

/// Any bytes a client sends after opening `earshot serve`'s Realtime WebSocket (`/v1/realtime?intent=transcription`),
/// over a real loopback connection: frames of every kind, masked or not, fragmented, oversized, with JSON events
/// (session updates, audio appends, commits) or nonsense inside. The server must answer with frames (or close) and
/// keep answering a plain request; never crash. Unlike fuzz-http this one needs the models (the session reads
/// audio with the speech detector and Whisper tiny.en): it runs over a private home linked to EARSHOT_HOME's.
let home: URL = {
    let installed = ModelStore().home
    let home = FileManager.default.temporaryDirectory.appendingPathComponent("earshot-fuzz-websocket-\(getpid())")
    try? FileManager.default.createDirectory(at: home, withIntermediateDirectories: true)
    for name in ["runtime", "models"] {
        try? FileManager.default.createSymbolicLink(at: home.appendingPathComponent(name), withDestinationURL: installed.appendingPathComponent(name))
    }
    return home
}()

let server: AppServer = {
    var configuration = AppServer.Configuration(models: ModelStore(home: home))
    configuration.port = 0
    configuration.processNotes = false
    configuration.log = ServerLog(format: .off)
    let server = try! AppServer(configuration)
    atexit { stopServer() }
    return server
}()

func stopServer() {
    server.stop()
    try? FileManager.default.removeItem(at: home)
}

func connected() -> Int32 {
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_port = in_port_t(UInt16(server.port).bigEndian)
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    var reset = linger(l_onoff: 1, l_linger: 0)  // no TIME_WAIT: many thousand connections
    // 30 s: in this debug, address-sanitized build a server whose earlier sessions still read their audio can take
    // over 10 s to answer (seen: a handshake unanswered after 10 s); a crash or a hang is what this looks for
    var timeout = timeval(tv_sec: 30, tv_usec: 0)
    // A connect waits while the server's accept queue is full (a busy server: SYNs are retried after 1 s, 3 s…), and
    // a signal can interrupt it (libFuzzer's -timeout sets a SIGALRM timer): in a CI run beside other jobs one did
    // ("errno 4", EINTR). That is not the server's answer, so it is tried again on a new socket; a refusal or the
    // 30 s timeout still fails.
    var interrupted = 0
    while true {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        precondition(fd >= 0, "socket")
        setsockopt(fd, SOL_SOCKET, SO_LINGER, &reset, socklen_t(MemoryLayout<linger>.size))
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        let ok = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        if ok == 0 { return fd }
        let error = errno
        close(fd)
        interrupted += 1
        precondition(error == EINTR && interrupted < 10, "the server must still accept connections (errno \(error))")
    }
}

func sendAll(_ fd: Int32, _ bytes: UnsafeRawBufferPointer) {
    var sent = 0
    while sent < bytes.count {
        let n = send(fd, bytes.baseAddress! + sent, bytes.count - sent, Int32(MSG_NOSIGNAL))
        if n <= 0 { return }  // the server closed after a violation
        sent += n
    }
}

/// Reads up to the end of the answer's head (the 101; libmicrohttpd drops a request whose client half-closes before
/// its answer, so the client's bytes wait for it) and returns its first bytes, the status line's start. Byte by byte
/// into one buffer: this harness runs in the debug, address-sanitized build, where an array made per byte read (as
/// `suffix(4) == [...]` did) cost the sanitizer's allocator more than the server's whole session (perf, session 34).
func readHead(_ fd: Int32) -> String {
    var head = [UInt8](repeating: 0, count: 4096)
    var count = 0
    while count < head.count, recv(fd, &head[count], 1, 0) == 1 {
        count += 1
        if count >= 4, head[count - 4] == 13, head[count - 3] == 10, head[count - 2] == 13, head[count - 1] == 10 { break }
    }
    return String(decoding: head[0..<min(count, 12)], as: UTF8.self)
}

/// Reads until the server closes or `limit` bytes came; returns the first 12 (the status line's start, where there
/// is one). What follows is read into one buffer and dropped: only an answer's beginning is checked.
func readAll(_ fd: Int32, limit: Int = 1 << 20) -> String {
    var buffer = [UInt8](repeating: 0, count: 16 * 1024)
    var first = [UInt8]()
    var total = 0
    while total < limit {
        let n = recv(fd, &buffer, buffer.count, 0)
        if n <= 0 { break }
        if first.count < 12 { first += buffer[0..<min(n, 12 - first.count)] }
        total += n
    }
    return String(decoding: first, as: UTF8.self)
}

let handshake = Array(("GET /v1/realtime?intent=transcription HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\n"
    + "Connection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n").utf8)
let health = Array("GET /api/health HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n".utf8)

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzWebSocket(_ bytes: UnsafePointer<UInt8>, _ count: Int) -> CInt {
    // the handshake is answered with 101, or with 503 while the server holds as many sessions as it takes (sessions
    // of earlier inputs still reading the audio they were sent): then it is asked again, for up to a minute. An
    // answer missing its 30 s is asked again too, twice, as the health check below is: beside other work (make test
    // runs its jobs two at a time) a server busy with earlier sessions once left one handshake unanswered that long
    var fd: Int32 = -1
    var status = ""
    var unanswered = 0
    for _ in 0..<120 {
        fd = connected()
        handshake.withUnsafeBytes { sendAll(fd, $0) }
        status = readHead(fd)
        if status == "" { unanswered += 1 }
        guard status == "HTTP/1.1 503" || (status == "" && unanswered < 3) else { break }
        close(fd)
        usleep(500_000)
    }
    precondition(status == "HTTP/1.1 101", "the handshake is answered with 101: '\(status)'")
    // then the client's bytes and the end of the stream: the server reads them, answers what it can and closes (a
    // half-close is the client leaving)
    sendAll(fd, UnsafeRawBufferPointer(start: bytes, count: count))
    shutdown(fd, Int32(SHUT_WR))
    _ = readAll(fd)
    close(fd)
    // a server that answers is alive; one answer missing its 30 s is asked again (twice): on a machine busy with
    // other work (make test runs suites side by side) a session still reading its audio can delay one answer, and a
    // dead or wedged server fails all three
    status = ""
    for _ in 0..<3 where status != "HTTP/1.1 200" {
        let plain = connected()
        health.withUnsafeBytes { sendAll(plain, $0) }
        status = readAll(plain)
        close(plain)
    }
    precondition(status == "HTTP/1.1 200", "the server must keep answering: '\(status)'")
    return 0
}
