import Foundation

/// A recording read a block at a time as mono float samples at one rate, whatever its container, channels
/// and rate: memory stays the same for a minute or a day. Damaged samples and forged rates are refused as
/// they are met, with the file's name and where in it.
///
///     let stream = try AudioFileStream(path: "meeting.m4a", sampleRate: 16_000)
///     while let block = try stream.read() { consume(block) }
public final class AudioFileStream {
    /// How the recording is named in messages ("<stdin>" for standard input).
    public let name: String
    public let sampleRate: Int
    /// The recording's length in seconds when its container says (for progress); nil when it does not.
    public var expectedDuration: Double? { decoder.frameCount.map { Double($0) / Double(decoder.sampleRate) } }
    /// Seconds of the recording read so far.
    public var durationRead: Double { Double(framesDecoded) / Double(decoder.sampleRate) }

    private let decoder: BlockDecoder
    private let resampler: StreamingResampler?
    private var framesDecoded = 0
    private var ended = false
    /// A private copy of standard input or of bytes in memory, removed with the stream.
    private let temporary: URL?

    /// Frames of the source read at a time: about a second, so a block is small next to any model.
    static let blockFrames = 1 << 16

    /// Opens a file, or standard input when `path` is "-" (copied to a private temporary file first, so
    /// every format can be read and nothing is held in memory).
    public convenience init(path: String, sampleRate: Int) throws {
        if path == "-" {
            let copy = try Self.copyStandardInput()
            try self.init(file: copy.path, name: "<stdin>", sampleRate: sampleRate, temporary: copy)
        } else {
            try self.init(file: path, name: path, sampleRate: sampleRate, temporary: nil)
        }
    }

    /// Opens audio held in memory; `name` is used in messages. WAV is read in place, other containers
    /// through a private temporary file (libsndfile and ffmpeg read files).
    public convenience init(data: Data, name: String, sampleRate: Int) throws {
        guard !data.isEmpty else { throw AudioError.empty(path: name) }
        if AudioFileLoader.sniff(data) == .wav {
            try self.init(decoder: try WAVDecoder().open(DataInput(data), path: name), name: name, sampleRate: sampleRate,
                          temporary: nil)
            return
        }
        let copy = FileManager.default.temporaryDirectory.appendingPathComponent("earshot-\(UUID().uuidString)")
        do { try data.write(to: copy) } catch {
            throw AudioError.unreadable(path: name, reason: "cannot write temporary copy: \(error.localizedDescription)")
        }
        try self.init(file: copy.path, name: name, sampleRate: sampleRate, temporary: copy)
    }

    private convenience init(file: String, name: String, sampleRate: Int, temporary: URL?) throws {
        let decoder: BlockDecoder
        do { decoder = try Self.openDecoder(file: file, name: name) } catch {
            if let temporary { try? FileManager.default.removeItem(at: temporary) }
            throw error
        }
        try self.init(decoder: decoder, name: name, sampleRate: sampleRate, temporary: temporary)
    }

    private init(decoder: BlockDecoder, name: String, sampleRate: Int, temporary: URL?) throws {
        self.decoder = decoder
        self.name = name
        self.sampleRate = sampleRate
        self.temporary = temporary
        do {
            try AudioFileLoader.check(rate: decoder.sampleRate, name: name)
            resampler = decoder.sampleRate == sampleRate ? nil : try StreamingResampler(from: decoder.sampleRate, to: sampleRate)
        } catch {
            if let temporary { try? FileManager.default.removeItem(at: temporary) }
            throw error
        }
    }

    deinit { if let temporary { try? FileManager.default.removeItem(at: temporary) } }

    /// The next block of mono samples at `sampleRate`, or nil at the end of the recording.
    public func read() throws -> [Float]? {
        while !ended {
            let block = try decoder.read(frames: Self.blockFrames)
            if block.isEmpty {
                ended = true
                guard framesDecoded > 0 else { throw AudioError.noSamples(path: name) }
                let tail = resampler?.process([], flush: true) ?? []
                return tail.isEmpty ? nil : tail
            }
            try checkSamples(block)
            framesDecoded += block.count / decoder.channels
            let mono = DecodedAudio.downmix(block, channels: decoder.channels)
            let out = resampler?.process(mono) ?? mono
            if !out.isEmpty { return out }
        }
        return nil
    }

