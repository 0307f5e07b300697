import EarshotCore
import Foundation
import XCTest

/// Runs a Python float reference from `Tests/Reference` (setup's venv, onnxruntime with every graph
/// optimisation off) on audio, and the clips those comparisons use. Int8 kernels differ between AVX2,
/// AVX-512 and VNNI CPUs; comparing the session Earshot runs with a float reference of the same network
/// catches a model whose answers depend on the CPU, on whichever CPU the tests run.
public enum FloatReference {
    /// The JSON the script prints for `clips` (each written as raw float32 at 16 kHz).
    public static func run(_ script: String, arguments: [String], clips: [[Float]]) throws -> Any {
        let python = ModelStore().home.appendingPathComponent("venv/bin/python").path
        guard FileManager.default.isExecutableFile(atPath: python) else {
            throw XCTSkip("setup's Python venv is missing: run make setup")
        }
        let dir = TestAudio.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let paths = try clips.enumerated().map { i, samples in
            let url = dir.appendingPathComponent("clip\(i).f32")
            try samples.withUnsafeBytes { Data($0) }.write(to: url)
            return url.path
        }
        let out = try TestAudio.run(python, [path(of: script)] + arguments + paths)
        return try JSONSerialization.jsonObject(with: out)
    }

    public static func path(of script: String) -> String {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Reference/\(script)").path
    }

    /// A fingerprint of the package's code at `paths` (folders or files under `Sources/`): each Swift or C file's path
    /// and its lines that are not comments, in path order. Results kept between runs that depend on how Earshot's own
    /// code computes them (the float reference's transcripts) are keyed by it, so a change to that code computes them
    /// again, and a change to a comment does not.
    public static func sourceFingerprint(of paths: [String]) throws -> String {
        let sources = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Sources")
        var key = Data()
        for path in paths {
            let base = sources.appendingPathComponent(path)
            var isFolder: ObjCBool = false
            guard FileManager.default.fileExists(atPath: base.path, isDirectory: &isFolder) else {
                throw XCTSkip("\(base.path) is missing: the sources are needed to key the reference's cache")
            }
            let files = isFolder.boolValue
                ? (FileManager.default.enumerator(atPath: base.path)?.compactMap { $0 as? String } ?? [])
                    .filter { $0.hasSuffix(".swift") || $0.hasSuffix(".c") || $0.hasSuffix(".h") }.sorted().map { "\(path)/\($0)" }
                : [path]
            for file in files {
                let text = try String(contentsOf: sources.appendingPathComponent(file), encoding: .utf8)
                let code = text.split(separator: "\n").filter { !$0.trimmingCharacters(in: .whitespaces).hasPrefix("//") }
                key += Data("\(file)\n".utf8) + Data(code.joined(separator: "\n").utf8)
            }
        }
        return SHA256.hex(key)
    }

    /// A file setup keeps only as a reference (under `EARSHOT_HOME/reference`), or a skip naming setup.
    public static func installed(_ relativePath: String) throws -> String {
        let path = ModelStore().home.appendingPathComponent("reference/\(relativePath)").path
        guard FileManager.default.fileExists(atPath: path) else {
            throw XCTSkip("\(path) is missing: run make setup")
        }
        return path
    }

    /// Real recordings to compare on: espeak-ng speech always, and when `../shared/data` is here one
    /// ESC-10 clip of each class and `speech` utterances by both of its speakers.
    public static func clips(sentences: Int = 2, esc10: Bool = true, speech: Int = 2) throws -> [(name: String, samples: [Float])] {
        var clips: [(String, [Float])] = []
        for sentence in Sentences.all.prefix(sentences) {
            clips.append(("espeak: \(sentence.prefix(24))", try TestAudio.speech(sentence).samples))
        }
        let loader = AudioFileLoader()
        if esc10, let dir = SharedData.folder("esc10") {
            let rows = try SharedData.table(dir.appendingPathComponent("meta.csv"), separator: ",")
            var seen = Set<String>()
            for row in rows where seen.insert(row["class"] ?? "").inserted {
                clips.append(("esc10 \(row["path"]!)", try loader.load(path: dir.appendingPathComponent(row["path"]!).path).samples))
            }
        }
        if speech > 0, let dir = SharedData.folder("speech") {
            let rows = try SharedData.table(dir.appendingPathComponent("transcripts.tsv"), separator: "\t")
            let bySpeaker = Dictionary(grouping: rows) { $0["speaker"] ?? "" }
            for (_, rows) in bySpeaker.sorted(by: { $0.key < $1.key }) {
                for row in rows.prefix(speech) {
                    clips.append(("speech \(row["path"]!)", try loader.load(path: dir.appendingPathComponent(row["path"]!).path).samples))
                }
            }
        }
        return clips
    }
}
