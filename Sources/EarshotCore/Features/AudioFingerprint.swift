import Foundation

/// A recording's sound reduced to 15 bits every 50 ms, to tell the same audio in another file: copied, renamed, its
/// tags changed, or encoded again in another format (a phone memo exported as m4a and again as wav). Each bit says
/// whether the difference between two neighbouring frequency bands grew or shrank since the last moment (the
/// scheme of Haitsma and Kalker's audio fingerprints): a lossy codec changes levels, not which way they move.
/// Moments near silence carry no bits worth comparing and are marked quiet.
///
///     let a = try AudioFingerprint(path: "memo.m4a"), b = try AudioFingerprint(path: "memo.wav")
///     a.matches(b)  // true
public struct AudioFingerprint: Sendable, Equatable {
    /// Moments per second (a window of 200 ms every 50 ms, so a codec's delay of a few ms moves no boundary far).
    public static let momentsPerSecond = 20
    static let bandsPooled = 16, windowFrames = 20, hopFrames = 5, quietBit: UInt16 = 1 << 15
    /// A moment this far below the recording's loud moments (natural log of magnitude: about 30 dB) is quiet.
    static let quietBelowLoud: Float = 3.5
    /// The share of differing bits under which two recordings are the same audio. Different speech differs in
    /// close to half its bits, the same speech through a lossy codec at a low bit rate in far fewer.
    public static let sameAudioBelow = 0.3

    /// One value per moment: bits 0–14 the band changes, bit 15 set when the moment is quiet.
    public let moments: [UInt16]
    public let duration: Double

    public init(moments: [UInt16], duration: Double) {
        self.moments = moments
        self.duration = duration
    }

    /// Reads the recording at `path` a block at a time (memory stays small for any length).
    public init(path: String) throws {
        let stream = try AudioFileStream(path: path, sampleRate: 16_000)
        var builder = Builder()
        while let block = try stream.read() { builder.add(block) }
        self = builder.finish()
    }

    /// The fingerprint of mono samples at 16 kHz.
    public init(samples: [Float]) {
        var builder = Builder()
        builder.add(samples)
        self = builder.finish()
    }

    /// The stored form: each moment as two bytes, little-endian (the duration is kept beside it).
    public var data: Data {
        var bytes = Data(capacity: moments.count * 2)
        for m in moments { bytes.append(UInt8(m & 0xFF)); bytes.append(UInt8(m >> 8)) }
        return bytes
    }

    public init(data: Data, duration: Double) {
        let bytes = [UInt8](data)
        moments = stride(from: 0, to: bytes.count - 1, by: 2).map { UInt16(bytes[$0]) | UInt16(bytes[$0 + 1]) << 8 }
        self.duration = duration
    }

    /// Whether `other` is the same audio: as long (within a quarter of a second, or 1% of a long recording) and
    /// differing in under `sameAudioBelow` of the bits of its moments that are not quiet in both.
    public func matches(_ other: AudioFingerprint) -> Bool {
        guard abs(duration - other.duration) <= Self.lengthTolerance(max(duration, other.duration)) else { return false }
        return difference(from: other) < Self.sameAudioBelow
    }

    /// How much two recordings' lengths may differ when they are the same audio, the longer being `seconds` long
    /// (codecs pad a little at either end).
    public static func lengthTolerance(_ seconds: Double) -> Double { max(0.25, 0.01 * seconds) }

    /// The share of differing bits at the best of a few alignments (±200 ms: codecs add a little silence at the
    /// start), over the moments not quiet in both. Two recordings quiet throughout differ by nothing.
    public func difference(from other: AudioFingerprint) -> Double {
        var best = 1.0
        for shift in -4...4 {
            var differing = 0, compared = 0
            for i in moments.indices {
                let j = i + shift
                guard j >= 0, j < other.moments.count else { continue }
                let a = moments[i], b = other.moments[j]
                if a & Self.quietBit != 0 && b & Self.quietBit != 0 { continue }
                differing += ((a ^ b) & ~Self.quietBit).nonzeroBitCount
                compared += 15
            }
            if compared == 0 { return 0 }
            best = min(best, Double(differing) / Double(compared))
        }
        return best
    }

    /// Log-mel frames (10 ms) pooled into 16 bands, then into windows of 200 ms every 50 ms.
    struct Builder {
        private let mel = LogMelSpectrogram(.yamnet)
        private var pending: [Float] = []
        private var frames: [[Float]] = []
        private var windows: [[Float]] = []
        private var samples = 0

        mutating func add(_ block: [Float]) {
            samples += block.count
            pending += block
            let count = mel.frameCount(pending.count)
            guard count > 0 else { return }
            let bands = mel.settings.melBands, perPool = bands / AudioFingerprint.bandsPooled
            let values = mel.compute(pending[...])
            for f in 0..<count {
                frames.append((0..<AudioFingerprint.bandsPooled).map { p in
                    var sum: Float = 0
                    for b in 0..<perPool { sum += values[f * bands + p * perPool + b] }
                    return sum / Float(perPool)
                })
                if frames.count == AudioFingerprint.windowFrames {
                    windows.append((0..<AudioFingerprint.bandsPooled).map { b in frames.reduce(0) { $0 + $1[b] } / Float(frames.count) })
                    frames.removeFirst(AudioFingerprint.hopFrames)
                }
            }
            pending.removeFirst(count * mel.settings.hop)
        }

        func finish() -> AudioFingerprint {
            let levels = windows.map { $0.reduce(0, +) / Float($0.count) }
            let loud = levels.sorted().dropLast(levels.count / 20).last ?? 0  // the 95th percentile: one click is not "loud"
            var moments: [UInt16] = []
            moments.reserveCapacity(windows.count)
            for n in windows.indices.dropFirst() {
                var bits: UInt16 = levels[n] < loud - AudioFingerprint.quietBelowLoud ? AudioFingerprint.quietBit : 0
                for b in 0..<(AudioFingerprint.bandsPooled - 1) {
                    let now = windows[n][b] - windows[n][b + 1], before = windows[n - 1][b] - windows[n - 1][b + 1]
                    if now - before > 0 { bits |= 1 << UInt16(b) }
                }
                moments.append(bits)
            }
            return AudioFingerprint(moments: moments, duration: Double(samples) / 16_000)
        }
    }
}
