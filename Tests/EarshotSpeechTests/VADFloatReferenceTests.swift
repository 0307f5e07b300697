import EarshotCore
import EarshotSpeech
import EarshotTestSupport
import Foundation
import XCTest

/// silero VAD is a float network; as Earshot runs it (fused kernels of this CPU) its frame probabilities
/// must stay those of the unoptimised float reference, so speech is found the same on every CPU.
final class VADFloatReferenceTests: XCTestCase {
    func testFrameProbabilitiesMatchTheFloatReference() throws {
        let clips = try FloatReference.clips(sentences: 2, esc10: true, speech: 1)
        let model = ModelStore().home.appendingPathComponent("models/silero-vad/silero_vad.onnx").path
        let ref = try FloatReference.run("vad_reference.py", arguments: [model], clips: clips.map(\.samples)) as! [[NSNumber]]
        let vad = try SpeechProbabilities()
        for (clip, reference) in zip(clips, ref) {
            let ours = try vad.frames(clip.samples[...])
            let theirs = reference.map(\.floatValue)
            XCTAssertEqual(ours.count, theirs.count, clip.name)
            let worst = zip(ours, theirs).map { abs($0 - $1) }.max() ?? 0
            print("silero VAD vs float reference, \(clip.name): \(ours.count) frames, largest difference \(worst)")
            XCTAssertLessThanOrEqual(worst, 0.01, clip.name)
        }
    }
}
