import EarshotCore
import EarshotTestSupport
import Foundation
import XCTest

/// Given WAV files of every common encoding, expect the same samples back.
final class WAVDecoderTests: XCTestCase {
    let ramp: [Float] = [0, 0.25, -0.25, 0.5, -0.5, 0.75, -1]

    private func bytes<T: FixedWidthInteger>(_ values: [T]) -> Data {
        var d = Data()
        for v in values { withUnsafeBytes(of: v.littleEndian) { d.append(contentsOf: $0) } }
        return d
    }

    func testDecodesEveryIntegerWidth() throws {
        let cases: [(bits: Int, body: Data, tolerance: Float)] = [
            (8, Data(ramp.map { UInt8(max(0, min(255, Int(($0 * 128).rounded()) + 128))) }), 1 / 128),
            (16, bytes(ramp.map { Int16(max(-32768, min(32767, Int(($0 * 32768).rounded())))) }), 1 / 32768),
            (24, Data(ramp.flatMap { v -> [UInt8] in
                let i = Int32(max(-8_388_608, min(8_388_607, Int((v * 8_388_608).rounded()))))
                return [UInt8(truncatingIfNeeded: i), UInt8(truncatingIfNeeded: i >> 8), UInt8(truncatingIfNeeded: i >> 16)]
            }), 1e-6),
            (32, bytes(ramp.map { Int32(max(-2_147_483_648, min(2_147_483_647, Int64((Double($0) * 2_147_483_648).rounded())))) }), 1e-6),
        ]
        for c in cases {
            let file = TestAudio.wavFile(format: 1, channels: 1, rate: 8000, bits: c.bits, body: c.body)
            let audio = try WAVDecoder().decode(file, path: "pcm\(c.bits).wav")
            XCTAssertEqual(audio.sampleRate, 8000)
            XCTAssertEqual(audio.interleaved.count, ramp.count, "\(c.bits)-bit")
            for (a, b) in zip(audio.interleaved, ramp) { XCTAssertEqual(a, b, accuracy: c.tolerance, "\(c.bits)-bit") }
        }
    }

    func testDecodesFloat32And64AndExtensible() throws {
        let f32 = bytes(ramp.map { $0.bitPattern })
        let f64 = bytes(ramp.map { Double($0).bitPattern })
        for (bits, body, extensible) in [(32, f32, false), (64, f64, false), (32, f32, true)] {
            let file = TestAudio.wavFile(format: 3, channels: 1, rate: 44100, bits: bits, body: body, extensible: extensible)
            let audio = try WAVDecoder().decode(file, path: "float.wav")
            XCTAssertEqual(audio.interleaved, ramp)
        }
    }

    func testStereoIsDownmixedByAveraging() throws {
        let frames: [Float] = [0.5, -0.5, 1, 0, 0.25, 0.75]
        let file = TestAudio.wavFile(format: 3, channels: 2, rate: 48000, bits: 32, body: bytes(frames.map { $0.bitPattern }))
        let audio = try WAVDecoder().decode(file, path: "stereo.wav")
        XCTAssertEqual(audio.channels, 2)
        XCTAssertEqual(audio.downmixed().samples, [0, 0.5, 0.5])
    }

    func testStreamingSizeMeansReadToTheEnd() throws {
        let body = bytes([Int16(1000), Int16(-1000)])
        // 0x7FFFF000 is what sox and arecord write to a pipe (`sox a.wav -t wav - | earshot transcribe -`)
        for placeholder: UInt32 in [0xFFFF_FFFF, 0x7FFF_F000, 0] {
            let file = TestAudio.wavFile(format: 1, channels: 1, rate: 16000, bits: 16, body: body, declaredDataSize: placeholder)
            XCTAssertEqual(try WAVDecoder().decode(file, path: "stream.wav").interleaved.count, 2, "\(placeholder)")
        }
    }

    /// What sox writes to a pipe when it cannot know the length (a placeholder size), read as the CLI reads stdin.
    func testSoxWritingToAPipeIsRead() throws {
        let dir = TestAudio.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let piped = dir.appendingPathComponent("piped.wav")
        _ = try TestAudio.run("sh", ["-c", "sox -n -r 16000 -c 1 -t wav - synth 1 sine 440 | cat > '\(piped.path)'"])
        let data = try Data(contentsOf: piped)
        XCTAssertEqual(data[data.startIndex + 4..<data.startIndex + 8], Data([0x48, 0xF0, 0xFF, 0x7F]), "sox wrote its placeholder")
        let audio = try AudioFileLoader().load(data: data, name: "<stdin>")
        XCTAssertEqual(audio.duration, 1, accuracy: 0.01)
    }

    func testLyingHeaderIsRefusedWithTheSizes() {
        let file = TestAudio.wavFile(format: 1, channels: 1, rate: 16000, bits: 16, body: bytes([Int16(1)]), declaredDataSize: 4000)
        XCTAssertThrowsError(try WAVDecoder().decode(file, path: "liar.wav")) { error in
            XCTAssertEqual(error as? AudioError, .truncated(path: "liar.wav", detail: "header promises 4000 bytes of audio, file holds 2"))
        }
    }

    func testUnsupportedEncodingIsNamed() {
        let file = TestAudio.wavFile(format: 2, channels: 1, rate: 16000, bits: 4, body: Data([1, 2]))
        XCTAssertThrowsError(try WAVDecoder().decode(file, path: "adpcm.wav")) { error in
            XCTAssertTrue(error.localizedDescription.contains("adpcm.wav: unsupported audio format (WAV format code 2"))
        }
    }

    func testHeaderOnlyFileHasNoDataChunk() {
        let file = TestAudio.wavFile(format: 1, channels: 1, rate: 16000, bits: 16, body: Data()).prefix(36)
        XCTAssertThrowsError(try WAVDecoder().decode(Data(file), path: "cut.wav")) { error in
            XCTAssertEqual(error as? AudioError, .truncated(path: "cut.wav", detail: "no data chunk"))
        }
    }
}
