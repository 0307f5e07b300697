import EarshotCore
import Foundation
import XCTest

/// The mixed-radix FFT against a direct transform in double precision, on sizes that use each of its stages.
final class MixedRadixFFTTests: XCTestCase {
    func testPowerSpectraMatchADirectTransform() {
        // 400: Whisper's frames (200 = 4·2·5·5); the others put radix 3, a lone 2, and 5 first to work
        for size in [2, 6, 8, 10, 18, 30, 64, 90, 400, 480] {
            let fft = MixedRadixFFT(size: size)
            var rng = SplitMix64(seed: UInt64(size))
            let frame = (0..<size).map { _ in Float(rng.next() >> 40) / Float(1 << 24) - 0.5 }
            var power: [Float] = [], work: [Float] = []
            frame.withUnsafeBufferPointer { fft.powerSpectrum($0, into: &power, work: &work) }
            var worst = 0.0, largest = 0.0
            for k in 0...(size / 2) {
                var re = 0.0, im = 0.0
                for n in 0..<size {
                    let angle = -2 * Double.pi * Double(k * n % size) / Double(size)
                    re += Double(frame[n]) * cos(angle)
                    im += Double(frame[n]) * sin(angle)
                }
                let expected = re * re + im * im
                worst = max(worst, abs(expected - Double(power[k])))
                largest = max(largest, expected)
            }
            XCTAssertLessThan(worst, 1e-5 * max(1, largest), "size \(size): largest difference from the direct transform")
        }
    }
}
