import Foundation

/// Reads RIFF/WAVE natively: integer PCM of 8, 16, 24 and 32 bits, IEEE float of 32 and 64 bits,
/// WAVE_FORMAT_EXTENSIBLE, any channel count and rate. Headers that lie about their sizes are refused
/// rather than guessed at, except the "unknown length" sizes that streaming writers use.
public struct WAVDecoder: Sendable {
    public init() {}

    private enum Encoding { case pcm, float }

    private typealias Format = (encoding: Encoding, channels: Int, rate: Int, bits: Int, blockAlign: Int)

    public func decode(_ data: Data, path: String) throws -> DecodedAudio {
        let bytes = [UInt8](data)
        let (fmt, body, usable) = try locate(bytes, path: path)
        let samples = convert(bytes, from: body, count: usable / (fmt.bits / 8), fmt.encoding, bits: fmt.bits)
        return DecodedAudio(interleaved: samples, channels: fmt.channels, sampleRate: fmt.rate)
    }

    /// Frames and rate from the header alone, with the same checks as `decode` (voice notes accept a
    /// 10-minute recording in milliseconds this way).
    public func inspect(_ data: Data, path: String) throws -> (frames: Int, sampleRate: Int) {
        // only the chunk headers are read; the bytes of the samples are not touched
        let bytes = [UInt8](data.prefix(1 << 16))
        let (fmt, _, usable) = try locate(bytes, path: path, totalCount: data.count)
        guard usable > 0 else { throw AudioError.noSamples(path: path) }
        return (usable / fmt.blockAlign, fmt.rate)
    }

    /// The format, where the samples start, and how many bytes of whole frames there are. `bytes` may be
    /// the start of a file of `totalCount` bytes as long as it holds the header.
    private func locate(_ bytes: [UInt8], path: String, totalCount: Int? = nil) throws -> (Format, Int, Int) {
        let total = totalCount ?? bytes.count
        guard bytes.count >= 12, tag(bytes, 0) == "RIFF", tag(bytes, 8) == "WAVE" else {
            throw AudioError.notAudio(path: path, detail: "no RIFF/WAVE header")
        }
        var offset = 12
        var format: Format?
        while offset + 8 <= bytes.count {
            let id = tag(bytes, offset)
            let size = Int(le32(bytes, offset + 4))
            let body = offset + 8
            switch id {
            case "fmt ":
                guard size >= 16, body + 16 <= bytes.count else {
                    throw AudioError.truncated(path: path, detail: "fmt chunk is cut short")
                }
                format = try parseFormat(bytes, at: body, size: size, path: path)
            case "data":
                guard let fmt = format else {
                    throw AudioError.unsupported(path: path, detail: "data chunk before fmt chunk")
                }
                let available = total - body
                let streamed = size == 0xFFFF_FFFF || (size == 0 && available > 0)
                if !streamed && size > available {
                    throw AudioError.truncated(
                        path: path, detail: "header promises \(size) bytes of audio, file holds \(available)")
                }
                let length = streamed ? available : size
                return (fmt, body, length - length % fmt.blockAlign)
            default:
                break
            }
            offset = body + size + (size & 1)  // chunks are padded to even sizes
        }
        if format == nil { throw AudioError.truncated(path: path, detail: "no fmt chunk") }
        throw AudioError.truncated(path: path, detail: "no data chunk")
    }

    private func parseFormat(_ b: [UInt8], at p: Int, size: Int, path: String) throws
        -> (encoding: Encoding, channels: Int, rate: Int, bits: Int, blockAlign: Int)
    {
        var code = Int(le16(b, p))
        let channels = Int(le16(b, p + 2))
        let rate = Int(le32(b, p + 4))
        let blockAlign = Int(le16(b, p + 12))
        let bits = Int(le16(b, p + 14))
        if code == 0xFFFE {  // WAVE_FORMAT_EXTENSIBLE: the real code opens the sub-format GUID
            guard size >= 40, p + 26 <= b.count else {
                throw AudioError.truncated(path: path, detail: "extensible fmt chunk is cut short")
            }
            code = Int(le16(b, p + 24))
        }
        guard channels > 0, rate > 0 else {
            throw AudioError.unsupported(path: path, detail: "\(channels) channels at \(rate) Hz")
        }
        let encoding: Encoding
        switch (code, bits) {
        case (1, 8), (1, 16), (1, 24), (1, 32): encoding = .pcm
        case (3, 32), (3, 64): encoding = .float
        default:
            throw AudioError.unsupported(path: path, detail: "WAV format code \(code) with \(bits) bits per sample")
        }
        guard blockAlign == channels * bits / 8 else {
            throw AudioError.unsupported(path: path, detail: "block align \(blockAlign) does not match \(channels)×\(bits) bits")
        }
        return (encoding, channels, rate, bits, blockAlign)
    }

    private func convert(_ b: [UInt8], from start: Int, count: Int, _ encoding: Encoding, bits: Int) -> [Float] {
        var out = [Float](repeating: 0, count: count)
        b.withUnsafeBufferPointer { raw in
            let src = raw.baseAddress! + start
            switch (encoding, bits) {
            case (.pcm, 8):
                for i in 0..<count { out[i] = (Float(src[i]) - 128) / 128 }
            case (.pcm, 16):
                for i in 0..<count {
                    out[i] = Float(Int16(bitPattern: UInt16(src[2 * i]) | UInt16(src[2 * i + 1]) << 8)) / 32768
                }
            case (.pcm, 24):
                for i in 0..<count {
                    let u = UInt32(src[3 * i]) << 8 | UInt32(src[3 * i + 1]) << 16 | UInt32(src[3 * i + 2]) << 24
                    out[i] = Float(Int32(bitPattern: u) >> 8) / 8_388_608
                }
            case (.pcm, _):
                for i in 0..<count { out[i] = Float(Int32(bitPattern: le32(raw, start + 4 * i))) / 2_147_483_648 }
            case (.float, 32):
                for i in 0..<count { out[i] = Float(bitPattern: le32(raw, start + 4 * i)) }
            case (.float, _):
                for i in 0..<count {
                    let u = UInt64(le32(raw, start + 8 * i)) | UInt64(le32(raw, start + 8 * i + 4)) << 32
                    out[i] = Float(Double(bitPattern: u))
                }
            }
        }
        return out
    }

    private func tag(_ b: [UInt8], _ p: Int) -> String {
        String(decoding: b[p..<min(p + 4, b.count)], as: UTF8.self)
    }
}

@inline(__always) private func le16(_ b: [UInt8], _ p: Int) -> UInt16 { UInt16(b[p]) | UInt16(b[p + 1]) << 8 }
@inline(__always) private func le32(_ b: [UInt8], _ p: Int) -> UInt32 {
    UInt32(b[p]) | UInt32(b[p + 1]) << 8 | UInt32(b[p + 2]) << 16 | UInt32(b[p + 3]) << 24
}
@inline(__always) private func le32(_ b: UnsafeBufferPointer<UInt8>, _ p: Int) -> UInt32 {
    UInt32(b[p]) | UInt32(b[p + 1]) << 8 | UInt32(b[p + 2]) << 16 | UInt32(b[p + 3]) << 24
}
