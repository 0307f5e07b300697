import Foundation

/// Opens any audio the user points at and returns it as mono float samples at one rate.
/// WAV is read natively, FLAC/Ogg/MP3/AIFF through libsndfile, anything else through ffmpeg.
public struct AudioFileLoader: Sendable {
    public let sampleRate: Int

    public init(sampleRate: Int = 16_000) {
        self.sampleRate = sampleRate
    }

    /// What the first bytes of a file say it is.
    enum Container { case wav, sndfile, ffmpegOnly, unknown }

    /// Loads a file, or standard input when `path` is "-".
    public func load(path: String) throws -> AudioBuffer {
        try Resampler.resample(try decoded(path: path).downmixed(), to: sampleRate)
    }

    /// Checks that a file decodes and returns its length in seconds, without resampling (voice notes
    /// accept or refuse a recording this way before storing it).
    public func duration(path: String) throws -> Double {
        if path != "-", let data = try? Data(contentsOf: URL(fileURLWithPath: path), options: .alwaysMapped),
           Self.sniff(data) == .wav, let (frames, rate) = try? WAVDecoder().inspect(data, path: path), Self.sampleRates.contains(rate) {
            return Double(frames) / Double(rate)  // the header says it all; anything odd is decoded in full below
        }
        let audio = try decoded(path: path)
        return Double(audio.frameCount) / Double(audio.sampleRate)
    }

    private func decoded(path: String) throws -> DecodedAudio {
        if path == "-" { return try decode(data: try Self.standardInput(), name: "<stdin>") }
        var info = stat()
        guard stat(path, &info) == 0 else {
            throw AudioError.unreadable(path: path, reason: errno == ENOENT ? "no such file" : String(cString: strerror(errno)))
        }
        switch info.st_mode & S_IFMT {
        case S_IFREG: break
        case S_IFDIR: throw AudioError.unreadable(path: path, reason: "is a directory")
        default:  // a FIFO or a device (/dev/zero) never ends or cannot be read twice
            throw AudioError.unreadable(path: path, reason: "not a regular file (a pipe or a device); send a stream to '-' instead")
        }
        let data: Data
        do { data = try Data(contentsOf: URL(fileURLWithPath: path), options: .mappedIfSafe) } catch {
            throw AudioError.unreadable(path: path, reason: (error as NSError).localizedFailureReason ?? "permission denied")
        }
        return try decode(data: data, path: path, name: path)
    }

    /// Loads audio held in memory (for example read from a pipe); `name` is used in messages.
    public func load(data: Data, name: String) throws -> AudioBuffer {
        try Resampler.resample(try decode(data: data, name: name).downmixed(), to: sampleRate)
    }

    private func decode(data: Data, name: String) throws -> DecodedAudio {
        if Self.sniff(data) == .wav { return try decode(data: data, path: nil, name: name) }
        // libsndfile and ffmpeg read from files: spill the bytes to a private temporary file
        let temp = FileManager.default.temporaryDirectory.appendingPathComponent("earshot-\(UUID().uuidString)")
        do { try data.write(to: temp) } catch {
            throw AudioError.unreadable(path: name, reason: "cannot write temporary copy: \(error.localizedDescription)")
        }
        defer { try? FileManager.default.removeItem(at: temp) }
        return try decode(data: data, path: temp.path, name: name)
    }

    private func decode(data: Data, path: String?, name: String) throws -> DecodedAudio {
        guard !data.isEmpty else { throw AudioError.empty(path: name) }
        let decoded: DecodedAudio
        switch Self.sniff(data) {
        case .wav:
            decoded = try WAVDecoder().decode(data, path: name)
        case .sndfile:
            do {
                decoded = try SndFileDecoder().decode(path: path!, displayName: name)
            } catch let error as AudioError {
                guard FFmpegDecoder.executable != nil else { throw error }
                decoded = try FFmpegDecoder().decode(path: path!, displayName: name)
            }
        case .ffmpegOnly, .unknown:
            if FFmpegDecoder.executable == nil && Self.sniff(data) == .unknown {
                throw AudioError.notAudio(path: name, detail: "unrecognised content; ffmpeg is not installed to try harder")
            }
            decoded = try FFmpegDecoder().decode(path: path!, displayName: name)
        }
        guard decoded.frameCount > 0 else { throw AudioError.noSamples(path: name) }
        try Self.check(rate: decoded.sampleRate, name: name)
        // one NaN would spread through every filter and network and silently empty the result; float samples
        // beyond a million (sound is ±1) overflow to infinity in mixing and filtering
        let damaged = decoded.interleaved.reduce(0) { $1.isFinite && abs($1) <= Self.largestSample ? $0 : $0 + 1 }
        guard damaged == 0 else {
            throw AudioError.damaged(path: name, detail: "\(damaged) of its \(decoded.interleaved.count) samples are not finite numbers "
                + "(NaN or infinity) or lie beyond ±1,000,000")
        }
        return decoded
    }

    /// The most standard input may hold: a little over 3 h of 48 kHz stereo 32-bit audio (`cat /dev/zero`
    /// must end in an error, not in running out of memory).
    public static let standardInputLimit = 4 << 30

    /// Standard input read to its end, refused past `standardInputLimit`.
    public static func standardInput() throws -> Data {
        var data = Data()
        while let chunk = try FileHandle.standardInput.read(upToCount: 1 << 20), !chunk.isEmpty {
            data.append(chunk)
            guard data.count <= standardInputLimit else {
                throw AudioError.unsupported(path: "<stdin>", detail: "more than \(standardInputLimit >> 30) GB of input")
            }
        }
        return data
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
