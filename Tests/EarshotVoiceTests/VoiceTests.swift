import EarshotCore
@testable import EarshotVoice
import EarshotTestSupport
import Foundation
import XCTest

/// Enrolment trained on the device tells synthetic voices apart; the encoder matches its reference;
/// profiles round-trip, refuse damage, and export to ONNX with the same probability.
final class VoiceTests: XCTestCase {
    nonisolated(unsafe) static var shared: (encoder: SpeakerEncoder, enrollment: SpeakerEnrollment, dir: URL)?

    func setup() throws -> (encoder: SpeakerEncoder, enrollment: SpeakerEnrollment, dir: URL) {
        if let s = Self.shared { return s }
        let encoder = try SpeakerEncoder()
        let s = (encoder, try SpeakerEnrollment(encoder: encoder), TestAudio.temporaryDirectory())
        Self.shared = s
        return s
    }

    override class func tearDown() {
        if let s = shared { try? FileManager.default.removeItem(at: s.dir) }
    }

    static let lines = [
        "I would like to book a table for two people tomorrow evening at eight.",
        "The children are playing in the garden while their parents cook dinner.",
        "Every morning I take the bus to work and read the news on my phone.",
        "We should paint the kitchen a brighter colour before the summer starts.",
        "The library closes early on Sundays, so please return your books on time.",
        "My brother plays the guitar in a small band that performs on weekends.",
        "It was so cold last night that the pond in the park froze completely.",
    ]

    /// Clips of one espeak-ng voice (none of these voices is in the background set).
    func clips(_ voice: String, _ indices: [Int]) throws -> [String] {
        let dir = try setup().dir
        return try indices.map { i in
            let url = dir.appendingPathComponent("\(voice)-\(i).wav")
            if !FileManager.default.fileExists(atPath: url.path) {
                try TestAudio.speak(Self.lines[i] + " " + Self.lines[(i + 3) % Self.lines.count], to: url, voice: voice)
            }
            return url.path
        }
    }

    func testEncoderMatchesTheNumpyReference() throws {
        let (encoder, _, _) = try setup()
        let samples = try AudioFileLoader().load(path: try clips("en-us+m5", [0])[0]).samples
        let ref = try FloatReference.run("speaker_reference.py", arguments: [try FloatReference.installed("speaker/embedder.float.onnx")],
                                         clips: [samples]) as! [[String: Any]]
        let refMel = (ref[0]["log_mel"] as! [NSNumber]).map(\.floatValue)
        let mel = encoder.frontEnd.compute(samples[...])
        XCTAssertEqual(mel.count, refMel.count)
        let maxDiff = zip(mel, refMel).map { abs($0 - $1) }.max()!
        XCTAssertLessThanOrEqual(maxDiff, 1e-3)
        let cosine = SpeakerEncoder.cosine(try encoder.embedding(samples[...]), (ref[0]["embedding"] as! [NSNumber]).map(\.floatValue))
        print("speaker log-mel max diff \(maxDiff), embedding cosine \(cosine)")
        XCTAssertGreaterThanOrEqual(cosine, 0.999)
    }

    func testEnrolledVoicesAreVerifiedAndIdentified() throws {
        let (encoder, enrollment, _) = try setup()
        let background = try BackgroundSpeakers().windows(using: enrollment)
        let alice = try enrollment.enroll(name: "alice", clips: try clips("en-us+m5", [0, 1, 2, 3]), others: background)
        let bob = try enrollment.enroll(name: "bob", clips: try clips("en-gb+f4", [0, 1, 2, 3]), others: background + alice.windows)
        let verifier = VoiceVerifier(encoder: encoder)
        let aliceAgain = try enrollment.windows(of: try clips("en-us+m5", [5])[0])
        let bobAgain = try enrollment.windows(of: try clips("en-gb+f4", [5])[0])
        let stranger = try enrollment.windows(of: try clips("en-029+f3", [5])[0])
        XCTAssertTrue(verifier.score(windows: aliceAgain, against: alice).accepted, "alice is alice")
        XCTAssertFalse(verifier.score(windows: bobAgain, against: alice).accepted, "bob is not alice")
        XCTAssertTrue(verifier.score(windows: bobAgain, against: bob).accepted, "bob is bob")
        XCTAssertEqual(verifier.identify(windows: aliceAgain, among: [alice, bob]).first?.name, "alice")
        XCTAssertEqual(verifier.identify(windows: bobAgain, among: [alice, bob]).first?.name, "bob")
        let strangerScores = verifier.identify(windows: stranger, among: [alice, bob])
        print("stranger scores: \(strangerScores.map { ($0.name, $0.probability) })")
        XCTAssertFalse(strangerScores.contains { $0.accepted }, "a stranger is unknown")
    }

