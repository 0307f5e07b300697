import EarshotCore
import EarshotServer
import Foundation

/// Any bytes sent to `earshot serve` as an HTTP request, over a real loopback connection: request lines,
/// headers, Host/Origin/Range values, chunked encoding, multipart forms and JSON bodies. The server must
/// answer (or close) and keep answering; never crash. It runs over an empty EARSHOT_HOME (no models, so
/// requests that would run one get a fast 503) with a 1 MB upload limit.
let server: AppServer = {
    let home = FileManager.default.temporaryDirectory.appendingPathComponent("earshot-fuzz-http-\(getpid())")
    var configuration = AppServer.Configuration(models: ModelStore(home: home))
    configuration.port = 0
    configuration.processNotes = false
    configuration.maxUpload = 1 << 20
    configuration.log = ServerLog(format: .off)
    let server = try! AppServer(configuration)
    // at exit, stop listening and join every connection thread before LeakSanitizer looks: a thread still
    // answering the last request held buffers that only its stack pointed at, reported as a leak on some machines
    // (and attributed by libFuzzer to whatever input was current: the empty one). A handler may still be running
    // (a note upload's ffmpeg): its Process's weak side table is the one report left, a false one
    // (Fuzz/lsan-suppressions.txt)
    atexit { stopServer() }
    return server
}()

func stopServer() {
    server.stop()
    try? FileManager.default.removeItem(at: server.configuration.models.home)
}

/// Sends `bytes`, closes the writing side unless `keepOpen` (libmicrohttpd takes a half-close as the client
/// leaving, so a whole request may go unanswered then), reads the answer until the server closes; returns its
/// first line.
func exchange(_ bytes: UnsafeRawBufferPointer, keepOpen: Bool = false) -> String {
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_port = in_port_t(UInt16(server.port).bigEndian)
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    // a reset, not TIME_WAIT, when done: a million connections must not use up the loopback's ports
    var reset = linger(l_onoff: 1, l_linger: 0)
    var fd: Int32 = -1
    for _ in 0..<100 {
        fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        precondition(fd >= 0, "socket")
        setsockopt(fd, SOL_SOCKET, SO_LINGER, &reset, socklen_t(MemoryLayout<linger>.size))
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        if connected == 0 { break }
        close(fd)
        fd = -1
        usleep(10_000)  // the listen queue may be full for a moment
    }
    precondition(fd >= 0, "the server must still accept connections (errno \(errno))")
    defer { close(fd) }
    var timeout = timeval(tv_sec: 10, tv_usec: 0)
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
    setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
    var sent = 0
    while sent < bytes.count {
        let n = send(fd, bytes.baseAddress! + sent, bytes.count - sent, Int32(MSG_NOSIGNAL))
        if n <= 0 { break }  // the server may answer and close early (a refused request)
        sent += n
    }
    if !keepOpen { shutdown(fd, Int32(SHUT_WR)) }
    var answer = [UInt8]()
    var buffer = [UInt8](repeating: 0, count: 16 * 1024)
    while answer.count < 1 << 20 {
        let n = recv(fd, &buffer, buffer.count, 0)
        if n <= 0 { break }
        answer += buffer[0..<n]
    }
    return String(decoding: answer.prefix { $0 != 13 && $0 != 10 }, as: UTF8.self)
}

let health = Array("GET /api/health HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n".utf8)

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzHTTP(_ bytes: UnsafePointer<UInt8>, _ count: Int) -> CInt {
    let status = exchange(UnsafeRawBufferPointer(start: bytes, count: count))
    precondition(status.isEmpty || status.hasPrefix("HTTP/1."), "an answer is HTTP: \(status)")
    // whatever came before, the server still answers a plain request (within a second: at full speed the fuzzer
    // can fill the connection limit faster than finished connection threads are reaped, and libmicrohttpd then
    // closes new connections unanswered for a moment)
    var alive = ""
    for _ in 0..<100 {
        alive = health.withUnsafeBytes { exchange($0, keepOpen: true) }
        if alive.hasPrefix("HTTP/1.1 200") { break }
        usleep(10_000)
    }
    precondition(alive.hasPrefix("HTTP/1.1 200"), "the server must keep answering: '\(alive)'")
    return 0
}
