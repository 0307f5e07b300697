import EarshotCore
import EarshotSound
import Foundation

/// Any bytes read as a trained sound classifier: refused with a clear error, or a model whose head gives
/// one probability per label for an embedding.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzSoundModel(_ bytes: UnsafePointer<UInt8>, _ count: Int) -> CInt {
    guard let model = try? SoundClassifierModel.validated(from: Data(bytes: bytes, count: count), path: "fuzz.model") else { return 0 }
    let input = Matrix(rows: 1, columns: model.features.dimension)
    let p = model.head.probabilities(input)
    precondition(p.values.count == model.labels.count && p.values.allSatisfy(\.isFinite), "a valid model must classify")
    return 0
}
