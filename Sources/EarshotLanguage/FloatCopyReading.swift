import EarshotCore
import Foundation

/// A float copy's next-token logits at every position of a text, kept on disk. The copy's part of
/// `FloatCopy.compare` was most of its time (the default model's copy is 3.6 GB of float16 weights: the two copies took
/// about 15 s of one core of a 2-core Zen 4 together), and it is a fixed function of the copy, the text, llama.cpp's build and the CPU, so it is
/// computed once per machine (as the Whisper float references' transcripts are) and the shipped model is always run
/// afresh. The logits are kept whole, as float32 (222 MB for the default model's 366 positions, 75 MB for the small
/// one's): the divergence needs the copy's whole distribution, whose tail is wide on voice-note text (the 1,000
/// likeliest tokens held as little as 64% of the probability at some positions, and counting the rest as one outcome
/// took a third off the default model's measured divergence).
struct FloatCopyReading {
    /// The text's tokens, as the copy's vocabulary cuts it (the shipped model must cut it the same way).
    let tokens: [Int32]
    let vocabulary: Int
    /// `tokens.count` rows of `vocabulary` float32 logits (mapped from the kept file).
    private let logits: Data

    /// The copy's reading of `text`, from this machine's kept file when it holds it.
    static func kept(_ copyPath: String, text: String, threads: Int, home: URL) throws -> FloatCopyReading {
        let file = keptFile(copyPath, text: text, home: home)
        if let reading = try? load(file) { return reading }
        let folder = file.deletingLastPathComponent()
        // written beside the kept file and renamed into place when done (a run killed midway leaves no kept file); where
        // the home cannot be written, in the temporary folder, read from there and not kept
        let kept = (try? FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)) != nil
            && FileManager.default.isWritableFile(atPath: folder.path)
        let partial = (kept ? folder : FileManager.default.temporaryDirectory).appendingPathComponent(".\(file.lastPathComponent).\(getpid())")
        defer { try? FileManager.default.removeItem(at: partial) }
        guard FileManager.default.createFile(atPath: partial.path, contents: nil), let out = FileHandle(forWritingAtPath: partial.path) else {
            throw LanguageError.failed("cannot write \(partial.path), where the float copy's reading is made: free some room there")
        }
        var vocabulary = 0
        do {
            defer { try? out.close() }
            try out.write(contentsOf: Data(repeating: 0, count: headerBytes))
            let tokens = try FloatCopy.eachPosition(copyPath, text: text, threads: threads) { row in
                vocabulary = row.count
                try out.write(contentsOf: Data(buffer: row))
            }
            try out.write(contentsOf: tokens.withUnsafeBufferPointer { Data(buffer: $0) })
            try out.seek(toOffset: 0)
            try out.write(contentsOf: header(tokens: tokens.count, vocabulary: vocabulary))
            try out.synchronize()
        }
        guard kept, rename(partial.path, file.path) == 0 else { return try load(partial) }
        // readings of this copy by an earlier build, CPU or text are never read again
        let prefix = file.lastPathComponent.prefix { $0 != "~" } + "~"
        for old in (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
        where old.hasPrefix(prefix) && old != file.lastPathComponent {
            try? FileManager.default.removeItem(at: folder.appendingPathComponent(old))
        }
        return try load(file)
    }

    /// Row `position`: the copy's logits for the token after the text's first `position + 1` tokens.
    func withLogits<T>(_ body: (_ row: (Int) -> UnsafeBufferPointer<Float>) throws -> T) rethrows -> T {
        try logits.withUnsafeBytes { raw in
            let all = raw.bindMemory(to: Float.self)
            return try body { position in UnsafeBufferPointer(rebasing: all[(position * vocabulary)..<((position + 1) * vocabulary)]) }
        }
    }

    /// `EARSHOT_HOME/reference/llm-readings/<copy>~<key>.f32`, the key naming everything the reading depends on: the
    /// copy file (its size and time, as setup wrote it), llama.cpp's build, the CPU (float kernels round differently
    /// on AVX2 and AVX-512), the text and this format. Not the thread count: llama.cpp computes each output of a
    /// product on one thread, and the readings on one and two threads were the same to the byte (both copies, Zen 4).
    static func keptFile(_ copyPath: String, text: String, home: URL) -> URL {
        var key = LlamaRuntime.buildIdentity(of: copyPath, home: home)
        key += Data("\(CPUInfo.identity)\n\(format)\n".utf8) + Data(text.utf8)
        let name = URL(fileURLWithPath: copyPath).deletingPathExtension().lastPathComponent
        return home.appendingPathComponent("reference/llm-readings/\(name)~\(SHA256.hex(key).prefix(16)).f32")
    }

    /// The file: this line, padded with zeros to `headerBytes`, then the logits, then the tokens as int32.
    private static let format = "earshot float-copy logits 1"
    private static let headerBytes = 64

    private static func header(tokens: Int, vocabulary: Int) -> Data {
        var line = Data("\(format) \(tokens) \(vocabulary)\n".utf8)
        line.append(Data(repeating: 0, count: headerBytes - line.count))
        return line
    }

    private static func load(_ file: URL) throws -> FloatCopyReading {
        let data = try Data(contentsOf: file, options: .alwaysMapped)
        let fields = String(decoding: data.prefix(headerBytes).prefix { $0 != 10 }, as: UTF8.self).split(separator: " ")
        guard fields.count == 6, fields.prefix(4).joined(separator: " ") == format,
              let count = Int(fields[4]), let vocabulary = Int(fields[5]), count > 0, vocabulary > 0,
              data.count == headerBytes + count * vocabulary * 4 + count * 4 else {
            throw LanguageError.failed("\(file.path) is not a kept float-copy reading")
        }
        let logitsEnd = headerBytes + count * vocabulary * 4
        let tokens = data[logitsEnd...].withUnsafeBytes { Array($0.bindMemory(to: Int32.self)) }
        return FloatCopyReading(tokens: tokens, vocabulary: vocabulary, logits: data[headerBytes..<logitsEnd])
    }
}
