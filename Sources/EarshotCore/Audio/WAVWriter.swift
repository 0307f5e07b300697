import Foundation

/// Writes mono 16-bit PCM WAV images (recordings the user makes).
public enum WAVWriter {
    public static func pcm16(_ samples: [Float], sampleRate: Int) -> Data {
        var data = Data()
        func put<T: FixedWidthInteger>(_ v: T) { withUnsafeBytes(of: v.littleEndian) { data.append(contentsOf: $0) } }
        data.append(Data("RIFF".utf8)); put(UInt32(36 + samples.count * 2)); data.append(Data("WAVEfmt ".utf8))
        put(UInt32(16)); put(UInt16(1)); put(UInt16(1)); put(UInt32(sampleRate)); put(UInt32(sampleRate * 2))
        put(UInt16(2)); put(UInt16(16)); data.append(Data("data".utf8)); put(UInt32(samples.count * 2))
        for s in samples { put(Int16(max(-32768, min(32767, (s * 32767).rounded())))) }
        return data
    }
}
