import EarshotCore
import Foundation

/// Any bytes given to the audio loader as a WAV file: a clear error or audio at 16 kHz, never a crash or a
/// runaway allocation (forged sizes and rates, NaN samples, truncation).
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzWAV(_ bytes: UnsafePointer<UInt8>, _ count: Int) -> CInt {
    var data = Data("RIFF".utf8)
    data.append(bytes, count: count)
    // the loader sends other containers to libsndfile and ffmpeg (another process per input): keep to our decoder
    guard data.count >= 12, data[8..<12].elementsEqual("WAVE".utf8) else { return 0 }
    if let audio = try? AudioFileLoader().load(data: data, name: "fuzz.wav") {
        precondition(audio.sampleRate == 16_000 && audio.samples.allSatisfy(\.isFinite), "loaded audio must be usable")
    }
    return 0
}
