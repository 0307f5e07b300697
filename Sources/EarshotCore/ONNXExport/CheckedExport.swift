import Foundation

/// Writes an exported ONNX model only once ONNX Runtime has loaded it and run it on a probe input and it
/// gave the expected number of finite outputs: an export that reports success is one that works.
public enum CheckedExport {
    public struct Failure: Error, LocalizedError, Equatable {
        public var path: String
        public var problem: String
        public var errorDescription: String? { "\(path): the exported model does not work (\(problem)); nothing was written" }
    }

    /// - Parameters:
    ///   - probe: an input the model must accept (e.g. one window of silence).
    ///   - output: the output to read, which must hold `count` finite numbers.
    public static func write(_ model: Data, to path: String, probe: [String: Tensor], output: String, count: Int) throws {
        let target = URL(fileURLWithPath: path)
        let trial = target.deletingLastPathComponent().appendingPathComponent(".\(target.lastPathComponent).\(UUID().uuidString).tmp")
        try model.write(to: trial)
        defer { try? FileManager.default.removeItem(at: trial) }
        let values: [Float]
        do {
            values = try InferenceSession(path: trial.path).run(probe, outputs: [output])[0].floats
        } catch {
            throw Failure(path: path, problem: "ONNX Runtime refused it: \(error.localizedDescription)")
        }
        guard values.count == count, values.allSatisfy(\.isFinite) else {
            throw Failure(path: path, problem: "\(output) gave \(values.count) values, expected \(count) finite ones")
        }
        // the same bytes, moved into place whole (rename within one folder is atomic)
        guard rename(trial.path, target.path) == 0 else {
            throw Failure(path: path, problem: "cannot move it into place: \(String(cString: strerror(errno)))")
        }
    }
}
