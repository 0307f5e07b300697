import EarshotCore
import EarshotTestSupport
import Foundation
import XCTest

/// `earshot sound` end to end: train from folders, evaluate, cross-validate, export (checked with Python
/// onnxruntime), listen on stdin, and the bad inputs.
final class SoundCommandTests: XCTestCase {
    nonisolated(unsafe) static var fixture: (dir: URL, model: String)?

    /// tone/noise/speech folders and a model trained on them, made once for the class.
    func trained() throws -> (dir: URL, model: String) {
        if let f = Self.fixture { return f }
        let dir = TestAudio.temporaryDirectory()
        for (label, make) in [("tone", 0), ("noise", 1), ("speech", 2)] {
            try FileManager.default.createDirectory(at: dir.appendingPathComponent("data/\(label)"), withIntermediateDirectories: true)
            for i in 0..<5 {
                let url = dir.appendingPathComponent("data/\(label)/\(label)\(i).wav")
                switch make {
                case 0: try TestAudio.wav16(TestAudio.tone(frequency: 400 + 150 * Double(i), seconds: 1.5, rate: 16000), rate: 16000).write(to: url)
                case 1: try TestAudio.run("sox", ["-n", "-r", "16000", "-b", "16", "-c", "1", url.path, "synth", "1.5", "whitenoise", "vol", "0.3"])
                default: try TestAudio.speak("This is spoken sentence number \(i).", to: url)
                }
            }
        }
        let model = dir.appendingPathComponent("sounds.model").path
        let r = try CLI.run(["sound", "train", dir.appendingPathComponent("data").path, "-o", model])
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertTrue(r.stdout.contains("wrote \(model): 3 labels"), r.stdout)
        XCTAssertTrue(r.stderr.contains("epoch"), "per-epoch progress on stderr")
        Self.fixture = (dir, model)
        return (dir, model)
    }

    override class func tearDown() {
        if let f = fixture { try? FileManager.default.removeItem(at: f.dir) }
    }

    func testEvaluateAndCrossValidateReportAccuracy() throws {
        let (dir, model) = try trained()
        let data = dir.appendingPathComponent("data").path
        let e = try CLI.run(["sound", "evaluate", "--json", model, data])
        XCTAssertEqual(e.status, 0, e.stderr)
        let report = try JSONSerialization.jsonObject(with: Data(e.stdout.utf8)) as! [String: Any]
        XCTAssertEqual(report["accuracy"] as? Double, 1.0)
        XCTAssertEqual((report["confusion"] as? [[Int]])?.count, 3)
        let cv = try CLI.run(["sound", "cross-validate", "-k", "5", "--json", data])
        XCTAssertEqual(cv.status, 0, cv.stderr)
        let result = try JSONSerialization.jsonObject(with: Data(cv.stdout.utf8)) as! [String: Any]
        XCTAssertEqual((result["folds"] as? [[String: Any]])?.count, 5)
        XCTAssertGreaterThanOrEqual(result["mean"] as? Double ?? 0, 0.9)
    }

