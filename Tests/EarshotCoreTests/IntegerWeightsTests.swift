import EarshotCore
import EarshotTestSupport
import Foundation
import XCTest

/// The installed networks' integer weights cannot give CPU-dependent sums. ONNX Runtime's u8 × s8 kernels for AVX2
/// (and AVX-512 without VNNI) add pairs of products in int16; VNNI adds in int32. So a model whose int8 weights
/// could saturate in pairs gives other answers on an AVX2 machine than on the VNNI machine a test runs on, which
/// no comparison of outputs here could show. This reads the weights themselves (Tests/Reference/integer_pairs.py,
/// with the rule of tools/integer_weights.py).
final class IntegerWeightsTests: XCTestCase {
    func testNoInstalledIntegerWeightCanSaturateOnAnyCPU() throws {
        let home = ModelStore.defaultHome
        let python = home.appendingPathComponent("venv/bin/python").path
        guard FileManager.default.isExecutableFile(atPath: python) else { throw XCTSkip("setup's Python venv is missing: run make setup") }
        let models = ["whisper-tiny.en/model-encoder.onnx", "whisper-tiny.en/model-decoder.onnx",
                      "whisper-base/model-encoder.onnx", "whisper-base/model-decoder.onnx", "speaker/embedder.s8-paired.onnx"]
            .map { home.appendingPathComponent("models/\($0)").path }
        for path in models where !FileManager.default.fileExists(atPath: path) { throw XCTSkip("\(path) is missing: run make setup") }
        let out = try TestAudio.run(python, [FloatReference.path(of: "integer_pairs.py")] + models)
        let reports = try XCTUnwrap(try JSONSerialization.jsonObject(with: out) as? [String: [String: Int]])
        for path in models {
            let report = try XCTUnwrap(reports[path], path)
            XCTAssertGreaterThan(report["int8", default: 0] + report["uint8", default: 0], 0, "\(path) has no integer weights")
            XCTAssertEqual(report["clashing_pairs"], 0, "\(path): int8 weight pairs that AVX2's kernels could saturate")
            XCTAssertEqual(report["bad_zero_points"], 0, "\(path): weights that are not symmetric int8 (zero point 0, or 128 as uint8)")
        }
    }
}
