internal import COnnxRuntime
import Foundation

public enum ONNXRuntimeError: Error, LocalizedError, Equatable {
    case unavailable(String)
    case failed(code: Int, message: String, during: String)

    public var errorDescription: String? {
        switch self {
        case let .unavailable(detail): return "ONNX Runtime is unavailable (\(detail)); reinstall it with `\(ModelStore.installCommand)` in the Earshot source folder"
        case let .failed(_, message, during): return "ONNX Runtime could not \(during): \(message)"
        }
    }

    /// ONNX Runtime's error code (2 invalid argument, 3 no such file, ...).
    public var code: Int? { if case let .failed(code, _, _) = self { return code } else { return nil } }
}

/// The process-wide API table and environment of the libonnxruntime that setup installed.
final class ONNXRuntime: @unchecked Sendable {
    static let apiVersion: UInt32 = 15
    static let shared = Result { try ONNXRuntime() }

    let api: EarshotOrtApi
    let version: String
    let env: OpaquePointer
    let memoryInfo: OpaquePointer
    let allocator: OpaquePointer

    private init() throws {
        var versionPointer: UnsafePointer<CChar>?
        guard let api = earshot_ort_api(Self.apiVersion, &versionPointer) else {
            throw ONNXRuntimeError.unavailable("API version \(Self.apiVersion) not offered")
        }
        self.api = api
        version = versionPointer.map { String(cString: $0) } ?? "?"
        var env: OpaquePointer?, info: OpaquePointer?, allocator: OpaquePointer?
        // FATAL level: a failed Run is reported through its status, not printed
        try Self.check(api, earshot_ort_create_env(api, Int32(EARSHOT_ORT_LOGGING_FATAL), "earshot", &env), "create its environment")
        try Self.check(api, earshot_ort_create_cpu_memory_info(api, &info), "describe CPU memory")
        try Self.check(api, earshot_ort_default_allocator(api, &allocator), "get its allocator")
        self.env = env!
        memoryInfo = info!
        self.allocator = allocator!
    }

    static func check(_ api: EarshotOrtApi, _ status: OpaquePointer?, _ during: String) throws {
        guard let status else { return }
        let message = String(cString: earshot_ort_error_message(api, status))  // copied before release
        let code = Int(earshot_ort_error_code(api, status))
        earshot_ort_release_status(api, status)
        throw ONNXRuntimeError.failed(code: code, message: message, during: during)
    }

    func check(_ status: OpaquePointer?, _ during: String) throws { try Self.check(api, status, during) }
}

/// One loaded ONNX model. Immutable once loaded, and shareable: ONNX Runtime allows concurrent `Run` calls
/// on one session, and `run` keeps its buffers local (hence the unchecked conformance over the C handle).
public final class InferenceSession: @unchecked Sendable {
    public let path: String
    public let inputNames: [String]
    public let outputNames: [String]
    private let runtime: ONNXRuntime
    private let session: OpaquePointer

    public static var runtimeVersion: String? { try? ONNXRuntime.shared.get().version }

    /// Whether every session in the process, sherpa-onnx's Whisper and VAD included, is created without ONNX
    /// Runtime's CPU memory arena and memory patterns (see `earshot_ort_options.c`): they keep each run's
    /// high-water mark, and a two-hour transcription with Whisper base grew by 300 MB with them.
    public static var sessionsFreeTheirMemory: Bool { earshot_ort_options_in_effect() != 0 }

    public init(path: String, threads: Int = 1) throws {
        runtime = try ONNXRuntime.shared.get()
        let api = runtime.api
        var options: OpaquePointer?
        try runtime.check(earshot_ort_create_session_options(api, &options), "create session options")
        defer { earshot_ort_release_session_options(api, options) }
        try runtime.check(earshot_ort_set_intra_op_threads(api, options, Int32(threads)), "set threads")
        try runtime.check(earshot_ort_set_inter_op_threads(api, options, 1), "set threads")
        try runtime.check(earshot_ort_set_optimization_level(api, options, Int32(EARSHOT_ORT_ENABLE_ALL)), "set optimisation")
        var session: OpaquePointer?
        try runtime.check(earshot_ort_create_session(api, runtime.env, path, options, &session), "load \(path)")
        self.session = session!
        self.path = path
        func names(_ count: (OpaquePointer?, UnsafeMutablePointer<Int>) -> OpaquePointer?,
                   _ name: (OpaquePointer?, Int, OpaquePointer?, UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>) -> OpaquePointer?,
                   runtime: ONNXRuntime, session: OpaquePointer) throws -> [String] {
            var n = 0
            try runtime.check(count(session, &n), "list model inputs/outputs")
            return try (0..<n).map { i in
                var raw: UnsafeMutablePointer<CChar>?
                try runtime.check(name(session, i, runtime.allocator, &raw), "read a name")
                defer { _ = earshot_ort_allocator_free(runtime.api, runtime.allocator, raw) }
                return String(cString: raw!)
            }
        }
        inputNames = try names({ earshot_ort_input_count(api, $0, $1) }, { earshot_ort_input_name(api, $0, $1, $2, $3) },
                               runtime: runtime, session: self.session)
        outputNames = try names({ earshot_ort_output_count(api, $0, $1) }, { earshot_ort_output_name(api, $0, $1, $2, $3) },
                                runtime: runtime, session: self.session)
    }

