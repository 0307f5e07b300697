import EarshotCore
import EarshotLanguage
import EarshotServer
import EarshotTestSupport
import Foundation

/// One server per test class on a free loopback port, over a private EARSHOT_HOME (the real models linked in),
/// with a client pointed at it.
final class ServerFixture {
    let home: URL
    let server: AppServer
    let client: HTTPClient
    let audio: URL
    /// The server's log lines, when the test gave no log of its own: told with a live session that failed.
    let lines = Locked<[String]>([])

    init(token: String? = nil, maxUpload: Int = 64 * 1024 * 1024, queue: Int = 32, processNotes: Bool = false,
         log: ServerLog? = nil) throws {
        home = try TestHome.make(linking: ["voice/background"])
        var configuration = AppServer.Configuration(models: ModelStore(home: home))
        configuration.port = 0
        configuration.token = token
        configuration.maxUpload = maxUpload
        configuration.queueCapacity = queue
        configuration.processNotes = processNotes
        // these tests check what the server does with a note, not how well it is written, and the small model writes it
        // in a fraction of the time (the browser tests run `earshot serve` as shipped: their notes get the default one)
        configuration.notesLanguageModel = .small
        configuration.log = log ?? ServerLog(format: .text) { [lines] line in lines.withLock { $0.append(line) } }
        server = try AppServer(configuration)
        client = HTTPClient(base: server.address, headers: token.map { ["Authorization": "Bearer \($0)"] } ?? [:])
        audio = home.appendingPathComponent("audio")
        try FileManager.default.createDirectory(at: audio, withIntermediateDirectories: true)
    }

    /// espeak-ng speaking `text` into a WAV file under the fixture.
    func speech(_ text: String, name: String, voice: String = "en-us") throws -> URL {
        let url = audio.appendingPathComponent(name)
        try TestAudio.speak(text, to: url, voice: voice)
        return url
    }

    func file(_ name: String, _ data: Data) throws -> URL {
        let url = audio.appendingPathComponent(name)
        try data.write(to: url)
        return url
    }

    /// A live session as the pages drive one: opened with `open` (the JSON body of `POST /api/live`), `samples` pushed
    /// in half-second pieces while its events are read, then ended; every event it sent, `end` last.
    func live(_ open: String, samples: [Float]) throws -> [(event: String, data: String)] {
        let stall = StallReport("the live session \(open)", after: 120)
        defer { stall.cancel() }
        do {
            return try liveSession(open, samples: samples)
        } catch {
            throw FixtureError("\(error)\nthe server's log:\n" + lines.withLock { $0.suffix(40).joined() })
        }
    }

    private func liveSession(_ open: String, samples: [Float]) throws -> [(event: String, data: String)] {
        let opened = try client.request("POST", "/api/live", headers: ["Content-Type": "application/json"], body: Data(open.utf8))
        guard opened.status == 201, let events = opened.json["events"] as? String, let audio = opened.json["audio"] as? String,
              let id = opened.json["id"] as? String else {
            throw FixtureError("POST /api/live \(open): \(opened.status) \(opened.text)")
        }
        // the pages' order: the events are being read before any audio goes (a reader that came after the DELETE of a
        // short session would find it gone)
        let reader = try RawHTTPConnection(port: server.port)
        let headers = client.headers.map { "\($0.key): \($0.value)\r\n" }.joined()
        guard reader.send("GET \(events) HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept: text/event-stream\r\n\(headers)Connection: close\r\n\r\n") else {
            throw FixtureError("GET \(events): the server closed the connection")
        }
        var received = reader.readBytes(seconds: 60, stopAfterAny: true).bytes
        guard String(decoding: received, as: UTF8.self).hasPrefix("HTTP/1.1 200") else {
            throw FixtureError("GET \(events): \(String(decoding: received, as: UTF8.self))")
        }
        let rest = Locked<[UInt8]>([])
        let done = DispatchSemaphore(value: 0)
        DispatchQueue.global().async {
            let (bytes, _) = reader.readBytes(seconds: 300)
            rest.withLock { $0 = bytes }
            done.signal()
        }
        for start in stride(from: 0, to: samples.count, by: 8000) {
            let body = Array(samples[start..<min(samples.count, start + 8000)]).withUnsafeBufferPointer { Data(buffer: $0) }
            let pushed = try client.request("POST", audio, headers: ["Content-Type": "application/octet-stream"], body: body)
            guard pushed.status == 204 else { throw FixtureError("POST \(audio): \(pushed.status) \(pushed.text)") }
        }
        _ = try client.request("DELETE", "/api/live/\(id)")
        guard done.wait(timeout: .now() + 120) == .success else { throw FixtureError("the live session \(id) did not end") }
        received += rest.withLock { $0 }
        guard let body = RawHTTPConnection.chunkedBody(ofResponse: received) else {
            throw FixtureError("the live session \(id)'s events did not end whole: \(String(decoding: received, as: UTF8.self))")
        }
        return HTTPClient.events(in: String(decoding: body, as: UTF8.self))
    }

    func stop() {
        // stopping waits for a notes stage in flight (up to a minute), never much longer
        let stall = StallReport("stopping the server", after: 90)
        defer { stall.cancel() }
        server.stop()
        try? FileManager.default.removeItem(at: home)
    }
}

struct FixtureError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

/// The words of a text, lower case, without punctuation.
func words(_ text: String) -> [String] {
    text.lowercased().components(separatedBy: CharacterSet.letters.inverted).filter { !$0.isEmpty }
}
