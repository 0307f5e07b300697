import Foundation

/// Reads RIFF/WAVE natively: integer PCM of 8, 16, 24 and 32 bits, IEEE float of 32 and 64 bits,
/// WAVE_FORMAT_EXTENSIBLE, any channel count and rate. Headers that lie about their sizes are refused
/// rather than guessed at, except the "unknown length" sizes that streaming writers use.
public struct WAVDecoder: Sendable {
    public init() {}

    /// A whole WAV held in memory, decoded at once (tests, fuzzing).
    public func decode(_ data: Data, path: String) throws -> DecodedAudio {
        let stream = try open(DataInput(data), path: path)
        var samples: [Float] = []
        while case let block = try stream.read(frames: 1 << 16), !block.isEmpty { samples += block }
        return DecodedAudio(interleaved: samples, channels: stream.channels, sampleRate: stream.sampleRate)
    }

    /// Reads the chunks up to the first sample; the samples are then read a block at a time. Chunks are
    /// taken in order, so a pipe (ffmpeg's output) works as well as a file.
    func open(_ input: ByteInput, path: String) throws -> WAVStream {
        let riff = try input.read(12)
        guard riff.count == 12, tag(riff, 0) == "RIFF", tag(riff, 8) == "WAVE" else {
            throw AudioError.notAudio(path: path, detail: "no RIFF/WAVE header")
        }
        var format: WAVStream.Format?
        while true {
            let header = try input.read(8)
            guard header.count == 8 else {
                throw AudioError.truncated(path: path, detail: format == nil ? "no fmt chunk" : "no data chunk")
            }
            let size = Int(le32(header, 4))
            switch tag(header, 0) {
            case "fmt ":
                let body = try input.read(min(size, 40))  // the rest of a long fmt chunk says nothing we use
                guard size >= 16, body.count >= 16 else {
                    throw AudioError.truncated(path: path, detail: "fmt chunk is cut short")
                }
                format = try parseFormat(body, size: size, path: path)
                try input.skip(size - body.count + (size & 1))
            case "data":
                guard let fmt = format else {
                    throw AudioError.unsupported(path: path, detail: "data chunk before fmt chunk")
                }
                let available = input.remaining
                // the sizes streaming writers put before they know the length: sox and arecord write 0x7FFFF000
                // to a pipe, others 0xFFFFFFFF or 0; those are read to the end of the input
                let streamed = size == 0xFFFF_FFFF || size == 0x7FFF_F000 || (size == 0 && available != 0)
                if !streamed, let available, size > available {
                    throw AudioError.truncated(
                        path: path, detail: "header promises \(size) bytes of audio, file holds \(available)")
                }
                let length = streamed ? available : size  // nil: a pipe, read to its end
                return WAVStream(input: input, format: fmt, bytes: length.map { $0 - $0 % fmt.blockAlign })
            default:
                try input.skip(size + (size & 1))  // chunks are padded to even sizes
            }
        }
    }

    private func parseFormat(_ b: [UInt8], size: Int, path: String) throws -> WAVStream.Format {
        var code = Int(le16(b, 0))
        let channels = Int(le16(b, 2))
        let rate = Int(le32(b, 4))
        let blockAlign = Int(le16(b, 12))
        let bits = Int(le16(b, 14))
        if code == 0xFFFE {  // WAVE_FORMAT_EXTENSIBLE: the real code opens the sub-format GUID
            guard size >= 40, b.count >= 26 else {
                throw AudioError.truncated(path: path, detail: "extensible fmt chunk is cut short")
            }
            code = Int(le16(b, 24))
        }
        guard channels > 0, rate > 0 else {
            throw AudioError.unsupported(path: path, detail: "\(channels) channels at \(rate) Hz")
        }
        let encoding: WAVStream.Encoding
        switch (code, bits) {
        case (1, 8), (1, 16), (1, 24), (1, 32): encoding = .pcm
        case (3, 32), (3, 64): encoding = .float
        default:
            throw AudioError.unsupported(path: path, detail: "WAV format code \(code) with \(bits) bits per sample")
        }
        guard blockAlign == channels * bits / 8 else {
            throw AudioError.unsupported(path: path, detail: "block align \(blockAlign) does not match \(channels)×\(bits) bits")
        }
        return WAVStream.Format(encoding: encoding, channels: channels, rate: rate, bits: bits, blockAlign: blockAlign)
    }

    private func tag(_ b: [UInt8], _ p: Int) -> String {
        String(decoding: b[p..<min(p + 4, b.count)], as: UTF8.self)
    }
}

/// The samples of a WAV after its header, a block of frames at a time.
final class WAVStream: BlockDecoder {
    enum Encoding { case pcm, float }
    struct Format { var encoding: Encoding; var channels: Int; var rate: Int; var bits: Int; var blockAlign: Int }

    private let input: ByteInput
    private let format: Format
    /// Bytes of whole frames still to read; nil when the input is read to its end.
    private var bytesLeft: Int?

    init(input: ByteInput, format: Format, bytes: Int?) {
        self.input = input
        self.format = format
        bytesLeft = bytes
        frameCount = bytes.map { $0 / format.blockAlign }
    }

    var channels: Int { format.channels }
    var sampleRate: Int { format.rate }
    let frameCount: Int?

    func read(frames: Int) throws -> [Float] {
        let wanted = min(frames * format.blockAlign, bytesLeft ?? .max)
        guard wanted > 0 else { return [] }
        var bytes = try input.read(wanted)
        bytes.removeLast(bytes.count % format.blockAlign)  // a pipe may end inside a frame
        bytesLeft = bytesLeft.map { bytes.count < wanted ? 0 : $0 - bytes.count }
        return convert(bytes)
    }

    private func convert(_ b: [UInt8]) -> [Float] {
        let count = b.count / (format.bits / 8)
        var out = [Float](repeating: 0, count: count)
        b.withUnsafeBufferPointer { src in
            switch (format.encoding, format.bits) {
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
                for i in 0..<count { out[i] = Float(Int32(bitPattern: le32(src, 4 * i))) / 2_147_483_648 }
            case (.float, 32):
                for i in 0..<count { out[i] = Float(bitPattern: le32(src, 4 * i)) }
            case (.float, _):
                for i in 0..<count {
                    let u = UInt64(le32(src, 8 * i)) | UInt64(le32(src, 8 * i + 4)) << 32
                    out[i] = Float(Double(bitPattern: u))
                }
            }
        }
        return out
    }
}

@inline(__always) private func le16(_ b: [UInt8], _ p: Int) -> UInt16 { UInt16(b[p]) | UInt16(b[p + 1]) << 8 }
@inline(__always) private func le32(_ b: [UInt8], _ p: Int) -> UInt32 {
    UInt32(b[p]) | UInt32(b[p + 1]) << 8 | UInt32(b[p + 2]) << 16 | UInt32(b[p + 3]) << 24
}
@inline(__always) private func le32(_ b: UnsafeBufferPointer<UInt8>, _ p: Int) -> UInt32 {
    UInt32(b[p]) | UInt32(b[p + 1]) << 8 | UInt32(b[p + 2]) << 16 | UInt32(b[p + 3]) << 24
}