    deinit { earshot_ort_release_session(runtime.api, session) }

    /// Runs the model on named inputs and returns the named outputs, in order.
    public func run(_ inputs: [String: Tensor], outputs: [String]) throws -> [Tensor] {
        let api = runtime.api
        var values: [OpaquePointer?] = []
        var buffers: [UnsafeMutableRawPointer] = []
        defer {
            values.forEach { earshot_ort_release_value(api, $0) }
            buffers.forEach { $0.deallocate() }
        }
        let names = Array(inputs.keys)
        for name in names {
            let tensor = inputs[name]!
            let (buffer, count, type) = Self.copy(tensor.storage)
            buffers.append(buffer)
            var value: OpaquePointer?
            let shape = tensor.shape.map(Int64.init)
            try runtime.check(earshot_ort_create_tensor_with_data(api, runtime.memoryInfo, buffer, count, shape, shape.count,
                                                                 type, &value), "create input \(name)")
            values.append(value)
        }
        var results = [OpaquePointer?](repeating: nil, count: outputs.count)
        defer { results.forEach { if let v = $0 { earshot_ort_release_value(api, v) } } }
        try withCStrings(names) { inputNamePointers in
            try withCStrings(outputs) { outputNamePointers in
                try values.withUnsafeBufferPointer { inputValues in
                    let status = inputValues.withMemoryRebound(to: OpaquePointer?.self) { rebound in
                        earshot_ort_run(api, session, inputNamePointers, rebound.baseAddress, names.count,
                                        outputNamePointers, outputs.count, &results)
                    }
                    try runtime.check(status, "run \((path as NSString).lastPathComponent)")
                }
            }
        }
        return try results.map { try read($0!) }
    }

    private func read(_ value: OpaquePointer) throws -> Tensor {
        let api = runtime.api
        var info: OpaquePointer?
        try runtime.check(earshot_ort_tensor_shape_info(api, value, &info), "read an output's shape")
        defer { earshot_ort_release_shape_info(api, info) }
        var type: Int32 = 0, rank = 0
        try runtime.check(earshot_ort_element_type(api, info, &type), "read an output's type")
        try runtime.check(earshot_ort_dimension_count(api, info, &rank), "read an output's rank")
        var dims = [Int64](repeating: 0, count: rank)
        try runtime.check(earshot_ort_dimensions(api, info, &dims, rank), "read an output's shape")
        let shape = dims.map(Int.init)
        let count = shape.reduce(1, *)
        var raw: UnsafeMutableRawPointer?
        try runtime.check(earshot_ort_tensor_data(api, value, &raw), "read an output")
        switch Int(type) {
        case Int(EARSHOT_ORT_FLOAT):
            return Tensor(shape: shape, floats: Array(UnsafeBufferPointer(start: raw!.assumingMemoryBound(to: Float.self), count: count)))
        case Int(EARSHOT_ORT_UINT8):
            return Tensor(shape: shape, bytes: Array(UnsafeBufferPointer(start: raw!.assumingMemoryBound(to: UInt8.self), count: count)))
        case Int(EARSHOT_ORT_INT64):
            return Tensor(shape: shape, int64s: Array(UnsafeBufferPointer(start: raw!.assumingMemoryBound(to: Int64.self), count: count)))
        default:
            throw ONNXRuntimeError.failed(code: 0, message: "unsupported element type \(type)", during: "read an output")
        }
    }

    private static func copy(_ storage: Tensor.Storage) -> (UnsafeMutableRawPointer, Int, Int32) {
        func raw<T>(_ array: [T], _ type: Int32) -> (UnsafeMutableRawPointer, Int, Int32) {
            let bytes = max(1, array.count * MemoryLayout<T>.stride)
            let buffer = UnsafeMutableRawPointer.allocate(byteCount: bytes, alignment: 64)
            array.withUnsafeBytes { buffer.copyMemory(from: $0.baseAddress!, byteCount: $0.count) }
            return (buffer, array.count * MemoryLayout<T>.stride, type)
        }
        switch storage {
        case let .float(v): return raw(v, Int32(EARSHOT_ORT_FLOAT))
        case let .uint8(v): return raw(v, Int32(EARSHOT_ORT_UINT8))
        case let .int64(v): return raw(v, Int32(EARSHOT_ORT_INT64))
        }
    }
}

/// Calls `body` with a C array of C strings that lives for the call.
private func withCStrings<R>(_ strings: [String], _ body: (UnsafePointer<UnsafePointer<CChar>?>) throws -> R) rethrows -> R {
    let copies = strings.map { UnsafePointer(strdup($0)) }
    defer { copies.forEach { free(UnsafeMutablePointer(mutating: $0)) } }
    return try copies.withUnsafeBufferPointer { try body($0.baseAddress!) }
}