    func testEnrollingSomeoneNewRetrainsEveryoneEnrolledBefore() throws {
        let (encoder, enrollment, dir) = try setup()
        let store = VoiceProfileStore(store: ModelStore(home: dir.appendingPathComponent("roster")))
        let roster = VoiceRoster(enrollment: enrollment, store: store)
        let background = try BackgroundSpeakers().windows(using: enrollment)
        try roster.enroll(name: "frank", clips: try clips("en-us+m5", [0, 1, 2]), background: background)
        XCTAssertEqual(try store.load("frank").backgroundWindows, background.count)
        let (grace, others) = try roster.enroll(name: "grace", clips: try clips("en-gb+f4", [0, 1, 2]), background: background)
        let frank = try store.load("frank")
        XCTAssertEqual(others, background.count + frank.windows.count)
        XCTAssertEqual(frank.backgroundWindows, background.count + grace.windows.count, "frank's head now knows grace")
        let verifier = VoiceVerifier(encoder: encoder)
        XCTAssertFalse(verifier.score(windows: try enrollment.windows(of: try clips("en-gb+f4", [5])[0]), against: frank).accepted)
        XCTAssertTrue(verifier.score(windows: try enrollment.windows(of: try clips("en-us+m5", [5])[0]), against: frank).accepted)
    }

    func testProfilesRoundTripAndRefuseDamage() throws {
        let (_, enrollment, dir) = try setup()
        let store = VoiceProfileStore(store: ModelStore(home: dir.appendingPathComponent("home")))
        let background = try BackgroundSpeakers().windows(using: enrollment)
        let profile = try enrollment.enroll(name: "carol", clips: try clips("en-us+m5", [0, 1, 2]), others: background)
        try store.save(profile)
        XCTAssertEqual(try store.load("carol"), profile)
        XCTAssertEqual(store.names(), ["carol"])
        let file = store.directory.appendingPathComponent("carol.json")
        let bytes = try Data(contentsOf: file)
        try bytes.prefix(bytes.count / 3).write(to: file)
        XCTAssertThrowsError(try store.load("carol")) {
            XCTAssertTrue($0.localizedDescription.contains("carol.json: damaged profile"), $0.localizedDescription)
        }
        XCTAssertEqual(store.loadAll().damaged, ["carol"])
        XCTAssertThrowsError(try store.load("dave")) {
            XCTAssertEqual($0 as? VoiceError, .unknownProfile("dave", known: ["carol"]))
        }
        XCTAssertThrowsError(try store.load("../etc/passwd")) { XCTAssertEqual($0 as? VoiceError, .badName("../etc/passwd")) }
        try store.remove("carol")
        XCTAssertEqual(store.names(), [])

        // damage that still decodes: each is refused with what is wrong, never used
        func damaged(_ change: (inout VoiceProfile) -> Void) -> VoiceProfile { var p = profile; change(&p); return p }
        let cases: [(VoiceProfile, String)] = [
            (damaged { $0.head.mean.removeLast() }, "standardisation has 255 means"),
            (damaged { $0.head.layers[0].bias = [0.1] }, "layer 1 is 256×2 with 1 biases"),
            (damaged { $0.windows[3].removeLast() }, "speaker vectors are not each 256 finite numbers"),
            (damaged { $0.centroid.removeLast() }, "centroid is not 256 finite numbers"),
            (damaged { $0.threshold = 5 }, "threshold 5.0 is not a probability"),
            (damaged { $0.threshold = -1 }, "threshold -1.0 is not a probability"),
            (damaged { $0.name = "mallory" }, "named 'mallory' but its file is 'carol'"),
        ]
        for (bad, message) in cases {
            let encoder = JSONEncoder()
            try encoder.encode(bad).write(to: file)
            XCTAssertThrowsError(try store.load("carol"), message) {
                XCTAssertTrue($0.localizedDescription.contains("carol.json: ") && $0.localizedDescription.contains(message),
                              "\($0.localizedDescription) lacks \(message)")
            }
        }
        // enrolled on another build of the speaker network: refused where the installed network is known
        try JSONEncoder().encode(damaged { $0.encoderHash = String(repeating: "0", count: 64) }).write(to: file)
        XCTAssertNoThrow(try store.load("carol"), "a store that checks no build reads it")
        XCTAssertThrowsError(try store.checking(against: enrollment.encoder).load("carol")) {
            XCTAssertTrue($0.localizedDescription.contains("carol.json: enrolled with another build of the speaker network (build 000000000000"),
                          $0.localizedDescription)
        }
        XCTAssertEqual(store.checking(against: enrollment.encoder).loadAll().damaged, ["carol"])
        XCTAssertNoThrow(try store.checking(against: enrollment.encoder).save(profile))
        XCTAssertEqual(try store.checking(against: enrollment.encoder).load("carol"), profile, "this build's own profile reads")
        // a matrix whose values do not fill it is refused while decoding
        var json = String(decoding: try JSONEncoder().encode(profile), as: UTF8.self)
        json = json.replacingOccurrences(of: "\"rows\":256", with: "\"rows\":9999")
        try Data(json.utf8).write(to: file)
        XCTAssertThrowsError(try store.load("carol")) {
            XCTAssertTrue($0.localizedDescription.contains("carol.json: damaged profile"), $0.localizedDescription)
        }
        try store.remove("carol")
    }

