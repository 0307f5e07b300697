import EarshotCore
import Foundation
import XCTest

/// Our ONNX Runtime declarations call the right entries: a wrong ordinal would give plausible nonsense,
/// so check the runtime's version, real names and shapes, and the exact errors of deliberate mistakes.
final class InferenceSessionTests: XCTestCase {
    var yamnet: String!

    override func setUpWithError() throws {
        yamnet = try ModelStore().file("models/yamnet/yamnet.onnx", of: "YAMNet")
    }

    /// sherpa-onnx's sessions get Earshot's options only if the program resolves OrtGetApiBase to Earshot's
    /// definition; a link that lost it would let long transcriptions grow again without any other sign.
    func testEverySessionIsCreatedWithoutTheMemoryArena() {
        XCTAssertTrue(InferenceSession.sessionsFreeTheirMemory)
    }

    /// Waiting threads give their core back (a second transcription, a test lane or the language model needs it),
    /// read back from the options every session starts from.
    func testSessionThreadsSleepWhileTheyWait() throws {
        let spinRequested = ProcessInfo.processInfo.environment["EARSHOT_ORT_SPIN"] != nil
        XCTAssertEqual(try InferenceSession.sessionsSpinWhileWaiting, spinRequested)
    }

    func testVersionNamesAndShapes() throws {
        XCTAssertEqual(InferenceSession.runtimeVersion?.hasPrefix("1.28"), true, InferenceSession.runtimeVersion ?? "none")
        let session = try InferenceSession(path: yamnet)
        XCTAssertEqual(session.inputNames, ["log_mel"])
        XCTAssertEqual(session.outputNames, ["logits", "embedding"])
        let out = try session.run(["log_mel": Tensor(shape: [1, 1, 96, 64], floats: [Float](repeating: -6.9, count: 96 * 64))],
                                  outputs: ["logits", "embedding"])
        XCTAssertEqual(out[0].shape, [1, 521])
        XCTAssertEqual(out[1].shape, [1, 1024, 1, 1])
        XCTAssertNil(out[0].bytes)
    }

    func testDeliberateMistakesGiveRuntimeErrors() throws {
        XCTAssertThrowsError(try InferenceSession(path: "/nonexistent/model.onnx")) { error in
            XCTAssertEqual((error as? ONNXRuntimeError)?.code, 3, error.localizedDescription)
        }
        let session = try InferenceSession(path: yamnet)
        let good = Tensor(shape: [1, 1, 96, 64], floats: [Float](repeating: 0, count: 96 * 64))
        XCTAssertThrowsError(try session.run(["nope": good], outputs: ["logits"])) { error in
            XCTAssertEqual((error as? ONNXRuntimeError)?.code, 2)
            XCTAssertTrue(error.localizedDescription.contains("Invalid input name"), error.localizedDescription)
        }
        XCTAssertThrowsError(try session.run(["log_mel": Tensor(shape: [1, 1, 48, 64], floats: [Float](repeating: 0, count: 48 * 64))],
                                             outputs: ["logits"])) { error in
            XCTAssertEqual((error as? ONNXRuntimeError)?.code, 2, error.localizedDescription)
        }
        XCTAssertThrowsError(try session.run(["log_mel": Tensor(shape: [1, 1, 96, 64], bytes: [UInt8](repeating: 0, count: 96 * 64))],
                                             outputs: ["logits"])) { error in
            XCTAssertEqual((error as? ONNXRuntimeError)?.code, 2, error.localizedDescription)
        }
    }
}
