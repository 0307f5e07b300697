import CInt8Kernels
import EarshotCore
@testable import EarshotSpeech
import Foundation
import XCTest

/// Whisper's vocabulary projection as Earshot ships it (int8 rows with a scale each, times the hidden state as int16,
/// the likeliest tokens scored again from the float16 rows) gives the float model's scores where a choice is made,
/// and the same numbers on every CPU: its integer sums are exact, whatever instructions add them.
final class LogitsProjectionTests: XCTestCase {
    /// At base's width (the longest sums), at a width of an odd number of 16-value blocks (the vector loop's lone first
    /// block), at one block, and at a width that is no multiple of 16 (plain C).
    func testIntegerSumsAreExactAtTheLargestValuesTheKernelCanSee() {
        for width in [512, 400, 16, 24] {
            let (rows, count) = (37, 3)
            var generator = SplitMix64(seed: 11)
            // extremes (±127 × ±32767, all one sign in the first row) and random values
            var weights = [Int8](repeating: 127, count: width) + [Int8](repeating: -127, count: width)
            weights += (0..<((rows - 2) * width)).map { _ in Int8.random(in: -127...127, using: &generator) }
            var states = [Int16](repeating: 32767, count: width)
            states += (0..<((count - 1) * width)).map { _ in Int16.random(in: -32767...32767, using: &generator) }
            let scales = (0..<rows).map { _ in Float.random(in: 0.001...0.1, using: &generator) }
            let stateScales: [Float] = [0.0003, 0.002, 1.5]
            var out = [Float](repeating: .nan, count: count * rows)
            earshot_int8_project(weights, scales, 0, Int32(rows), Int32(width), states, stateScales, Int32(count), &out, Int32(rows))
            for r in 0..<count {
                for v in 0..<rows {
                    let sum = (0..<width).reduce(Int64(0)) { $0 + Int64(weights[v * width + $1]) * Int64(states[r * width + $1]) }
                    XCTAssertEqual(out[r * rows + v], Float(sum) * stateScales[r] * scales[v], "width \(width), row \(v), vector \(r)")
                }
            }
            XCTAssertEqual(out[0], Float(127 * 32767 * width) * stateScales[0] * scales[0], "width \(width): the largest sum did not overflow")
        }
    }

    func testHalfPrecisionRowsAreReadAsTheirExactValues() {
        for bits in UInt16.min...UInt16.max {
            let half = Float(Float16(bitPattern: bits))
            let read = earshot_f16_dot([bits], [1], 1)
            XCTAssertTrue(read == half || (read.isNaN && half.isNaN), "float16 bits \(bits): \(read) instead of \(half)")
        }
    }

    func testStatesAreQuantisedToTheirLargestMagnitude() {
        let x: [Float] = [0.5, -2, 1, 0, 0, 0, 0, 0]
        var q = [Int16](repeating: 0, count: 16), scales: [Float] = [9, 9]
        earshot_int16_quantise(x + [Float](repeating: 0, count: 8), 2, 8, &q, &scales)
        XCTAssertEqual(Array(q[0..<3]), [8192, -32767, 16384])
        XCTAssertEqual(scales, [2 / 32767, 0], "a vector of zeros has no scale")
    }

    /// The shipped tiny.en projection, on hidden states shaped like the decoder's (layer-normalised, scaled).
    func testTheChosenTokenAndItsRivalsAreScoredAsTheFloatModelScoresThem() throws {
        let spec = try WhisperSpec.load(try WhisperModel.tinyEn.files(in: ModelStore()).description)
        guard let path = try WhisperModel.tinyEn.files(in: ModelStore()).projection else {
            return XCTFail("tiny.en has no int8 projection: run `\(ModelStore.installCommand)`")
        }
        let (vocabulary, width) = (spec.n_vocab, spec.n_text_state)
        let file = try Data(contentsOf: URL(fileURLWithPath: path))
        let halves: [Float] = file.withUnsafeBytes { raw in
            let start = raw.baseAddress! + vocabulary * width + vocabulary * 4
            return (0..<(vocabulary * width)).map { Float(Float16(bitPattern: start.loadUnaligned(fromByteOffset: $0 * 2, as: UInt16.self))) }
        }
        var generator = SplitMix64(seed: 3)
        let count = 6
        let states: [Float] = (0..<(count * width)).map { _ in Float.random(in: -2...2, using: &generator) * Float.random(in: 0...3, using: &generator) }
        let one = try LogitsProjection(path: path, vocabulary: vocabulary, width: width, threads: 1)
        let two = try LogitsProjection(path: path, vocabulary: vocabulary, width: width, threads: 2)
        let logits = states.withUnsafeBufferPointer { one.logits($0, count: count) }
        XCTAssertEqual(logits, states.withUnsafeBufferPointer { two.logits($0, count: count) }, "the same numbers on any number of threads")
        // tokens asked for by name (the language tokens) are scored in float too, wherever they rank
        let named = [0, 1, 50_000, vocabulary - 1]
        let withNamed = states.withUnsafeBufferPointer { one.logits($0, count: count, exact: named) }
        for r in 0..<count {
            let exact = (0..<vocabulary).map { v in (0..<width).reduce(0.0) { $0 + Double(halves[v * width + $1]) * Double(states[r * width + $1]) } }
            let row = Array(logits[(r * vocabulary)..<((r + 1) * vocabulary)])
            let spread = exact.max()! - exact.min()!
            let ranked = exact.indices.sorted { exact[$0] > exact[$1] }
            for token in named {
                XCTAssertEqual(Double(withNamed[r * vocabulary + token]), exact[token], accuracy: 1e-4 * spread, "vector \(r), named token \(token)")
            }
            XCTAssertEqual(row.indices.max { row[$0] < row[$1] }, ranked[0], "vector \(r): the float model's choice")
            for token in ranked.prefix(8) {
                XCTAssertEqual(Double(row[token]), exact[token], accuracy: 1e-4 * spread, "vector \(r), rival \(token): scored in float")
            }
            // the rest within the rounding of their int8 weights (half a step of each row's scale, times the state)
            // and of the int16 state (half a step times the row)
            let state = states[(r * width)..<((r + 1) * width)]
            let stateStep = Double(state.map(abs).max()!) / 32767
            for v in row.indices where abs(Double(row[v]) - exact[v]) > 1e-6 * spread {
                let weights = halves[(v * width)..<((v + 1) * width)].map { Double(abs($0)) }
                let bound = weights.max()! / 127 / 2 * state.reduce(0) { $0 + Double(abs($1)) } + stateStep / 2 * weights.reduce(0, +)
                XCTAssertLessThanOrEqual(abs(Double(row[v]) - exact[v]), bound * 1.001 + 1e-5, "vector \(r), token \(v)")
            }
        }
    }
}
