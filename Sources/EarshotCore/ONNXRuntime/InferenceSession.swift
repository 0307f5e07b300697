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

    /// Whether every session in the process, sherpa-onnx's VAD included, is created without ONNX
    /// Runtime's CPU memory arena and memory patterns (see `earshot_ort_options.c`): they keep each run's
    /// high-water mark, and a two-hour transcription with Whisper base grew by 300 MB with them. A session made
    /// `keepingItsMemory` gets its arena back.
    public static var sessionsFreeTheirMemory: Bool { earshot_ort_options_in_effect() != 0 }

    /// Whether sessions' threads spin while they wait for work (ONNX Runtime's default; Earshot's sessions sleep
    /// instead unless `EARSHOT_ORT_SPIN` is set, see `earshot_ort_options.c`), read back from fresh options.
    public static var sessionsSpinWhileWaiting: Bool {
        get throws {
            let runtime = try ONNXRuntime.shared.get()
            var options: OpaquePointer?
            try runtime.check(earshot_ort_create_session_options(runtime.api, &options), "create session options")
            defer { earshot_ort_release_session_options(runtime.api, options) }
            var value = [CChar](repeating: 0, count: 8)
            var size = value.count
            let status = earshot_ort_session_config_entry(runtime.api, options, "session.intra_op.allow_spinning", &value, &size)
            guard status != nil else { return value.withUnsafeBufferPointer { String(cString: $0.baseAddress!) } != "0" }
            earshot_ort_release_status(runtime.api, status)
            return true  // not set: ONNX Runtime spins
        }
    }

    /// `keepingItsMemory`: the session keeps ONNX Runtime's CPU memory arena, which every session is otherwise created
    /// without (`sessionsFreeTheirMemory`), and reuses its buffers from run to run instead of asking the system for
    /// fresh pages each time. Only for a model whose inputs are bounded, so the arena never outgrows its largest
    /// input: the Whisper encoder, given at most 30 s (half its page faults gone, 7–22% less time per base window).
    public init(path: String, threads: Int = 1, keepingItsMemory: Bool = false) throws {
        runtime = try ONNXRuntime.shared.get()
        let api = runtime.api
        var options: OpaquePointer?
        try runtime.check(earshot_ort_create_session_options(api, &options), "create session options")
        defer { earshot_ort_release_session_options(api, options) }
        try runtime.check(earshot_ort_set_intra_op_threads(api, options, Int32(threads)), "set threads")
        try runtime.check(earshot_ort_set_inter_op_threads(api, options, 1), "set threads")
        try runtime.check(earshot_ort_set_optimization_level(api, options, Int32(EARSHOT_ORT_ENABLE_ALL)), "set optimisation")
        if keepingItsMemory { try runtime.check(earshot_ort_enable_cpu_arena(api, options), "keep its memory arena") }
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
        let values = try inputs.mapValues { try TensorValue($0) }
        return try run(values: values, outputs: outputs).map { try $0.tensor() }
    }

    /// Runs the model on tensors that stay in ONNX Runtime's form: outputs can go back in as the next run's
    /// inputs without a copy (a decoder's caches), and large inputs made once are reused across runs.
    public func run(values inputs: [String: TensorValue], outputs: [String]) throws -> [TensorValue] {
        let api = runtime.api
        let names = Array(inputs.keys)
        let values: [OpaquePointer?] = names.map { inputs[$0]!.value }
        var results = [OpaquePointer?](repeating: nil, count: outputs.count)
        do {
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
        } catch {
            results.forEach { if let v = $0 { earshot_ort_release_value(api, v) } }
            throw error
        }
        withExtendedLifetime(inputs) {}  // the inputs' buffers live until the run is over
        return results.map { TensorValue(owning: $0!, runtime: runtime) }
    }
}

/// A tensor held by ONNX Runtime (an OrtValue): made from Swift arrays once, or returned by a run, and passed to
/// later runs as it is. Immutable once made, so it may be shared.
public final class TensorValue: @unchecked Sendable {
    fileprivate let value: OpaquePointer
    private let runtime: ONNXRuntime
    /// Memory behind a value made from Swift data (ONNX Runtime does not copy it); nil for a run's outputs.
    private let buffer: UnsafeMutableRawPointer?
    public let shape: [Int]
    private let elementType: Int32

    fileprivate init(owning value: OpaquePointer, runtime: ONNXRuntime) {
        self.value = value
        self.runtime = runtime
        buffer = nil
        let api = runtime.api
        var info: OpaquePointer?
        var type: Int32 = 0, rank = 0
        // reading a fresh output's shape cannot fail short of a broken runtime: a zero shape reads as empty
        _ = earshot_ort_tensor_shape_info(api, value, &info)
        _ = earshot_ort_element_type(api, info, &type)
        _ = earshot_ort_dimension_count(api, info, &rank)
        var dims = [Int64](repeating: 0, count: rank)
        _ = earshot_ort_dimensions(api, info, &dims, rank)
        earshot_ort_release_shape_info(api, info)
        shape = dims.map(Int.init)
        elementType = type
    }

