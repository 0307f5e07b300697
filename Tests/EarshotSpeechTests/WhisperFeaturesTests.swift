import EarshotCore
@testable import EarshotSpeech
import Foundation
import XCTest

/// Whisper's log-mel front-end against a direct transform in double precision written out here, frame by frame.
final class WhisperFeaturesTests: XCTestCase {
    func testTheFeaturesMatchADirectTransform() throws {
        let rate = 16_000.0
        let samples = (0..<8000).map { i -> Float in
            let t = Double(i) / rate
            return Float(0.3 * sin(2 * .pi * 440 * t) + 0.1 * sin(2 * .pi * 3150 * t) + 0.01 * cos(Double(i) * 0.37))
        }
        let features = WhisperFeatures(melBands: 80)
        // no padding, padding that the end's reflection reaches into the samples through (< 202), and more than a
        // window of it (the front-end then makes only the part that can hold sound)
        for padding in [0, 100, 1600] {
            try check(features, samples, padding: padding)
        }
    }

    private func check(_ features: WhisperFeatures, _ samples: [Float], padding: Int) throws {
        let (mel, frames) = features.compute(samples[...], paddingSamples: padding)
        XCTAssertEqual(frames, (samples.count + padding) / 160)
        // reference: reflect-padded frames, periodic Hann, |DFT|², the same Slaney filters, log10, clamp, scale
        let signal = samples.map(Double.init) + [Double](repeating: 0, count: padding)
        var padded = [Double](repeating: 0, count: signal.count + 400)
        for (i, s) in signal.enumerated() { padded[200 + i] = s }
        for i in 0..<200 { padded[199 - i] = signal[1 + i]; padded[200 + signal.count + i] = signal[signal.count - 2 - i] }
        var settings = LogMelSpectrogram.Settings.yamnet
        settings.fftSize = 400; settings.melBands = 80; settings.lowHz = 0; settings.highHz = 8000; settings.melScale = .slaney
        let filters = LogMelSpectrogram.melFilters(settings)
        var reference = [[Double]](repeating: [], count: frames)
        for f in 0..<frames {
            var power = [Double](repeating: 0, count: 201)
            for k in 0..<201 {
                var re = 0.0, im = 0.0
                for n in 0..<400 {
                    let x = padded[f * 160 + n] * (0.5 - 0.5 * cos(2 * .pi * Double(n) / 400))
                    re += x * cos(2 * .pi * Double(k * n) / 400)
                    im -= x * sin(2 * .pi * Double(k * n) / 400)
                }
                power[k] = re * re + im * im
            }
            reference[f] = (0..<80).map { b in log10(max((0..<201).reduce(0) { $0 + power[$1] * Double(filters[$1][b]) }, 1e-10)) }
        }
        let peak = reference.flatMap { $0 }.max()!
        var worst = 0.0, total = 0.0
        for f in 0..<frames {
            for b in 0..<80 {
                let expected = (max(reference[f][b], peak - 8) + 4) / 4
                worst = max(worst, abs(expected - Double(mel[b * frames + f])))
                total += abs(expected - Double(mel[b * frames + f]))
            }
        }
        print("features, \(padding) samples of padding: largest difference \(worst), mean \(total / Double(frames * 80))")
        XCTAssertLessThan(worst, 1e-3, "largest difference from the direct transform, \(padding) samples of padding")
    }
}
