import EarshotCore
import EarshotSound
import EarshotTestSupport
import Foundation
import XCTest

/// Our log-mel and YAMNet embedding match an independent numpy + onnxruntime reference.
final class FrontEndTests: XCTestCase {
    func testLogMelAndEmbeddingMatchTheNumpyReference() throws {
        let speech = try TestAudio.speech("Testing the sound front end against a reference.").samples
        let ref = try FloatReference.run("yamnet_reference.py", arguments: [ModelStore().home.appendingPathComponent("models/yamnet").path],
                                         clips: [speech]) as! [[String: Any]]

        let mel = LogMelSpectrogram(.yamnet).compute(speech[...])
        let refMel = (ref[0]["log_mel"] as! [NSNumber]).map(\.floatValue)
        XCTAssertEqual(mel.count, refMel.count)
        let maxDiff = zip(mel, refMel).map { abs($0 - $1) }.max()!
        XCTAssertLessThanOrEqual(maxDiff, 1e-3, "log-mel max abs diff")

        let ours = try SoundEmbedder().run(patch: mel[0..<(96 * 64)]).embedding
        let theirs = ((ref[0]["patches"] as! [[NSNumber]])[0]).map(\.floatValue)
        let cosine = SpeakerEncoder.cosine(ours, theirs)
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
