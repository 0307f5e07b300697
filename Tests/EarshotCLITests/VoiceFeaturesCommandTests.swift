import EarshotCore
import EarshotTestSupport
import Foundation
import XCTest

/// `earshot sound` on voices: folders that are all speech get the speaker encoder's features (and say so),
/// the model file names that network, and its ONNX export (speaker network + head) gives Earshot's
/// probabilities in Python onnxruntime from the front-end its documentation describes (level, noise floor).
final class VoiceFeaturesCommandTests: XCTestCase {
    func testSpeechFoldersTrainOnVoiceFeaturesAndExportTheMatchingGraph() throws {
        let python = ModelStore().home.appendingPathComponent("venv/bin/python").path
        guard FileManager.default.isExecutableFile(atPath: python) else { throw XCTSkip("setup's Python venv is missing") }
        let dir = TestAudio.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let lines = ["The weather was cold and windy all day long.", "Please remember to bring your umbrella tomorrow.",
                     "My brother plays the guitar in a small band."]
        for (label, voices) in [("high", ["en+f2", "en+f3", "en-us+f4"]), ("low", ["en+m1", "en+m3", "en-us+m2"])] {
            try FileManager.default.createDirectory(at: dir.appendingPathComponent("data/\(label)"), withIntermediateDirectories: true)
            for voice in voices {
                for (i, line) in lines.enumerated() {
                    try TestAudio.speak(line, to: dir.appendingPathComponent("data/\(label)/\(voice)-\(i).wav"), voice: voice)
                }
            }
        }
        let model = dir.appendingPathComponent("voices.model").path
        let train = try CLI.run(["sound", "train", dir.appendingPathComponent("data").path, "-o", model])
        XCTAssertEqual(train.status, 0, train.stderr)
        XCTAssertTrue(train.stderr.contains("training on voice features (--features speaker)"), train.stderr)
        let saved = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: model))) as! [String: Any]
        XCTAssertEqual(saved["embeddingModel"] as? String, SpeakerEncoder.modelIdentity)

        let onnx = dir.appendingPathComponent("voices.onnx").path
        let export = try CLI.run(["sound", "export", model, "-o", onnx])
        XCTAssertEqual(export.status, 0, export.stderr)
        XCTAssertTrue(export.stdout.contains("input mel_window [n,80,40]"), export.stdout)
        let file = dir.appendingPathComponent("data/low/en+m1-0.wav").path
        let firstWindow = try SoundCLI.firstWindow(model: model, file: file, top: 2)
        // the first 0.975 s window holds one encoder window: log-mel frames 0..<80
        let script = """
            import json, sys, numpy as np, onnxruntime as ort
            sys.path.insert(0, sys.argv[3])
            import speaker_reference as ref
            x = np.fromfile(sys.argv[2], dtype='<f4').astype(np.float64)
            windows = ref.voice_log_mel(x)[:80][None].astype(np.float32)
            s = ort.InferenceSession(sys.argv[1], providers=['CPUExecutionProvider'])
            p = s.run(['probabilities'], {'mel_window': windows})[0][0]
            labels = json.loads(s.get_modelmeta().custom_metadata_map['labels'])
            print(json.dumps(dict(zip(labels, p.tolist()))))
            """
        let raw = dir.appendingPathComponent("clip.f32")
        try AudioFileLoader().load(path: file).samples.withUnsafeBytes { Data($0) }.write(to: raw)
        let out = try TestAudio.run(python, ["-c", script, onnx, raw.path, URL(fileURLWithPath: FloatReference.path(of: "x")).deletingLastPathComponent().path])
        let theirs = try JSONSerialization.jsonObject(with: out) as! [String: Double]
        for (label, p) in firstWindow {
            XCTAssertEqual(theirs[label]!, p, accuracy: 1e-3, label)
        }
    }
}
