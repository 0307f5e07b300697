internal import CLlama
import EarshotCore
import Foundation

/// The beginning of a prompt that a model has read, kept on disk with its keys and values (llama.cpp's sequence
/// state), so that a model loaded later starts from it as the last one left off: llama-cli's `--prompt-cache`, for
/// the runner host that serves every Earshot process and leaves after its keep-alive. The note writer's standing
/// rules and examples are ~350 tokens, 5 s of a 2-core machine; without this the first note after each start of
/// the host read them again.
///
/// What is kept is always a prompt's beginning up to one of its cuts (`LanguageModel.promptCuts`), decoded in the
/// batches a fresh run decodes it in, so a reply that starts from it is exactly the reply of a fresh model. The
/// file is named by the model file and the llama.cpp build, whose kernels computed it: another build never reads it.
struct SavedPrompt {
    /// Longer beginnings are not written (a long transcript's would be tens of megabytes per reply).
    static let maxTokens = 1_024
    let file: URL

    init(modelPath: String, home: URL) {
        // "plain": the state is computed with the weights in their plain layout (`PromptReader`); files of the
        // repacked layout, which older versions wrote, hold other numbers
        let identity = Data(modelPath.utf8) + Data(" plain".utf8) + LlamaRuntime.buildIdentity(of: modelPath, home: home)
        let name = URL(fileURLWithPath: modelPath).deletingPathExtension().lastPathComponent
        file = home.appendingPathComponent("cache/language-prompts/\(name)-\(SHA256.hex(identity).prefix(12)).state")
    }

    /// The tokens whose state is now in `context`'s sequence 0, or nil (nothing saved, or a file llama.cpp refuses:
    /// the sequence is then left empty).
    func load(into context: OpaquePointer, capacity: Int) -> [llama_token]? {
        guard FileManager.default.fileExists(atPath: file.path) else { return nil }
        var tokens = [llama_token](repeating: 0, count: capacity)
        var count = 0
        let read = llama_state_seq_load_file(context, file.path, 0, &tokens, tokens.count, &count)
        guard read > 0, count > 0, count <= capacity else {
            llama_memory_clear(llama_get_memory(context), true)
            return nil
        }
        return Array(tokens.prefix(count))
    }

    /// Writes sequence 0 of `context`, which must hold exactly `tokens`, through a temporary file renamed into
    /// place: a reader sees the old file or the new one, never half of one. A failure only costs the next start time.
    func save(_ tokens: ArraySlice<llama_token>, from context: OpaquePointer) {
        guard !tokens.isEmpty, tokens.count <= Self.maxTokens else { return }
        let folder = file.deletingLastPathComponent()
        try? FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let temporary = folder.appendingPathComponent(Self.temporaryName(of: file.lastPathComponent, writer: getpid()))
        let written = Array(tokens).withUnsafeBufferPointer { llama_state_seq_save_file(context, temporary.path, 0, $0.baseAddress, $0.count) }
        guard written > 0 && rename(temporary.path, file.path) == 0 else { unlink(temporary.path); return }
        removeStale()
    }

    /// Each llama.cpp build and model file gets its own file (~10 MB), and a runner killed while writing leaves its
    /// temporary file: once this one is written, the same model's files of other builds, and temporary files whose
    /// writer is gone, go. Other models' files stay (the small model and the default one each keep theirs).
    private func removeStale() {
        let folder = file.deletingLastPathComponent(), name = file.lastPathComponent
        guard let dash = name.lastIndex(of: "-") else { return }
        let model = String(name[..<dash])
        for other in (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? [] where other != name {
            let stale = Self.writer(ofTemporary: other).map { !ProcessStatus.isRunning($0) }
                ?? (other.hasPrefix(model + "-") && other.hasSuffix(".state") && other.count == name.count)
            if stale { unlink(folder.appendingPathComponent(other).path) }
        }
    }

    /// ".NAME.PID.tmp": where process PID writes NAME before renaming it into place.
    static func temporaryName(of name: String, writer: pid_t) -> String { ".\(name).\(writer).tmp" }

    /// The process writing a temporary file named by `temporaryName`, or nil for any other name.
    static func writer(ofTemporary name: String) -> pid_t? {
        guard name.hasPrefix("."), name.hasSuffix(".tmp") else { return nil }
        return name.split(separator: ".").dropLast().last.flatMap { pid_t($0) }
    }
}
