internal import CZlib

/// How much zlib shrinks a text: Whisper stuck in a loop writes text that compresses far better than speech
/// (above 2.4, openai-whisper's threshold, the window is decoded again at a higher temperature).
enum CompressionRatio {
    static func of(_ text: String) -> Double {
        let bytes = Array(text.utf8)
        guard !bytes.isEmpty else { return 0 }
        var size = compressBound(uLong(bytes.count))
        var out = [UInt8](repeating: 0, count: Int(size))
        guard compress2(&out, &size, bytes, uLong(bytes.count), Z_DEFAULT_COMPRESSION) == Z_OK, size > 0 else { return 0 }
        return Double(bytes.count) / Double(size)
    }
}
