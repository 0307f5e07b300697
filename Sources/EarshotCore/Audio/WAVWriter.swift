import Foundation

/// Writes mono 16-bit PCM WAV images (recordings the user makes).
public enum WAVWriter {
    public static func pcm16(_ samples: [Float], sampleRate: Int) -> Data {
        header(dataBytes: UInt32(samples.count * 2), sampleRate: sampleRate) + pcm(samples)
    }

    /// The 44-byte header; `dataBytes` 0xFFFFFFFF means "to the end of the file" (streaming writers).
    static func header(dataBytes: UInt32, sampleRate: Int) -> Data {
        var data = Data()
        func put<T: FixedWidthInteger>(_ v: T) { withUnsafeBytes(of: v.littleEndian) { data.append(contentsOf: $0) } }
        data.append(Data("RIFF".utf8)); put(dataBytes == .max ? UInt32.max : 36 + dataBytes); data.append(Data("WAVEfmt ".utf8))
        put(UInt32(16)); put(UInt16(1)); put(UInt16(1)); put(UInt32(sampleRate)); put(UInt32(sampleRate * 2))
        put(UInt16(2)); put(UInt16(16)); data.append(Data("data".utf8)); put(dataBytes)
        return data
    }

    static func pcm(_ samples: [Float]) -> Data {
        var data = Data(capacity: samples.count * 2)
        for s in samples {
            withUnsafeBytes(of: Int16(max(-32768, min(32767, (s * 32767).rounded()))).littleEndian) { data.append(contentsOf: $0) }
        }
        return data
    }
}

/// A WAV file written as audio arrives (a live recording): each chunk is appended once, and until
/// `finish` writes the real sizes the header says "length unknown", which readers take as "up to the end
/// of the file" — so a recorder killed mid-way still leaves a readable recording.
public final class WAVFileWriter {
    public let url: URL
    public let sampleRate: Int
    public private(set) var frames = 0
    private let handle: FileHandle

    public init(url: URL, sampleRate: Int) throws {
        self.url = url
        self.sampleRate = sampleRate
        try WAVWriter.header(dataBytes: .max, sampleRate: sampleRate).write(to: url)
        handle = try FileHandle(forWritingTo: url)
        try handle.seekToEnd()
    }

    public func append(_ samples: [Float]) throws {
        try handle.write(contentsOf: WAVWriter.pcm(samples))
        frames += samples.count
    }

    /// Writes the sizes into the header and closes the file.
    public func finish() throws {
        let full = WAVWriter.header(dataBytes: UInt32(frames * 2), sampleRate: sampleRate)
        try handle.seek(toOffset: 0)
        try handle.write(contentsOf: full)
        try handle.synchronize()
        try handle.close()
    }
}