    func testNamesAreFileNamesInOneUnicodeFormAndBlankOrOverlongOnesAreRefused() throws {
        for bad in [" ", "  alice", "bob ", "", ".hidden", String(repeating: "𝄞", count: 64), "a/b", "Ru\u{202E}th", "Ru\u{1B}[31mth", "a\nb"] {
            XCTAssertThrowsError(try VoiceProfileStore.validate(bad), bad) { XCTAssertEqual($0 as? VoiceError, .badName(bad)) }
        }
        let store = VoiceProfileStore(directory: URL(fileURLWithPath: "/tmp"))
        XCTAssertEqual(store.path("Zo\u{00EB}"), store.path("Zoe\u{0308}"), "composed and decomposed ë name one file")
    }

    func testTooFewShortOrSilentClipsAreRefused() throws {
        let (_, enrollment, dir) = try setup()
        XCTAssertThrowsError(try enrollment.enroll(name: "x", clips: try clips("en-us+m5", [0, 1]), others: [])) {
            XCTAssertEqual($0 as? VoiceError, .tooFewClips(given: 2, needed: 3))
        }
        let silent = dir.appendingPathComponent("silent.wav")
        try TestAudio.wav16(TestAudio.silence(seconds: 5), rate: 16000).write(to: silent)
        let tone = dir.appendingPathComponent("tone-8k.wav")
        try TestAudio.wav16(TestAudio.tone(frequency: 440, seconds: 5, rate: 8000), rate: 8000).write(to: tone)
        // white noise: loud, but not speech
        var seed: UInt64 = 1
        let noise = (0..<80_000).map { _ -> Float in
            seed = seed &* 6364136223846793005 &+ 1442695040888963407
            return Float(Int64(bitPattern: seed >> 11) % 2000) / 4000 - 0.25
        }
        let hiss = dir.appendingPathComponent("noise.wav")
        try TestAudio.wav16(noise, rate: 16000).write(to: hiss)
        for path in [silent.path, tone.path, hiss.path] {
            XCTAssertThrowsError(try enrollment.enroll(name: "x", clips: try clips("en-us+m5", [0, 1]) + [path], others: [])) {
                XCTAssertTrue($0.localizedDescription.contains("\(path): only 0.00 s of speech found; at least 0.2 s is needed"), $0.localizedDescription)
            }
        }
    }

    func testASingleShortWordIsEnoughSpeechForAClip() throws {
        let (_, enrollment, dir) = try setup()
        let word = dir.appendingPathComponent("seven.wav")
        try TestAudio.speak("seven", to: word, voice: "en-us+m5")
        let seconds = Double(try enrollment.speech(in: word.path).count) / 16_000
        XCTAssertGreaterThan(seconds, 0.2, "a spoken digit is found")
        XCTAssertLessThan(seconds, 0.8, "the silence espeak-ng adds around it is not")
    }

    func testExportedProfileGivesTheSameProbabilityInPythonOnnxRuntime() throws {
        let python = ModelStore().home.appendingPathComponent("venv/bin/python").path
        guard FileManager.default.isExecutableFile(atPath: python) else { throw XCTSkip("setup's Python venv is missing") }
        let (encoder, enrollment, dir) = try setup()
        let profile = try enrollment.enroll(name: "erin", clips: try clips("en-us+m5", [0, 1, 2]),
                                            others: try BackgroundSpeakers().windows(using: enrollment))
        let onnx = dir.appendingPathComponent("erin.onnx").path
        try VoiceProfileExporter.export(profile, encoder: encoder, to: onnx)
        let samples = try AudioFileLoader().load(path: try clips("en-us+m5", [4])[0]).samples
        let ours = VoiceVerifier(encoder: encoder).score(windows: try encoder.windowEmbeddings(samples[...]), against: profile)
        let (n, mel) = encoder.melWindows(samples[...])
        let raw = dir.appendingPathComponent("windows.f32")
        try mel.withUnsafeBytes { Data($0) }.write(to: raw)
        let script = """
            import sys, numpy as np, onnxruntime as ort
            x = np.fromfile(sys.argv[2], dtype='<f4').reshape(int(sys.argv[3]), 80, 40)
            o = ort.SessionOptions(); o.intra_op_num_threads = 1
            s = ort.InferenceSession(sys.argv[1], o, providers=['CPUExecutionProvider'])
            print(float(s.run(['probability'], {'mel_window': x})[0][0]))
            """
        let out = try TestAudio.run(python, ["-c", script, onnx, raw.path, String(n)])
        let theirs = Float(String(decoding: out, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines))!
        XCTAssertEqual(theirs, ours.probability, accuracy: 1e-4)
    }
}
