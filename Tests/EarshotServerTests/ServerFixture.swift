import EarshotCore
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

    init(token: String? = nil, maxUpload: Int = 64 * 1024 * 1024, queue: Int = 32, processNotes: Bool = false,
         log: ServerLog = ServerLog(format: .off)) throws {
        home = try TestHome.make(linking: ["voice/background"])
        var configuration = AppServer.Configuration(models: ModelStore(home: home))
        configuration.port = 0
        configuration.token = token
        configuration.maxUpload = maxUpload
        configuration.queueCapacity = queue
        configuration.processNotes = processNotes
        configuration.log = log
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

    func stop() {
        server.stop()
        try? FileManager.default.removeItem(at: home)
    }
}

/// The words of a text, lower case, without punctuation.
func words(_ text: String) -> [String] {
    text.lowercased().components(separatedBy: CharacterSet.letters.inverted).filter { !$0.isEmpty }
}
