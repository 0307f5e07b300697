import EarshotCore
import Foundation

/// Whisper's byte-level BPE (tiktoken's): text to tokens for prompts and hotwords, tokens to text for transcripts.
/// Reads the vocabulary setup writes beside the model. As in tiktoken, a token's id is its merge rank: the
/// adjacent pair whose joined bytes form the lowest-numbered token merges first (the merges list shipped with
/// the Hugging Face tokenizer misses the first merges, " t" among them).
final class WhisperTokenizer: Sendable {
    /// Token id -> its bytes.
    private let bytes: [[UInt8]]
    /// Printable stand-in string of a token -> id, which is also its merge rank.
    private let ids: [String: Int]
    private static let byteToChar: [Character] = {
        // GPT-2's bytes_to_unicode: printable bytes stand for themselves, the others for 256 + n
        var printable = Array(33...126) + Array(161...172) + Array(174...255)
        var chars = printable
        var n = 0
        for b in 0..<256 where !printable.contains(b) {
            printable.append(b)
            chars.append(256 + n)
            n += 1
        }
        var table = [Character](repeating: " ", count: 256)
        for (b, c) in zip(printable, chars) { table[b] = Character(Unicode.Scalar(UInt32(c))!) }
        return table
    }()
    private static let charToByte: [Character: UInt8] = {
        Dictionary(uniqueKeysWithValues: byteToChar.enumerated().map { ($1, UInt8($0)) })
    }()
    /// GPT-2's pre-tokenisation: contractions, letters, numbers, other symbols, each with its leading space.
    private static let pattern = try! NSRegularExpression(
        pattern: #"'s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+"#)

    init(vocabulary: String) throws {
        let words = try String(contentsOfFile: vocabulary, encoding: .utf8).split(separator: "\n", omittingEmptySubsequences: false)
        var bytes: [[UInt8]] = []
        var ids: [String: Int] = [:]
        for (id, word) in words.enumerated() where !(id == words.count - 1 && word.isEmpty) {
            ids[String(word)] = id
            bytes.append(word.map { Self.charToByte[$0] ?? 0x3F })
        }
        self.bytes = bytes
        self.ids = ids
        guard bytes.count > 256 else {
            throw ModelError.failedToLoad(model: "whisper", detail: "its vocabulary \(vocabulary) is incomplete; reinstall with `\(ModelStore.installCommand)`")
        }
    }

    /// The bytes of text tokens (ids at or above `limit`, the special tokens, are left out).
    func bytes(of tokens: [Int], below limit: Int) -> [UInt8] {
        tokens.filter { $0 >= 0 && $0 < limit && $0 < bytes.count }.flatMap { bytes[$0] }
    }

    /// The text of tokens (special tokens from `limit` on left out); broken UTF-8 shows as U+FFFD.
    func text(of tokens: [Int], below limit: Int) -> String {
        String(decoding: bytes(of: tokens, below: limit), as: UTF8.self)
    }

    /// Tokens for `text` (byte-level BPE, merges by rank).
    func encode(_ text: String) -> [Int] {
        let ns = text as NSString
        var tokens: [Int] = []
        for match in Self.pattern.matches(in: text, range: NSRange(location: 0, length: ns.length)) {
            let piece = ns.substring(with: match.range)
            var parts = Array(piece.utf8).map { String(Self.byteToChar[Int($0)]) }
            while parts.count > 1 {
                var best: (rank: Int, at: Int)?
                for i in 0..<(parts.count - 1) {
                    if let rank = ids[parts[i] + parts[i + 1]], rank < (best?.rank ?? .max) { best = (rank, i) }
                }
                guard let (_, at) = best else { break }
                parts[at] += parts[at + 1]
                parts.remove(at: at + 1)
            }
            tokens += parts.compactMap { ids[$0] }
        }
        return tokens
    }
}