    /// A copy of `tensor` in ONNX Runtime's form.
    public convenience init(_ tensor: Tensor) throws {
        switch tensor.storage {
        case let .float(v): try self.init(shape: tensor.shape, elements: v, type: Int32(EARSHOT_ORT_FLOAT))
        case let .uint8(v): try self.init(shape: tensor.shape, elements: v, type: Int32(EARSHOT_ORT_UINT8))
        case let .int64(v): try self.init(shape: tensor.shape, elements: v, type: Int32(EARSHOT_ORT_INT64))
        }
    }

    public convenience init(shape: [Int], floats: [Float]) throws {
        try self.init(shape: shape, elements: floats, type: Int32(EARSHOT_ORT_FLOAT))
    }

    public convenience init(shape: [Int], int64s: [Int64]) throws {
        try self.init(shape: shape, elements: int64s, type: Int32(EARSHOT_ORT_INT64))
    }

    private init<T>(shape: [Int], elements: [T], type: Int32) throws {
        precondition(shape.reduce(1, *) == elements.count, "tensor shape \(shape) does not hold \(elements.count) elements")
        let runtime = try ONNXRuntime.shared.get()
        let bytes = elements.count * MemoryLayout<T>.stride
        let buffer = UnsafeMutableRawPointer.allocate(byteCount: max(1, bytes), alignment: 64)  // never null, even empty
        elements.withUnsafeBytes { if bytes > 0 { buffer.copyMemory(from: $0.baseAddress!, byteCount: bytes) } }
        var value: OpaquePointer?
        let dims = shape.map(Int64.init)
        do {
            try runtime.check(earshot_ort_create_tensor_with_data(runtime.api, runtime.memoryInfo, buffer, bytes, dims, dims.count,
                                                                 type, &value), "create a tensor of shape \(shape)")
        } catch {
            buffer.deallocate()
            throw error
        }
        self.value = value!
        self.runtime = runtime
        self.buffer = buffer
        self.shape = shape
        elementType = type
    }

    deinit {
        earshot_ort_release_value(runtime.api, value)
        buffer?.deallocate()
    }

    public var elementCount: Int { shape.reduce(1, *) }

    /// Reads the elements in place (float tensors only; an empty buffer otherwise).
    public func withFloats<R>(_ body: (UnsafeBufferPointer<Float>) throws -> R) rethrows -> R {
        guard elementType == Int32(EARSHOT_ORT_FLOAT) else { return try body(UnsafeBufferPointer(start: nil, count: 0)) }
        return try body(UnsafeBufferPointer(start: data?.assumingMemoryBound(to: Float.self), count: elementCount))
    }

    private var data: UnsafeMutableRawPointer? {
        var raw: UnsafeMutableRawPointer?
        _ = earshot_ort_tensor_data(runtime.api, value, &raw)
        return raw
    }

    /// A copy in Swift arrays.
    public func tensor() throws -> Tensor {
        let count = elementCount
        guard let raw = data ?? (count == 0 ? UnsafeMutableRawPointer(bitPattern: 64) : nil) else {
            throw ONNXRuntimeError.failed(code: 0, message: "no data", during: "read an output")
        }
        switch Int(elementType) {
        case Int(EARSHOT_ORT_FLOAT):
            return Tensor(shape: shape, floats: Array(UnsafeBufferPointer(start: raw.assumingMemoryBound(to: Float.self), count: count)))
        case Int(EARSHOT_ORT_UINT8):
            return Tensor(shape: shape, bytes: Array(UnsafeBufferPointer(start: raw.assumingMemoryBound(to: UInt8.self), count: count)))
        case Int(EARSHOT_ORT_INT64):
            return Tensor(shape: shape, int64s: Array(UnsafeBufferPointer(start: raw.assumingMemoryBound(to: Int64.self), count: count)))
        default:
            throw ONNXRuntimeError.failed(code: 0, message: "unsupported element type \(elementType)", during: "read an output")
        }
    }
}

/// Calls `body` with a C array of C strings that lives for the call.
private func withCStrings<R>(_ strings: [String], _ body: (UnsafePointer<UnsafePointer<CChar>?>) throws -> R) rethrows -> R {
    let copies = strings.map { UnsafePointer(strdup($0)) }
    defer { copies.forEach { free(UnsafeMutablePointer(mutating: $0)) } }
    return try copies.withUnsafeBufferPointer { try body($0.baseAddress!) }
}
