import EarshotCore
import EarshotTestSupport
import Foundation
import XCTest

/// Real captures from a microphone: PortAudio → ALSA → a private PulseAudio virtual microphone fed with
/// espeak-ng speech (skipped where PulseAudio cannot start).
final class MicrophoneCaptureTests: XCTestCase {
    var home: URL!
    var env: [String: String] { ["EARSHOT_HOME": home.path] }

    // the background voices and their cached embeddings are shared with the real home (read-mostly)
    override func setUpWithError() throws { home = try TestHome.make(linking: ["voice/background", "voice/cache"]) }
    override func tearDown() { try? FileManager.default.removeItem(at: home) }

    /// A real capture through PortAudio → ALSA → a private PulseAudio virtual microphone; Ctrl-C ends the
    /// recording and what was recorded is saved.
    func testRecordFromTheMicrophoneUntilCtrlCSavesTheRecording() throws {
        guard let mic = VirtualMicrophone.start(in: home.appendingPathComponent("pulse")) else {
            throw XCTSkip("no PulseAudio virtual microphone here (make setup installs pulseaudio)")
        }
        defer { mic.stop() }
        let speech = home.appendingPathComponent("spoken.wav")
        try TestAudio.speak("This note comes from the virtual microphone.", to: speech)

        let recorder = Process()
        recorder.executableURL = CLI.executable
        recorder.arguments = ["notes", "record", "--tag", "mic"]
        recorder.environment = ProcessInfo.processInfo.environment.merging(env.merging(mic.environment) { $1 }) { $1 }
        let out = Pipe()
        recorder.standardOutput = out
        recorder.standardError = FileHandle.nullDevice
        recorder.standardInput = FileHandle.nullDevice  // closed standard input must not stop the recording
        try recorder.run()
        Thread.sleep(forTimeInterval: 1.5)
        try mic.play(speech).waitUntilExit()
        Thread.sleep(forTimeInterval: 0.5)
        kill(recorder.processIdentifier, SIGINT)
        recorder.waitUntilExit()
        XCTAssertEqual(recorder.terminationStatus, 0)
        XCTAssertTrue(String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self).contains("note 1: saved"))
        let list = try CLI.run(["notes", "list", "--json"], environment: env)
        let notes = try JSONSerialization.jsonObject(with: Data(list.stdout.utf8)) as! [[String: Any]]
        XCTAssertEqual(notes.first?["tags"] as? [String], ["mic"])
        XCTAssertGreaterThan(notes.first?["duration"] as? Double ?? 0, 2.5, "the whole capture until Ctrl-C")
        let audio = try FileManager.default.contentsOfDirectory(atPath: home.appendingPathComponent("notes/audio").path)
        let samples = try AudioFileLoader().load(path: home.appendingPathComponent("notes/audio/\(audio[0])").path).samples
        XCTAssertGreaterThan(samples.map(abs).max() ?? 0, 0.2, "the speech played into the microphone was captured")
    }

    /// `voice enroll --record 3 --seconds 4`: prompts, countdowns and three 4 s captures from the (virtual) microphone
    /// (clips of 10 s, the default, spent 41 s of the suite in real time for the same checks).
    func testVoiceEnrolmentRecordsClipsFromTheMicrophone() throws {
        guard let mic = VirtualMicrophone.start(in: home.appendingPathComponent("pulse")) else {
            throw XCTSkip("no PulseAudio virtual microphone here (make setup installs pulseaudio)")
        }
        defer { mic.stop() }
        let speech = home.appendingPathComponent("reading.wav")
        let prompt = "Please remember to water the plants on the balcony every morning this week. "
        try TestAudio.speak(String(repeating: prompt, count: 6), to: speech)  // ~26 s, longer than the session
        let player = try mic.play(speech)
        defer { player.terminate() }
        let r = try CLI.run(["voice", "enroll", "carol", "--record", "3", "--seconds", "4", "--json"], environment: env.merging(mic.environment) { $1 })
        XCTAssertEqual(r.status, 0, r.stderr)
        let doc = try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as! [String: Any]
        XCTAssertEqual(doc["clips"] as? Int, 3)
        XCTAssertGreaterThan(doc["speech_seconds"] as? Double ?? 0, 6, "most of the 12 s of capture is speech")
        XCTAssertTrue(r.stderr.contains("Clip 3 of 3. Read aloud:"), r.stderr)
    }
}
