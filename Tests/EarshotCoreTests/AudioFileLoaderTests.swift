import EarshotCore
import EarshotTestSupport
import Foundation
import XCTest

/// Given audio in any container, expect 16 kHz mono; given anything else, expect an error naming the file.
final class AudioFileLoaderTests: XCTestCase {
    var dir: URL!

    override func setUp() { dir = TestAudio.temporaryDirectory() }
    override func tearDown() { try? FileManager.default.removeItem(at: dir) }

    /// A 0.5 s, 1 kHz stereo tone at 44.1 kHz, as a WAV the other formats are made from.
    private func sourceWAV() throws -> URL {
        let tone = TestAudio.tone(frequency: 1000, seconds: 0.5, rate: 44100)
        let url = dir.appendingPathComponent("tone.wav")
        try TestAudio.wav16(tone.flatMap { [$0, $0] }, rate: 44100, channels: 2).write(to: url)
        return url
    }

    func testEveryFormatLoadsAsMono16k() throws {
        let wav = try sourceWAV()
        var files = [wav]
        for ext in ["flac", "ogg", "aiff"] {
            let out = dir.appendingPathComponent("tone.\(ext)")
            try TestAudio.run("sox", [wav.path, out.path])
            files.append(out)
        }
        for (ext, args) in [("mp3", ["-c:a", "libmp3lame"]), ("opus", ["-c:a", "libopus"]), ("m4a", ["-c:a", "aac"]),
                            ("webm", ["-c:a", "libopus"])] {
            let out = dir.appendingPathComponent("tone.\(ext)")
            try TestAudio.run("ffmpeg", ["-v", "error", "-y", "-i", wav.path] + args + [out.path])
            files.append(out)
        }
        for file in files {
            let audio = try AudioFileLoader().load(path: file.path)
            XCTAssertEqual(audio.sampleRate, 16000)
            XCTAssertEqual(audio.duration, 0.5, accuracy: 0.08, file.lastPathComponent)
            let rms = sqrt(audio.samples.map { $0 * $0 }.reduce(0, +) / Float(audio.samples.count))
            XCTAssertEqual(rms, 0.5 / sqrt(2), accuracy: 0.05, file.lastPathComponent)
        }
    }

    /// Half a compressed file is refused as a truncated WAV is, not read in part without a word.
    func testCompressedFilesCutInHalfAreRefusedAsTruncated() throws {
        let tone = TestAudio.tone(frequency: 440, seconds: 6, rate: 16_000, amplitude: 0.3)
        let wav = dir.appendingPathComponent("long.wav")
        try TestAudio.wav16(tone, rate: 16_000).write(to: wav)
        var files: [URL] = []
        for ext in ["flac", "ogg"] {
            let out = dir.appendingPathComponent("long.\(ext)")
            _ = try TestAudio.run("sox", [wav.path, out.path])
            files.append(out)
        }
        let mp3 = dir.appendingPathComponent("long.mp3")
        _ = try TestAudio.run("ffmpeg", ["-v", "error", "-y", "-i", wav.path, "-c:a", "libmp3lame", mp3.path])
        files.append(mp3)
        for file in files {
            XCTAssertEqual(try AudioFileLoader().load(path: file.path).duration, 6, accuracy: 0.1, "whole \(file.lastPathComponent)")
            let cut = dir.appendingPathComponent("cut." + file.pathExtension)
            let data = try Data(contentsOf: file)
            try data.prefix(data.count / 2).write(to: cut)
            // half an Ogg stream has no length left to compare with: libsndfile reads nothing from it
            let expected = file.pathExtension == "ogg" ? ["truncated audio file", "contains no audio samples"] : ["truncated audio file"]
            XCTAssertThrowsError(try AudioFileLoader().load(path: cut.path), file.lastPathComponent) { error in
                XCTAssertTrue(expected.contains { error.localizedDescription.hasPrefix("\(cut.path): \($0)") }, error.localizedDescription)
            }
        }
    }

    func testInMemoryDataLikeStandardInput() throws {
        let flac = dir.appendingPathComponent("tone.flac")
        try TestAudio.run("sox", [try sourceWAV().path, flac.path])
        let audio = try AudioFileLoader().load(data: Data(contentsOf: flac), name: "<stdin>")
        XCTAssertEqual(audio.duration, 0.5, accuracy: 0.01)
    }

