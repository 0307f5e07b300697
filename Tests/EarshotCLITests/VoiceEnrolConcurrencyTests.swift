import EarshotCore
import EarshotTestSupport
import Foundation
import XCTest

/// Given two `voice enroll` processes at once on one profile store, expect both people enrolled and each
/// head trained against the other's voice (the store's lock serialises them; none is lost).
final class VoiceEnrolConcurrencyTests: XCTestCase {
    func testTwoEnrolmentsAtOnceEachSeeTheOthersVoice() throws {
        let home = try TestHome.make(linking: ["voice/background", "voice/cache"])
        defer { try? FileManager.default.removeItem(at: home) }
        let environment = ["EARSHOT_HOME": home.path]
        let people = [("ann", "en-us+f3"), ("ben", "en-gb+m3")]
        var recorded: [String: [String]] = [:]
        for (name, voice) in people {
            recorded[name] = try (0..<3).map { i in
                let url = home.appendingPathComponent("\(name)\(i).wav")
                try TestAudio.speak(Sentences.all[i] + " " + Sentences.all[i + 4], to: url, voice: voice)
                return url.path
            }
        }
        let clips = recorded
        let results = Locked<[String: CLI.Result]>([:])
        DispatchQueue.concurrentPerform(iterations: people.count) { i in
            let name = people[i].0
            let result = try? CLI.run(["voice", "enroll", name, "--json"] + clips[name]!, environment: environment)
            results.withLock { $0[name] = result }
        }
        for (name, _) in people {
            let result = try XCTUnwrap(results.withLock { $0[name] }, name)
            XCTAssertEqual(result.status, 0, result.stderr)
        }
        struct Profile: Decodable { let name: String; let windows: [[Float]]; let backgroundWindows: Int }
        let profiles = try people.map { name, _ in
            try JSONDecoder().decode(Profile.self, from: Data(contentsOf: home.appendingPathComponent("voice/profiles/\(name).json")))
        }
        // whichever ran second trained against the first; the first was then retrained against the second
        let prepared = try CLI.run(["voice", "prepare", "--json"], environment: environment)
        struct Background: Decodable { let windows: Int }
        let background = try JSONDecoder().decode(Background.self, from: Data(prepared.stdout.utf8)).windows
        XCTAssertGreaterThan(background, 0)
        XCTAssertEqual(profiles[1].backgroundWindows, background + profiles[0].windows.count, "ben's head saw ann's voice")
        XCTAssertEqual(profiles[0].backgroundWindows, background + profiles[1].windows.count, "ann's head saw ben's voice")
    }
}
