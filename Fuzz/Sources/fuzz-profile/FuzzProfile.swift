import EarshotCore
import EarshotVoice
import Foundation

/// Any bytes read as a voice profile: refused with a clear error, or a profile whose head scores a speaker
/// vector with a probability between 0 and 1.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzProfile(_ bytes: UnsafePointer<UInt8>, _ count: Int) -> CInt {
    guard let profile = try? VoiceProfile.validated(from: Data(bytes: bytes, count: count), path: "fuzz.json", name: "fuzz") else { return 0 }
    let p = profile.head.probabilities(Matrix(rows: 1, columns: SpeakerEncoder.dimension, values: profile.centroid))
    precondition(p.values.count == 2 && p.values.allSatisfy { $0.isFinite && $0 >= 0 && $0 <= 1 }, "a valid profile must score")
    return 0
}
