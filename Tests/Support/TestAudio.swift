import EarshotCore
import Foundation

/// Real audio for tests: speech synthesised with espeak-ng, tones, and files written with sox/ffmpeg.
public enum TestAudio {
    /// A fresh temporary folder, removed by the caller when done.
    public static func temporaryDirectory() -> URL {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("earshot-test-\(UUID().uuidString)")
        try? FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        return dir
    }

    /// Speaks `text` with espeak-ng into a WAV file (22.05 kHz mono, as espeak writes it).
    public static func speak(_ text: String, to url: URL, voice: String = "en-us", wordsPerMinute: Int = 150) throws {
        try run("espeak-ng", ["-v", voice, "-s", String(wordsPerMinute), "-w", url.path, text])
    }

    /// Speaks `text` and returns it as 16 kHz mono samples.
    public static func speech(_ text: String, voice: String = "en-us") throws -> AudioBuffer {
        let dir = temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let wav = dir.appendingPathComponent("speech.wav")
        try speak(text, to: wav, voice: voice)
        return try AudioFileLoader().load(path: wav.path)
    }

    public static func silence(seconds: Double, rate: Int = 16_000) -> [Float] {
        [Float](repeating: 0, count: Int(seconds * Double(rate)))
    }

    public static func tone(frequency: Double, seconds: Double, rate: Int, amplitude: Double = 0.5) -> [Float] {
        (0..<Int(seconds * Double(rate))).map { Float(amplitude * sin(2 * .pi * frequency * Double($0) / Double(rate))) }
    }

    /// Headerless little-endian 16-bit PCM, as `arecord -t raw -f S16_LE` writes it.
    public static func rawS16(_ samples: [Float]) -> Data {
        var raw = Data(capacity: samples.count * 2)
        for s in samples { withUnsafeBytes(of: Int16(max(-32767, min(32767, s * 32767))).littleEndian) { raw.append(contentsOf: $0) } }
        return raw
    }

    /// A pipe whose reading end delivers `data`, then end of file.
    public static func pipe(delivering data: Data) -> FileHandle {
        let pipe = Pipe()
        let writer = pipe.fileHandleForWriting
        DispatchQueue.global().async {
            writer.write(data)
            try? writer.close()
        }
        return pipe.fileHandleForReading
    }

    /// A 16-bit PCM WAV file image.
    public static func wav16(_ samples: [Float], rate: Int, channels: Int = 1) -> Data {
        var body = Data()
        for s in samples {
            let v = Int16(max(-32768, min(32767, (s * 32767).rounded())))
            withUnsafeBytes(of: v.littleEndian) { body.append(contentsOf: $0) }
        }
        return wavFile(format: 1, channels: channels, rate: rate, bits: 16, body: body)
    }

    /// A WAV file image with the given fmt fields and raw sample bytes.
    public static func wavFile(format: UInt16, channels: Int, rate: Int, bits: Int, body: Data,
                               extensible: Bool = false, declaredDataSize: UInt32? = nil) -> Data {
        var fmt = Data()
        func put<T: FixedWidthInteger>(_ v: T, _ d: inout Data) { withUnsafeBytes(of: v.littleEndian) { d.append(contentsOf: $0) } }
        let blockAlign = channels * bits / 8
        put(extensible ? UInt16(0xFFFE) : format, &fmt)
        put(UInt16(channels), &fmt); put(UInt32(rate), &fmt); put(UInt32(rate * blockAlign), &fmt)
        put(UInt16(blockAlign), &fmt); put(UInt16(bits), &fmt)
        if extensible {
            put(UInt16(22), &fmt); put(UInt16(bits), &fmt); put(UInt32(0), &fmt)
            put(format, &fmt)
            fmt.append(contentsOf: [0x00, 0x00, 0x00, 0x00, 0x10, 0x00, 0x80, 0x00, 0x00, 0xAA, 0x00, 0x38, 0x9B, 0x71])
        }
        var out = Data("RIFF".utf8)
        put(UInt32(4 + 8 + fmt.count + 8 + body.count), &out)
        out.append(Data("WAVEfmt ".utf8)); put(UInt32(fmt.count), &out); out.append(fmt)
        out.append(Data("data".utf8)); put(declaredDataSize ?? UInt32(body.count), &out); out.append(body)
        return out
    }

    /// Runs a tool and fails with its stderr when it fails.
    @discardableResult
    public static func run(_ tool: String, _ arguments: [String], stdin: Data? = nil) throws -> Data {
        guard let path = tool.contains("/") ? (FileManager.default.isExecutableFile(atPath: tool) ? tool : nil)
            : findExecutable(tool) else { throw TestSupportError.missingTool(tool) }
        let p = Process()
        p.executableURL = URL(fileURLWithPath: path)
        p.arguments = arguments
        let out = Pipe(), err = Pipe()
        p.standardOutput = out
        p.standardError = err
        let input = Pipe()
        p.standardInput = stdin == nil ? FileHandle.nullDevice : input
        try p.run()
        if let stdin {
            input.fileHandleForWriting.write(stdin)
            try? input.fileHandleForWriting.close()
        }
        let data = out.fileHandleForReading.readDataToEndOfFile()
        let errors = err.fileHandleForReading.readDataToEndOfFile()
        p.waitUntilExit()
        guard p.terminationStatus == 0 else {
            throw TestSupportError.toolFailed(tool, String(decoding: errors, as: UTF8.self))
        }
        return data
    }
}

public enum TestSupportError: Error, CustomStringConvertible {
    case missingTool(String)
    case toolFailed(String, String)

    public var description: String {
        switch self {
        case let .missingTool(t): return "\(t) is not installed (run make setup)"
        case let .toolFailed(t, e): return "\(t) failed: \(e)"
        }
    }
}

/// Speech with known word boundaries: each word spoken alone by espeak-ng, cut to its sound, and joined with the
/// pauses given, so every word's true start and end are known to the sample.
public struct SpacedWords {
    public let audio: AudioBuffer
    /// (word, start, end) in seconds.
    public let words: [(word: String, start: Double, end: Double)]

    public init(_ words: [String], pauses: [Double], lead: Double = 0.5) throws {
        var samples = TestAudio.silence(seconds: lead)
        var timed: [(String, Double, Double)] = []
        for (i, word) in words.enumerated() {
            let spoken = try TestAudio.speech(word).samples
            let peak = spoken.map(abs).max() ?? 0
            let loud = spoken.indices.filter { abs(spoken[$0]) > peak * 0.01 }  // 40 dB under the peak
            guard let first = loud.first, let last = loud.last else { continue }
            let start = Double(samples.count) / 16_000
            samples += spoken[first...last]
            timed.append((word, start, Double(samples.count) / 16_000))
            samples += TestAudio.silence(seconds: pauses[i % pauses.count])
        }
        audio = AudioBuffer(samples: samples + TestAudio.silence(seconds: lead), sampleRate: 16_000)
        self.words = timed
    }
}
