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
guard args.count >= 4, args[0] == "notes-search", let rounds = Int(args[2]) else {
    FileHandle.standardError.write(Data("usage: earshot-bench notes-search STORE_DIR ROUNDS QUERY...\n".utf8))
    exit(2)
}
do {
    let store = try NotesStore(directory: URL(fileURLWithPath: args[1]))
    let search = NotesSearch(store: store)
    let queries = Array(args[3...])
    _ = try search.search(queries[0], mode: .both)  // loads the embedding model and the index once
    var result: [String: [Double]] = [:]
    for _ in 0..<rounds {
        for q in queries {
            for mode in NotesSearch.Mode.allCases {
                result[mode.rawValue, default: []].append(try milliseconds { _ = try search.search(q, mode: mode, limit: 10) })
            }
            result["like", default: []].append(try milliseconds { _ = try store.likeScan(q, limit: 10) })
        }
    }
    let data = try JSONSerialization.data(withJSONObject: ["notes": store.count, "latency_ms": result], options: [.sortedKeys])
    print(String(decoding: data, as: UTF8.self))
} catch {
    FileHandle.standardError.write(Data("earshot-bench: \(error.localizedDescription)\n".utf8))
    exit(1)
}
