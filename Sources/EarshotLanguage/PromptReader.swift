internal import CLlama
import Foundation

/// A second copy of a model in llama.cpp's plain weight layout, with a context of its own, that reads prompts; what
/// it has read is copied into the generating context (llama.cpp's sequence state: the default model's keys and
/// values are 28 kB a token, so a minute-long note's prompt copies in milliseconds).
///
/// Why two copies: at load llama.cpp copies Q4_K weights into an interleaved ("repacked") layout whose kernels are the
/// fastest for generation's steps of one to a dozen tokens, but slower than the plain layout's for a prompt's long
/// batches. The default model on 2 cores of an Intel Xeon (`llama-bench -p 200 -b 64 -ub 64 --repack 0,1`): prompts in
/// 64-token batches 103 against 84 tokens/s, while a 4-token step runs at 27 against 43 (BENCHMARKS.md, Language
/// models). The plain copy maps the same file pages as the model: what it adds is its keys, values and work buffers
/// (~180 MB for the default model in a 4,096-token context; the resident size counts the file's pages twice).
final class PromptReader {
    let model: OpaquePointer
    let context: OpaquePointer

    init(_ path: String, contextTokens: Int, threads: Int) throws {
        (model, context) = try LlamaRuntime.load(path, contextTokens: contextTokens, threads: threads, embeddings: false, repacked: false)
    }

    deinit {
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
        var input = tokens
        return input.withUnsafeMutableBufferPointer {
            llama_decode(context, llama_batch_get_one($0.baseAddress! + range.lowerBound, Int32(range.count)))
        }
    }

    /// Makes `target`'s memory hold exactly the prompt read so far, as its sequence 0. The target is emptied first, so
    /// the cells land where a fresh context would put them (llama.cpp fills the first free cells, and the order of a
    /// prompt's cells is the order its attention adds them in). False when llama.cpp refuses the copy (the target is
    /// then empty).
    func copy(into target: OpaquePointer) -> Bool {
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
