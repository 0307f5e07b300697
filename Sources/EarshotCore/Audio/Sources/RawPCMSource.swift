import Foundation

/// Headerless PCM read from a pipe, e.g. `arecord -t raw -f S16_LE -r 16000 -c 1 -` into standard input.
public struct RawPCMSource: AudioSource {
    public enum SampleFormat: String, Sendable, CaseIterable {
        case s16le, f32le
        var bytes: Int { self == .s16le ? 2 : 4 }
    }

    public let name: String
    private let handle: FileHandle
    private let rate: Int
    private let format: SampleFormat
    private let channels: Int

    public init(handle: FileHandle = .standardInput, name: String = "<stdin>", rate: Int = 16_000,
                format: SampleFormat = .s16le, channels: Int = 1) {
        self.handle = handle
        self.name = name
        self.rate = rate
        self.format = format
        self.channels = channels
    }

    public func chunks(sampleRate: Int) -> AsyncThrowingStream<[Float], Error> {
        let (handle, rate, format, channels) = (self.handle, self.rate, self.format, self.channels)
        return threadedStream { yield, keepGoing in
            let resampler = rate == sampleRate ? nil : try StreamingResampler(from: rate, to: sampleRate)
            let frameBytes = format.bytes * channels
            let readSize = max(frameBytes, rate / 10 * frameBytes)  // ~100 ms per read
            var pending = Data()
            while keepGoing() {
                let data = handle.readData(ofLength: readSize)
                if data.isEmpty { break }
                pending.append(data)
                let usable = pending.count - pending.count % frameBytes
                guard usable > 0 else { continue }
                let mono = Self.decode(pending.prefix(usable), format: format, channels: channels)
                pending = Data(pending.dropFirst(usable))
                yield(resampler?.process(mono) ?? mono)
            }
            if let tail = resampler?.process([], flush: true), !tail.isEmpty { yield(tail) }
        }
    }

    static func decode(_ data: Data, format: SampleFormat, channels: Int) -> [Float] {
        let count = data.count / format.bytes
        var interleaved = [Float](repeating: 0, count: count)
        data.withUnsafeBytes { raw in
            switch format {
            case .s16le:
                for i in 0..<count { interleaved[i] = Float(Int16(littleEndian: raw.loadUnaligned(fromByteOffset: 2 * i, as: Int16.self))) / 32768 }
            case .f32le:
                for i in 0..<count { interleaved[i] = Float(bitPattern: UInt32(littleEndian: raw.loadUnaligned(fromByteOffset: 4 * i, as: UInt32.self))) }
            }
        }
        return DecodedAudio(interleaved: interleaved, channels: channels, sampleRate: 0).downmixed().samples
    }
}