    func testBadInputsSayWhatIsWrong() throws {
        let empty = dir.appendingPathComponent("empty.wav")
        try Data().write(to: empty)
        let text = dir.appendingPathComponent("notes.txt")
        try Data("this is not audio at all\n".utf8).write(to: text)
        let zero = dir.appendingPathComponent("zero.wav")
        try TestAudio.wav16([], rate: 16000).write(to: zero)
        let truncated = dir.appendingPathComponent("cut.wav")
        try TestAudio.wav16(TestAudio.tone(frequency: 440, seconds: 1, rate: 16000), rate: 16000).prefix(5000).write(to: truncated)
        let badFlac = dir.appendingPathComponent("bad.flac")
        try Data("fLaC".utf8 + [UInt8](repeating: 7, count: 100)).write(to: badFlac)

        // a forged header: 64 KB of samples claiming 1 Hz would be resampled into hours of audio
        let forged = dir.appendingPathComponent("forged.wav")
        try TestAudio.wav16(TestAudio.tone(frequency: 440, seconds: 2, rate: 16000), rate: 1).write(to: forged)
        let huge = dir.appendingPathComponent("huge-rate.wav")
        try TestAudio.wav16(TestAudio.tone(frequency: 440, seconds: 1, rate: 16000), rate: Int(UInt32.max / 4)).write(to: huge)
        // one NaN in a float WAV would silently empty every result
        var floats = TestAudio.tone(frequency: 440, seconds: 1, rate: 16000)
        floats[8000] = .nan
        floats[9000] = .infinity
        floats[10000] = 3e38  // finite, but mixing or filtering it overflows to infinity (found by fuzz-wav)
        let nan = dir.appendingPathComponent("nan.wav")
        try TestAudio.wavFile(format: 3, channels: 1, rate: 16000, bits: 32,
                              body: floats.withUnsafeBytes { Data($0) }).write(to: nan)

        let fifo = dir.appendingPathComponent("fifo.wav")
        _ = try TestAudio.run("mkfifo", [fifo.path])

        let expectations: [(URL, String)] = [
            (fifo, "fifo.wav: cannot read file (not a regular file (a pipe or a device)"),
            (forged, "forged.wav: damaged audio (its header says 1 Hz; real audio is sampled at 1 kHz to 768 kHz)"),
            (huge, "huge-rate.wav: damaged audio (its header says"),
            (nan, "nan.wav: damaged audio (3 samples from 0:00.50 on are not finite numbers (NaN or infinity) or lie beyond ±1,000,000)"),
            (empty, "empty.wav: file is empty"),
            (text, "notes.txt: not an audio file"),
            (zero, "zero.wav: contains no audio samples"),
            (truncated, "cut.wav: truncated audio file (header promises 32000 bytes of audio, file holds 4956)"),
            (badFlac, "bad.flac: not an audio file"),
            (dir.appendingPathComponent("missing.wav"), "missing.wav: cannot read file (no such file)"),
            (dir, "cannot read file (is a directory)"),
        ]
        for (url, message) in expectations {
            XCTAssertThrowsError(try AudioFileLoader().load(path: url.path), url.lastPathComponent) { error in
                XCTAssertTrue(error.localizedDescription.contains(message), "\(error.localizedDescription) lacks \(message)")
                XCTAssertFalse(error.localizedDescription.contains("\n"), "one line")
            }
        }
    }
}

/// Given a recording read a block at a time, expect exactly the samples of decoding it whole, and memory
/// that does not depend on its length.
final class AudioFileStreamTests: XCTestCase {
    func testBlocksEqualTheWholeFileDecodedAtOnce() throws {
        let dir = TestAudio.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        // 60 s of 44.1 kHz stereo: many blocks, channels that differ, a rate to convert
        let left = TestAudio.tone(frequency: 440, seconds: 60, rate: 44100, amplitude: 0.3)
        let right = TestAudio.tone(frequency: 1200, seconds: 60, rate: 44100, amplitude: 0.2)
        let data = TestAudio.wav16(zip(left, right).flatMap { [$0, $1] }, rate: 44100, channels: 2)
        let url = dir.appendingPathComponent("long.wav")
        try data.write(to: url)

        let whole = try Resampler.resample(try WAVDecoder().decode(data, path: "long.wav").downmixed(), to: 16000)
        let stream = try AudioFileStream(path: url.path, sampleRate: 16000)
        XCTAssertEqual(try XCTUnwrap(stream.expectedDuration), 60, accuracy: 1e-9)
        var samples: [Float] = []
        var largest = 0
        while let block = try stream.read() {
            samples += block
            largest = max(largest, block.count)
        }
        XCTAssertEqual(samples, whole.samples)
        XCTAssertLessThanOrEqual(largest, 2 * 16000, "blocks of about a second, however long the file")
        XCTAssertEqual(stream.durationRead, 60, accuracy: 1e-9)
    }

    func testDamageIsReportedWhereItIs() throws {
        var floats = TestAudio.tone(frequency: 440, seconds: 90, rate: 16000)
        floats[83 * 16000 + 8000] = .nan
        let data = TestAudio.wavFile(format: 3, channels: 1, rate: 16000, bits: 32, body: floats.withUnsafeBytes { Data($0) })
        let stream = try AudioFileStream(data: data, name: "late.wav", sampleRate: 16000)
        XCTAssertThrowsError(try { while try stream.read() != nil {} }()) { error in
            XCTAssertEqual(error.localizedDescription, "late.wav: damaged audio (a sample at 1:23.50 is not a finite number "
                + "(NaN or infinity) or lies beyond ±1,000,000)")
        }
    }
}
