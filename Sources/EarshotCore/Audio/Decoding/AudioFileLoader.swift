import Foundation

/// Opens any audio the user points at and returns it whole, as mono float samples at one rate.
/// WAV is read natively, FLAC/Ogg/MP3/AIFF through libsndfile, anything else through ffmpeg; the reading
/// itself is `AudioFileStream`'s, which long recordings use directly so memory does not grow with length.
public struct AudioFileLoader: Sendable {
    public let sampleRate: Int

    public init(sampleRate: Int = 16_000) {
        self.sampleRate = sampleRate
    }

    /// What the first bytes of a file say it is.
    enum Container { case wav, sndfile, ffmpegOnly, unknown }

    /// Loads a file, or standard input when `path` is "-".
    public func load(path: String) throws -> AudioBuffer {
        try Self.readAll(try AudioFileStream(path: path, sampleRate: sampleRate))
    }

    /// Loads audio held in memory (for example read from a pipe); `name` is used in messages.
    public func load(data: Data, name: String) throws -> AudioBuffer {
        try Self.readAll(try AudioFileStream(data: data, name: name, sampleRate: sampleRate))
    }

    /// Checks that a file decodes and returns its length in seconds, without resampling (voice notes
    /// accept or refuse a recording this way before storing it).
    public func duration(path: String) throws -> Double {
        try AudioFileStream(path: path, sampleRate: sampleRate).measureDuration()
    }

    private static func readAll(_ stream: AudioFileStream) throws -> AudioBuffer {
        var samples: [Float] = []
        if let seconds = stream.expectedDuration, seconds < 24 * 3600 {
            samples.reserveCapacity(Int(seconds * Double(stream.sampleRate)) + 1024)
        }
        while let block = try stream.read() { samples += block }
        return AudioBuffer(samples: samples, sampleRate: stream.sampleRate)
    }

    /// The most standard input may hold: a little over 3 h of 48 kHz stereo 32-bit audio (`cat /dev/zero`
    /// must end in an error, not in running out of memory or disk).
    public static let standardInputLimit = 4 << 30

    /// Standard input read to its end, refused past `standardInputLimit`.
    public static func standardInput() throws -> Data {
        var data = Data()
        try readStandardInput { data.append($0) }
        return data
    }

    /// Standard input a megabyte at a time, refused past `standardInputLimit`.
    static func readStandardInput(_ body: (Data) throws -> Void) throws {
        var total = 0
        while let chunk = try FileHandle.standardInput.read(upToCount: 1 << 20), !chunk.isEmpty {
            total += chunk.count
            guard total <= standardInputLimit else {
                throw AudioError.unsupported(path: "<stdin>", detail: "more than \(standardInputLimit >> 30) GB of input")
            }
            try body(chunk)
        }
    }

    /// The largest sample magnitude taken as sound (float audio is ±1; integer formats decode within it).
    static let largestSample: Float = 1_000_000

    /// Sample rates real audio has. Outside them a header is damaged or forged: a 64 KB file claiming 1 Hz
    /// would be resampled into hours of audio.
    public static let sampleRates = 1_000...768_000

    static func check(rate: Int, name: String) throws {
        guard sampleRates.contains(rate) else {
            throw AudioError.damaged(path: name, detail: "its header says \(rate) Hz; real audio is sampled at 1 kHz to 768 kHz")
        }
    }

    static func sniff(_ data: Data) -> Container {
        let head = [UInt8](data.prefix(12))
        func ascii(_ range: Range<Int>) -> String {
            range.upperBound <= head.count ? String(decoding: head[range], as: UTF8.self) : ""
        }
        if ascii(0..<4) == "RIFF" && ascii(8..<12) == "WAVE" { return .wav }
        if ["fLaC", "OggS", "FORM", ".snd", "caff"].contains(ascii(0..<4)) || ascii(0..<3) == "ID3" { return .sndfile }
        if head.count >= 2 && head[0] == 0xFF && head[1] & 0xE0 == 0xE0 && head[1] & 0x06 != 0 { return .sndfile }
        if ascii(4..<8) == "ftyp" || head.starts(with: [0x1A, 0x45, 0xDF, 0xA3]) { return .ffmpegOnly }
        return .unknown
    }
}
