internal import CInt8Kernels
import EarshotCore
import Foundation

/// Whisper's vocabulary projection outside ONNX Runtime, for the quantised models: the decoder's last hidden state
/// times the embedding matrix held as int8 rows (one scale per row), then the likeliest tokens scored again from the
/// float16 rows, as the float model scores them.
///
/// Why: in the graph, the fp32 projection read 80 MB (tiny.en) to 106 MB (base) per decoder step, most of a greedy
/// step's time; as int8 it reads a quarter of that. The integer sums are exact and the float steps are done in one
/// fixed order (Sources/CInt8Kernels), so every CPU gets the same logits from the same hidden state.
final class LogitsProjection: @unchecked Sendable {
    // @unchecked: the mapped file is read-only after init.
    let vocabulary: Int
    let width: Int
    /// The file, mapped read-only (mmap): its float16 half is touched only for a few rows a step. Foundation's
    /// mapped `Data` left a 65-byte block LeakSanitizer reported at exit in the fuzzers, so the mapping is ours.
    private let file: UnsafeRawBufferPointer
    private let threads: Int
    /// Tokens per vector whose logits are computed again from the float16 rows: the int8 logits are within a few
    /// tenths of the float ones, so the token chosen and its close rivals are always among the first 16.
    static let rescored = 16

    /// `path`: setup's `model-projection.bin` (tools/convert_whisper.py `write_projection`): vocabulary × width
    /// int8 rows, vocabulary float32 scales, vocabulary × width float16 rows, little-endian.
    init(path: String, vocabulary: Int, width: Int, threads: Int) throws {
        self.vocabulary = vocabulary
        self.width = width
        self.threads = max(1, threads)
        let size = vocabulary * width * 3 + vocabulary * 4
        let descriptor = open(path, O_RDONLY)
        guard descriptor >= 0 else {
            throw ModelError.failedToLoad(model: "whisper", detail: "\(path) is unreadable; reinstall with `\(ModelStore.installCommand)`")
        }
        defer { close(descriptor) }
        var status = stat()
        guard fstat(descriptor, &status) == 0, Int(status.st_size) == size, width % 16 == 0 else {
            throw ModelError.failedToLoad(model: "whisper", detail: "\(path) is not a \(vocabulary) × \(width) projection; reinstall with `\(ModelStore.installCommand)`")
        }
        guard let mapped = mmap(nil, size, PROT_READ, MAP_PRIVATE, descriptor, 0), mapped != MAP_FAILED else {
            throw ModelError.failedToLoad(model: "whisper", detail: "\(path) could not be mapped into memory")
        }
        file = UnsafeRawBufferPointer(start: mapped, count: size)
    }

    deinit { munmap(UnsafeMutableRawPointer(mutating: file.baseAddress), file.count) }

    /// The logits of `count` hidden states (`width` floats each, one after another): `vocabulary` floats per state.
    /// `exact`: tokens scored from the float16 rows as well, whatever their int8 logits (the language tokens, whose
    /// probabilities among themselves detect the language).
    func logits(_ hidden: UnsafeBufferPointer<Float>, count: Int, exact: [Int] = []) -> [Float] {
        precondition(hidden.count >= count * width)
        var states = [Int16](repeating: 0, count: count * width)
        var stateScales = [Float](repeating: 0, count: count)
        earshot_int16_quantise(hidden.baseAddress, Int32(count), Int32(width), &states, &stateScales)
        var out = [Float](repeating: 0, count: count * vocabulary)
        let (vocabulary, width) = (self.vocabulary, self.width)
        let weights = file.baseAddress!.assumingMemoryBound(to: Int8.self)
        let scales = (file.baseAddress! + vocabulary * width).assumingMemoryBound(to: Float.self)
        let halves = (file.baseAddress! + vocabulary * width + vocabulary * 4).assumingMemoryBound(to: UInt16.self)
        out.withUnsafeMutableBufferPointer { logits in
            let base = logits.baseAddress!
            // the vocabulary in one slice per thread: memory-bound, so each thread streams its own rows
            let slice = (vocabulary + threads - 1) / threads
            states.withUnsafeBufferPointer { states in
                stateScales.withUnsafeBufferPointer { stateScales in
                    let work = Operands(weights: weights, scales: scales, states: states.baseAddress!,
                                        stateScales: stateScales.baseAddress!, logits: base)
                    DispatchQueue.concurrentPerform(iterations: threads) { part in
                        let first = part * slice
                        guard first < vocabulary else { return }
                        earshot_int8_project(work.weights, work.scales, Int32(first), Int32(min(slice, vocabulary - first)),
                                             Int32(width), work.states, work.stateScales, Int32(count),
                                             work.logits + first, Int32(vocabulary))
                    }
                }
            }
            for r in 0..<count {
                let row = UnsafeMutableBufferPointer(start: base + r * vocabulary, count: vocabulary)
                for token in topIndices(row, count: Self.rescored) + exact where token >= 0 && token < vocabulary {
                    row[token] = earshot_f16_dot(halves + token * width, hidden.baseAddress! + r * width, Int32(width))
                }
            }
        }
        return out
    }

    /// What the threads of one projection share: they read the same inputs and write disjoint columns of `logits`.
    private struct Operands: @unchecked Sendable {
        let weights: UnsafePointer<Int8>
        let scales: UnsafePointer<Float>
        let states: UnsafePointer<Int16>
        let stateScales: UnsafePointer<Float>
        let logits: UnsafeMutablePointer<Float>
    }
}
