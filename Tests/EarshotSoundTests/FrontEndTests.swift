import EarshotCore
import EarshotSound
import EarshotTestSupport
import Foundation
import XCTest

/// Our log-mel and YAMNet embedding match an independent numpy + onnxruntime reference.
final class FrontEndTests: XCTestCase {
    func testLogMelAndEmbeddingMatchTheNumpyReference() throws {
        let python = ModelStore().home.appendingPathComponent("venv/bin/python").path
        guard FileManager.default.isExecutableFile(atPath: python) else { throw XCTSkip("setup's Python venv is missing: run make setup") }
        let reference = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Reference/yamnet_reference.py").path
        let speech = try TestAudio.speech("Testing the sound front end against a reference.").samples
        let dir = TestAudio.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let raw = dir.appendingPathComponent("audio.f32")
        try speech.withUnsafeBytes { Data($0) }.write(to: raw)
        let out = try TestAudio.run(python, [reference, ModelStore().home.appendingPathComponent("models/yamnet").path, raw.path])
        let ref = try JSONSerialization.jsonObject(with: out) as! [String: Any]

        let mel = LogMelSpectrogram(.yamnet).compute(speech[...])
        let refMel = (ref["log_mel"] as! [NSNumber]).map(\.floatValue)
        XCTAssertEqual(mel.count, refMel.count)
        let maxDiff = zip(mel, refMel).map { abs($0 - $1) }.max()!
        XCTAssertLessThanOrEqual(maxDiff, 1e-3, "log-mel max abs diff")

        let embedder = try SoundEmbedder()
        let ours = try embedder.run(patch: mel[0..<(96 * 64)]).embedding
        let theirs = (ref["embedding"] as! [NSNumber]).map(\.floatValue)
        let dot = zip(ours, theirs).map(*).reduce(0, +)
        let cosine = dot / (sqrt(ours.map { $0 * $0 }.reduce(0, +)) * sqrt(theirs.map { $0 * $0 }.reduce(0, +)))
        print("log-mel max diff \(maxDiff), embedding cosine \(cosine)")
        XCTAssertGreaterThanOrEqual(cosine, 0.999)
    }

    func testBuiltInClassifierHearsSpeechAndSilence() throws {
        let classifier = SoundClassifier(embedder: try SoundEmbedder())
        let speech = try classifier.classify(try TestAudio.speech("Hello, this is a short sentence."), top: 3)
        XCTAssertEqual(speech.overall.top.first?.label, "Speech")
        let silence = try classifier.classify(AudioBuffer(samples: TestAudio.silence(seconds: 2), sampleRate: 16000), top: 1)
        XCTAssertEqual(silence.overall.top.first?.label, "Silence")
        XCTAssertEqual(silence.windows.count, 4)  // 0.975 s windows every 0.4875 s, the last one ending at 2 s
    }
}