    func testExportedModelGivesTheSameProbabilitiesInPythonOnnxRuntime() throws {
        let (dir, model) = try trained()
        let python = ModelStore().home.appendingPathComponent("venv/bin/python").path
        guard FileManager.default.isExecutableFile(atPath: python) else { throw XCTSkip("setup's Python venv is missing") }
        let onnx = dir.appendingPathComponent("sounds.onnx").path
        let r = try CLI.run(["sound", "export", model, "-o", onnx])
        XCTAssertEqual(r.status, 0, r.stderr)
        // Earshot's window probabilities for a file, then the same windows through the exported graph
        let file = dir.appendingPathComponent("data/speech/speech0.wav").path
        let firstWindow = try SoundCLI.firstWindow(model: model, file: file, top: 3)
        let script = """
            import json, sys, numpy as np, onnxruntime as ort
            sys.path.insert(0, sys.argv[3])
            import yamnet_reference as ref
            x = np.fromfile(sys.argv[2], dtype='<f4').astype(np.float64)
            patch = ref.log_mel(x)[:96].reshape(1, 1, 96, 64)
            s = ort.InferenceSession(sys.argv[1], providers=['CPUExecutionProvider'])
            p = s.run(['probabilities'], {'log_mel': patch})[0][0]
            labels = json.loads(s.get_modelmeta().custom_metadata_map['labels'])
            print(json.dumps(dict(zip(labels, p.tolist()))))
            """
        let audio = try AudioFileLoader().load(path: file).samples
        let raw = dir.appendingPathComponent("speech0.f32")
        try audio.withUnsafeBytes { Data($0) }.write(to: raw)
        let referenceDir = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Reference").path
        let out = try TestAudio.run(python, ["-c", script, onnx, raw.path, referenceDir])
        let theirs = try JSONSerialization.jsonObject(with: out) as! [String: Double]
        XCTAssertEqual(theirs.count, 3)
        for (label, p) in firstWindow {
            XCTAssertEqual(theirs[label]!, p, accuracy: 1e-4 + 5e-5, label)  // ours is printed to 4 decimals
        }
    }

    func testListenOnStdinPrintsAnEventPerWindow() throws {
        let (_, model) = try trained()
        let tone = TestAudio.tone(frequency: 500, seconds: 3, rate: 16000)
        let r = try CLI.run(["sound", "listen", model, "-", "--json"], stdin: TestAudio.rawS16(tone))
        XCTAssertEqual(r.status, 0, r.stderr)
        let events = r.stdout.split(separator: "\n").map { try! JSONSerialization.jsonObject(with: Data($0.utf8)) as! [String: Any] }
        XCTAssertGreaterThanOrEqual(events.count, 4)
        XCTAssertTrue(events.allSatisfy { $0["label"] as? String == "tone" }, r.stdout)
        // each event says what it cost; how much is for benchmarks, not for a test on a busy machine
        XCTAssertEqual(events.compactMap { $0["compute_seconds"] as? Double }.filter { $0 > 0 }.count, events.count, r.stdout)
    }

    func testBadModelsAndFoldersGiveClearErrors() throws {
        let (dir, model) = try trained()
        let truncated = dir.appendingPathComponent("truncated.model").path
        let bytes = try Data(contentsOf: URL(fileURLWithPath: model))
        try bytes.prefix(200).write(to: URL(fileURLWithPath: truncated))
        let r1 = try CLI.run(["sound", "classify", "--model", truncated, dir.appendingPathComponent("data/tone/tone0.wav").path])
        XCTAssertEqual(r1.status, 1)
        XCTAssertTrue(r1.stderr.contains("truncated.model: not an Earshot sound classifier"), r1.stderr)
        let one = dir.appendingPathComponent("one")
        try FileManager.default.createDirectory(at: one.appendingPathComponent("only"), withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: dir.appendingPathComponent("data/tone/tone0.wav").path,
                                         toPath: one.appendingPathComponent("only/a.wav").path)
        let r2 = try CLI.run(["sound", "train", one.path, "-o", dir.appendingPathComponent("x.model").path])
        XCTAssertEqual(r2.status, 1)
        XCTAssertTrue(r2.stderr.contains("needs at least two label folders with audio, found 1"), r2.stderr)
        XCTAssertFalse(FileManager.default.fileExists(atPath: dir.appendingPathComponent("x.model").path))
    }

    func testBuiltInClassifierNeedsNoModel() throws {
        let (dir, _) = try trained()
        let r = try CLI.run(["sound", "classify", "--top", "1", "--json", dir.appendingPathComponent("data/speech/speech1.wav").path])
        XCTAssertEqual(r.status, 0, r.stderr)
        let doc = try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as! [String: Any]
        XCTAssertEqual(((doc["top"] as! [[String: Any]])[0])["label"] as? String, "Speech")
    }
}
