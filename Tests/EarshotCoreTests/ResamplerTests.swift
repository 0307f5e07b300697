import EarshotCore
import EarshotTestSupport
import Foundation
import XCTest

/// Given a 1 kHz tone at common rates, expect a clean 1 kHz tone at 16 kHz (SNR ≥ 60 dB).
final class ResamplerTests: XCTestCase {
    func testToneKeepsItsFrequencyAndPurity() throws {
        for rate in [8000, 22050, 44100, 48000] {
            let input = AudioBuffer(samples: TestAudio.tone(frequency: 1000, seconds: 1, rate: rate), sampleRate: rate)
            let output = try Resampler.resample(input, to: 16000)
            XCTAssertEqual(output.samples.count, 16000, accuracy: 2, "\(rate) Hz")
            // skip the filter's edges, then fit the best 1 kHz sinusoid and measure what is left over
            let body = Array(output.samples[800..<15200])
            let (snr, peak) = Self.analyse(body, rate: 16000, frequency: 1000)
            XCTAssertGreaterThanOrEqual(snr, 60, "\(rate) Hz → 16 kHz SNR")
            XCTAssertEqual(peak, 1000, accuracy: 5, "\(rate) Hz → 16 kHz dominant frequency")
        }
    }

    func testStreamingMatchesOneShotLength() throws {
        let tone = TestAudio.tone(frequency: 1000, seconds: 2, rate: 48000)
        let resampler = try StreamingResampler(from: 48000, to: 16000)
        var out: [Float] = []
        for start in stride(from: 0, to: tone.count, by: 4800) {
            out += resampler.process(Array(tone[start..<min(tone.count, start + 4800)]))
        }
        out += resampler.process([], flush: true)
        XCTAssertEqual(out.count, 32000, accuracy: 16)
        XCTAssertGreaterThanOrEqual(Self.analyse(Array(out[1600..<30400]), rate: 16000, frequency: 1000).snr, 60)
    }

    /// Recordings are resampled a block at a time as they are read: uneven blocks must give exactly the
    /// samples of one call over the whole recording, or a transcript would depend on how a file was read.
    func testBlocksGiveExactlyTheSamplesOfOneCall() throws {
        var state: UInt32 = 7
        let noise = (0..<(3 * 44100 + 17)).map { _ -> Float in
            state = state &* 1_664_525 &+ 1_013_904_223
            return Float(state >> 8) / Float(1 << 24) - 0.5
        }
        let whole = try Resampler.resample(AudioBuffer(samples: noise, sampleRate: 44100), to: 16000).samples
        let resampler = try StreamingResampler(from: 44100, to: 16000)
        var blocks: [Float] = []
        var start = 0
        for size in [1, 4410, 65536, 333, 20000] + Array(repeating: 9000, count: 20) where start < noise.count {
            blocks += resampler.process(Array(noise[start..<min(noise.count, start + size)]))
            start += size
        }
        blocks += resampler.process([], flush: true)
        XCTAssertEqual(blocks.count, whole.count)
        XCTAssertEqual(blocks, whole)
    }

    /// Least-squares fit of a sinusoid at `frequency`: SNR of fit vs residual, and the strongest DFT bin.
    static func analyse(_ x: [Float], rate: Int, frequency: Double) -> (snr: Double, peak: Double) {
        let w = 2 * Double.pi * frequency / Double(rate)
        var ss = 0.0, cc = 0.0, sc = 0.0, xs = 0.0, xc = 0.0
        for (n, v) in x.enumerated() {
            let s = sin(w * Double(n)), c = cos(w * Double(n)), xv = Double(v)
            ss += s * s; cc += c * c; sc += s * c; xs += xv * s; xc += xv * c
        }
        let det = ss * cc - sc * sc
        let a = (xs * cc - xc * sc) / det, b = (xc * ss - xs * sc) / det
        var signal = 0.0, noise = 0.0
        for (n, v) in x.enumerated() {
            let fit = a * sin(w * Double(n)) + b * cos(w * Double(n))
            signal += fit * fit
            noise += (Double(v) - fit) * (Double(v) - fit)
        }
        var best = (power: 0.0, hz: 0.0)
        for hz in stride(from: 500.0, through: 1500, by: 10) {
            let wk = 2 * Double.pi * hz / Double(rate)
            var re = 0.0, im = 0.0
            for (n, v) in x.enumerated() { re += Double(v) * cos(wk * Double(n)); im += Double(v) * sin(wk * Double(n)) }
            if re * re + im * im > best.power { best = (re * re + im * im, hz) }
        }
        return (10 * log10(signal / max(noise, 1e-30)), best.hz)
    }
}
