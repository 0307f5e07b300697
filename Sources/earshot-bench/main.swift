import EarshotLanguage
import EarshotNotes
import Foundation

// Benchmark driver for bench/notes.py (not installed for users): times searches inside one process, as
// an app would run them, on a store the script generated.
// usage: earshot-bench notes-search STORE_DIR ROUNDS QUERY...
// prints JSON: per mode (words, meaning, both, like) the latency of every query in milliseconds.

func milliseconds(_ body: () throws -> Void) rethrows -> Double {
    let start = DispatchTime.now().uptimeNanoseconds
    try body()
    return Double(DispatchTime.now().uptimeNanoseconds - start) / 1e6
}

let args = Array(CommandLine.arguments.dropFirst())
if args.count >= 2, args[0] == "llm-speed" || args[0] == "llm-notes", let choice = LanguageModelChoice(rawValue: args[1]) {
    let oneAtATime = args.contains("--one-at-a-time")
    let args = args.filter { $0 != "--one-at-a-time" }
    do {
        if args[0] == "llm-speed" {
            try LanguageBench.speed(choice)
        } else {
            try LanguageBench.notes(choice, file: args.count > 2 ? args[2] : "bench/data/judged-notes.json",
                                    draft: args.count > 3 ? Int(args[3]) : nil, oneAtATime: oneAtATime)
        }
        exit(0)
    } catch {
        FileHandle.standardError.write(Data("earshot-bench: \(error.localizedDescription)\n".utf8))
        exit(1)
    }
}
if args.count == 3, args[0] == "check-actions" {
    do {
        try LanguageBench.checkActions(file: args[1], proposed: args[2])
        exit(0)
    } catch {
        FileHandle.standardError.write(Data("earshot-bench: \(error.localizedDescription)\n".utf8))
        exit(1)
    }
}
// earshot-bench llm default|small TRANSCRIPT.txt: the note writer's three requests, timed one by one
if args.count == 3, args[0] == "llm", let choice = LanguageModelChoice(rawValue: args[1]),
   let transcript = try? String(contentsOfFile: args[2], encoding: .utf8) {
    let model = try LanguageModel(choice)
    let writer = NoteWriter(model: model)
    // raw speeds: a prompt alone (prefill), then free generation without a grammar
    var t = Date()
    _ = try model.reply(to: [.init("user", transcript + "\nReply with OK.")], maxTokens: 1)
    let prefill = (model.promptTokens, Date().timeIntervalSince(t))
    t = Date()
    let before = model.generatedTokens
    _ = try model.reply(to: [.init("user", "Count from one to forty in words, separated by commas.")], maxTokens: 64)
    print(String(format: "prefill: %d tokens in %.2f s (%.0f tokens/s); generation: %d tokens in %.2f s (%.1f tokens/s)",
                 prefill.0, prefill.1, Double(prefill.0) / prefill.1, model.generatedTokens - before, Date().timeIntervalSince(t),
                 Double(model.generatedTokens - before) / Date().timeIntervalSince(t)))
    for round in 1...2 {
        let start = Date()
        let text = try writer.write(transcript: transcript)
        print(String(format: "round %d: %.2f s, %d prompt tokens decoded, %d generated, %.1f s generating in all", round,
                     Date().timeIntervalSince(start), model.promptTokens, model.generatedTokens, model.generationSeconds))
        print("  \(text.title) | \(text.summary) | \(text.actions.map(\.line))")
    }
    exit(0)
}
guard args.count >= 4, args[0] == "notes-search", let rounds = Int(args[2]) else {
    FileHandle.standardError.write(Data("usage: earshot-bench notes-search STORE_DIR ROUNDS QUERY...\n".utf8))
    exit(2)
}
do {
    let store = try NotesStore(directory: URL(fileURLWithPath: args[1]))
    let search = NotesSearch(store: store)
    let embedder = try TextEmbedder()  // the meaning search's first step, timed alone
    let queries = Array(args[3...])
    _ = try search.search(queries[0], mode: .both)  // loads the embedding model and the index once
    var result: [String: [Double]] = [:]
    for _ in 0..<rounds {
        for q in queries {
            for mode in NotesSearch.Mode.allCases {
                result[mode.rawValue, default: []].append(try milliseconds { _ = try search.search(q, mode: mode, limit: 10) })
            }
            result["like", default: []].append(try milliseconds { _ = try store.likeScan(q, limit: 10) })
            result["query_embedding", default: []].append(try milliseconds { _ = try embedder.embed(q) })
        }
    }
    let data = try JSONSerialization.data(withJSONObject: ["notes": store.count, "latency_ms": result], options: [.sortedKeys])
    print(String(decoding: data, as: UTF8.self))
} catch {
    FileHandle.standardError.write(Data("earshot-bench: \(error.localizedDescription)\n".utf8))
    exit(1)
}
