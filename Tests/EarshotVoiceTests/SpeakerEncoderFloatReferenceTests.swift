import EarshotCore
import EarshotTestSupport
import EarshotVoice
import Foundation
import XCTest

/// The speaker encoder as Earshot runs it (integer LSTM and projection, weights stored as uint8) gives the
/// window vectors of the same network in float (every weight dequantised, standard LSTM, no graph
/// optimisations) on real speech. With int8 weights, ONNX Runtime's AVX2 kernels saturate; this must hold
/// on any CPU.
final class SpeakerEncoderFloatReferenceTests: XCTestCase {
    func testEveryWindowVectorMatchesTheFloatReference() throws {
        let clips = try FloatReference.clips(sentences: 3, esc10: false, speech: 3)
        let ref = try FloatReference.run("speaker_reference.py", arguments: [try FloatReference.installed("speaker/embedder.float.onnx")],
                                         clips: clips.map(\.samples)) as! [[String: Any]]
        let encoder = try SpeakerEncoder()
        for (clip, reference) in zip(clips, ref) {
            let theirs = (reference["windows"] as! [[NSNumber]]).map { $0.map(\.floatValue) }
            let ours = try encoder.windowEmbeddings(clip.samples[...])
            XCTAssertEqual(ours.count, theirs.count, clip.name)
            let worst = zip(ours, theirs).map { SpeakerEncoder.cosine($0, $1) }.min() ?? 0
            print("speaker encoder vs float reference, \(clip.name): \(ours.count) windows, worst cosine \(worst)")
            XCTAssertGreaterThanOrEqual(worst, 0.99, clip.name)
        }
    }
}
