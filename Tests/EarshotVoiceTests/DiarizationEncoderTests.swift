import EarshotCore
import EarshotTestSupport
@testable import EarshotVoice
import Foundation
import XCTest

/// The diarizer's speaker network (CAM++) as Earshot runs it: the Kaldi filterbank and every window's vector match an
/// independent numpy + onnxruntime reference (`Tests/Reference/campplus_reference.py`) on real speech, windows cover
/// a stretch of speech to its end, and the network tells apart voices that the d-vector encoder scores alike.
final class DiarizationEncoderTests: XCTestCase {
    func testFilterbankAndWindowVectorsMatchTheReference() throws {
        let clips = try FloatReference.clips(sentences: 2, esc10: false, speech: 1)
        let encoder = try DiarizationEncoder()
        let model = ModelStore().home.appendingPathComponent("models/diarization/campplus.onnx").path
        let ref = try FloatReference.run("campplus_reference.py", arguments: [model], clips: clips.map(\.samples)) as! [[String: Any]]
        let theirFbank = (ref[0]["fbank"] as! [NSNumber]).map(\.floatValue)
        let ourFbank = encoder.frontEnd.compute(clips[0].samples[...])
        XCTAssertEqual(ourFbank.count, theirFbank.count)
        let worstBand = zip(ourFbank, theirFbank).map { abs($0 - $1) }.max() ?? .infinity
        print("Kaldi filterbank vs numpy: \(ourFbank.count / 80) frames, largest difference \(worstBand)")
        XCTAssertLessThan(worstBand, 2e-3)
        for (clip, reference) in zip(clips, ref) {
            let theirs = (reference["windows"] as! [[NSNumber]]).map { $0.map(\.floatValue) }
            let features = encoder.frontEnd.compute(clip.samples[...])
            let spans = SpeechWindowTrack.spans(frames: features.count / 80, length: 100, hop: 50)
            let ours = try encoder.embeddings(features: features, windows: spans)
            XCTAssertEqual(ours.count, theirs.count, clip.name)
            let worst = zip(ours, theirs).map { SpeakerEncoder.cosine($0, $1) }.min() ?? 0
            print("CAM++ vs reference, \(clip.name): \(ours.count) windows, worst cosine \(worst)")
            XCTAssertGreaterThanOrEqual(worst, 0.999, clip.name)
        }
    }

    func testWindowsReachTheEndOfTheSpeech() {
        XCTAssertEqual(SpeechWindowTrack.spans(frames: 250, length: 100, hop: 50), [0..<100, 50..<150, 100..<200, 150..<250])
        XCTAssertEqual(SpeechWindowTrack.spans(frames: 260, length: 100, hop: 50), [0..<100, 50..<150, 100..<200, 150..<250, 160..<260])
        XCTAssertEqual(SpeechWindowTrack.spans(frames: 100, length: 100, hop: 50), [0..<100])
        XCTAssertEqual(SpeechWindowTrack.spans(frames: 18, length: 100, hop: 50), [0..<18])
        XCTAssertEqual(SpeechWindowTrack.spans(frames: 0, length: 100, hop: 50), [])
    }

    /// Two espeak-ng voices, variants of one synthesiser that sound far more alike than two people: CAM++ must
    /// score each voice's two sentences above any pair of the two voices, with a wider gap than the d-vector
    /// network voice ID enrols with.
    func testVoicesOfOneSynthesiserAreToldApart() throws {
        let encoder = try DiarizationEncoder(), dvectors = try SpeakerEncoder.shared()
        struct Voice { var campplus: [Float]; var dvector: [Float] }
        func vectors(_ text: String, _ voice: String) throws -> Voice {
            let samples = try TestAudio.speech(text, voice: voice).samples
            let features = encoder.frontEnd.compute(samples[...])
            let spans = SpeechWindowTrack.spans(frames: features.count / 80, length: 100, hop: 50)
            return Voice(campplus: SpeakerEncoder.mean(try encoder.embeddings(features: features, windows: spans)),
                         dvector: try dvectors.embedding(samples[...]))
        }
        let a = DiarizationTests.sentences[0], b = DiarizationTests.sentences[3]
        let m1 = try vectors(a, "en-us+m5"), m2 = try vectors(b, "en-us+m5")
        let f1 = try vectors(a, "en-gb+f4"), f2 = try vectors(b, "en-gb+f4")
        func gap(_ v: KeyPath<Voice, [Float]>) -> (same: Float, across: Float) {
            let same = min(SpeakerEncoder.cosine(m1[keyPath: v], m2[keyPath: v]), SpeakerEncoder.cosine(f1[keyPath: v], f2[keyPath: v]))
            let across = [(m1, f1), (m1, f2), (m2, f1), (m2, f2)].map { SpeakerEncoder.cosine($0.0[keyPath: v], $0.1[keyPath: v]) }.max()!
            return (same, across)
        }
        let campplus = gap(\.campplus), dvector = gap(\.dvector)
        print("espeak-ng voices, lowest cosine of one voice / highest of two: CAM++ \(campplus), d-vector \(dvector)")
        XCTAssertGreaterThan(campplus.same - campplus.across, 0.05)
        XCTAssertGreaterThan(campplus.same - campplus.across, dvector.same - dvector.across)
    }
}