    /// The length in seconds, by decoding to the end without resampling: every sample is checked, so a WAV
    /// whose header is fine but whose samples are NaN is refused here too (WAV reads at hundreds of MB/s).
    public func measureDuration() throws -> Double {
        while case let block = try decoder.read(frames: Self.blockFrames), !block.isEmpty {
            try checkSamples(block)
            framesDecoded += block.count / decoder.channels
        }
        guard framesDecoded > 0 else { throw AudioError.noSamples(path: name) }
        return durationRead
    }

    /// One NaN would spread through every filter and network and silently empty the result; float samples
    /// beyond a million (sound is ±1) overflow to infinity in mixing and filtering.
    private func checkSamples(_ block: [Float]) throws {
        guard let first = block.firstIndex(where: { !($0.isFinite && abs($0) <= AudioFileLoader.largestSample) }) else { return }
        let count = block.reduce(0) { $1.isFinite && abs($1) <= AudioFileLoader.largestSample ? $0 : $0 + 1 }
        let seconds = Double(framesDecoded + first / decoder.channels) / Double(decoder.sampleRate)
        let what = count == 1 ? "a sample at \(Self.clock(seconds)) is not a finite number (NaN or infinity) or lies"
            : "\(count) samples from \(Self.clock(seconds)) on are not finite numbers (NaN or infinity) or lie"
        throw AudioError.damaged(path: name, detail: what + " beyond ±1,000,000")
    }

    /// 83.5 s as "1:23.50", 2 h as "2:00:00.00".
    static func clock(_ seconds: Double) -> String {
        let whole = Int(seconds)
        let fraction = seconds - Double(whole)
        let (h, m, s) = (whole / 3600, whole / 60 % 60, Double(whole % 60) + fraction)
        return h > 0 ? String(format: "%d:%02d:%05.2f", h, m, s) : String(format: "%d:%05.2f", m, s)
    }

    /// The decoder for what the file's first bytes say it is.
    private static func openDecoder(file: String, name: String) throws -> BlockDecoder {
        var info = stat()
        guard stat(file, &info) == 0 else {
            throw AudioError.unreadable(path: name, reason: errno == ENOENT ? "no such file" : String(cString: strerror(errno)))
        }
        switch info.st_mode & S_IFMT {
        case S_IFREG: break
        case S_IFDIR: throw AudioError.unreadable(path: name, reason: "is a directory")
        default:  // a FIFO or a device (/dev/zero) never ends or cannot be read twice
            throw AudioError.unreadable(path: name, reason: "not a regular file (a pipe or a device); send a stream to '-' instead")
        }
        guard info.st_size > 0 else { throw AudioError.empty(path: name) }
        let input = try FileInput(path: file, name: name)
        let kind = AudioFileLoader.sniff(Data(try input.read(12)))
        switch kind {
        case .wav:
            try input.rewind()
            return try WAVDecoder().open(input, path: name)
        case .sndfile:
            do { return try SndFileStream(path: file, displayName: name) } catch let error as AudioError {
                guard FFmpegStream.executable != nil else { throw error }
                return try FFmpegStream(path: file, displayName: name)
            }
        case .ffmpegOnly, .unknown:
            if FFmpegStream.executable == nil && kind == .unknown {
                throw AudioError.notAudio(path: name, detail: "unrecognised content; ffmpeg is not installed to try harder")
            }
            return try FFmpegStream(path: file, displayName: name)
        }
    }

    /// Standard input copied to a private temporary file, refused past `AudioFileLoader.standardInputLimit`
    /// (`cat /dev/zero` must end in an error, not fill the disk).
    /// Standard input copied whole to a private temporary file (mode 600), for a caller that must read it more
    /// than once (transcription and diarization of one piped recording); the caller removes the file.
    public static func copyStandardInput() throws -> URL {
        let copy = FileManager.default.temporaryDirectory.appendingPathComponent("earshot-stdin-\(UUID().uuidString)")
        guard FileManager.default.createFile(atPath: copy.path, contents: nil, attributes: [.posixPermissions: 0o600]),
              let out = FileHandle(forWritingAtPath: copy.path) else {
            throw AudioError.unreadable(path: "<stdin>", reason: "cannot create a temporary copy in \(copy.deletingLastPathComponent().path)")
        }
        defer { try? out.close() }
        do {
            try AudioFileLoader.readStandardInput { try out.write(contentsOf: $0) }
        } catch {
            try? FileManager.default.removeItem(at: copy)
            if error is AudioError { throw error }
            throw AudioError.unreadable(path: "<stdin>", reason: error.localizedDescription)
        }
        return copy
    }
}
