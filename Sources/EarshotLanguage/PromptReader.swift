internal import CLlama
import Foundation

/// Where a model's prompts are read: in a second copy of the model with its weights in llama.cpp's plain layout and a
/// context of its own, whose cells are then copied into the generating context (llama.cpp's sequence state: the
/// default model's keys and values are 28 kB a token, so a minute-long note's prompt copies in milliseconds); or, where
/// that is no faster, in the generating context itself.
///
/// Why two copies: at load llama.cpp copies Q4_K weights into an interleaved ("repacked") layout whose kernels are the
/// fastest for generation's steps of one to a dozen tokens. With AVX-512 the plain layout reads a prompt's long batches
/// faster; without it, slower. The default model on 2 cores of an Intel Xeon, a 200-token prompt in 256-token batches
/// (`llama-bench -p 200 -b 256 -ub 256 --repack 0,1`): llama.cpp built with AVX-512, 134 tokens/s plain against 94
/// repacked; built for AVX2 alone, 57 against 67. A 4-token step runs at 27 plain against 43 repacked (BENCHMARKS.md,
/// Language models). The plain copy maps the same file pages as the model: what it adds is its keys, values and work
/// buffers (~180 MB for the default model in a 4,096-token context; the resident size counts the file's pages twice).
final class PromptReader {
    let context: OpaquePointer
    /// The plain copy, or nil when prompts are read in the generating context.
    private let model: OpaquePointer?

    /// Whether this build of llama.cpp reads prompts faster with plain weights: it has AVX-512 (setup builds it with
    /// this CPU's instruction sets).
    static let plainLayoutIsFaster: Bool = {
        LlamaRuntime.start()
        return String(cString: llama_print_system_info()).contains(" AVX512 = 1")
    }()

    /// Reads `path`'s prompts for `generating`, a context over the same model file; `plainCopy`: in a plain copy. The
    /// copy only saves time: when llama.cpp cannot make it (memory for its context), prompts are read in `generating`.
    init(_ path: String, for generating: OpaquePointer, contextTokens: Int, threads: Int, plainCopy: Bool = plainLayoutIsFaster) {
        guard plainCopy, let copy = try? LlamaRuntime.load(path, contextTokens: contextTokens, threads: threads, embeddings: false, repacked: false) else {
            (context, model) = (generating, nil)
            return
        }
        (model, context) = (copy.model, copy.context)
    }

    deinit {
        guard let model else { return }
        llama_free(context)
        llama_model_free(model)
    }

    private var memory: llama_memory_t { llama_get_memory(context) }

    /// Keeps the first `count` cells of the prompt read so far; false when llama.cpp cannot cut there (then nothing is kept).
    func keep(first count: Int) -> Bool {
        if llama_memory_seq_rm(memory, 0, Int32(count), -1) { return true }
        forget()
        return false
    }

    func forget() { llama_memory_clear(memory, true) }

    /// Decodes `tokens[range]` at their positions after what is read so far; llama.cpp's status (0: done).
    func decode(_ tokens: [llama_token], _ range: Range<Int>) -> Int32 {
        var batch = Array(tokens[range])  // llama.cpp takes a mutable pointer: this batch's tokens, not the whole prompt
        return batch.withUnsafeMutableBufferPointer { llama_decode(context, llama_batch_get_one($0.baseAddress!, Int32($0.count))) }
    }

    /// Makes `target`'s memory hold exactly the prompt read so far, as its sequence 0 (nothing to do when prompts are
    /// read there). The target is emptied first, so the cells land where a fresh context would put them (llama.cpp
    /// fills the first free cells, and the order of a prompt's cells is the order its attention adds them in). False
    /// when llama.cpp refuses the copy (the target is then empty).
    func copy(into target: OpaquePointer) -> Bool {
        guard target != context else { return true }
        llama_memory_clear(llama_get_memory(target), true)
        guard llama_memory_seq_pos_max(memory, 0) >= 0 else { return true }  // nothing read
        let size = llama_state_seq_get_size(context, 0)
        var state = [UInt8](repeating: 0, count: size)
        let written = llama_state_seq_get_data(context, &state, size, 0)
        guard written > 0, llama_state_seq_set_data(target, state, written, 0) > 0 else {
            llama_memory_clear(llama_get_memory(target), true)
            return false
        }
        return true
    }
}
