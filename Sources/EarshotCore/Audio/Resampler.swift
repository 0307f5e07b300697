internal import CSoxr
import Foundation

/// Sample-rate conversion with libsoxr at high quality (passband to 0.95 Nyquist, > 100 dB rejection).
public enum Resampler {
    /// Audio in memory converted at once (the same filter, and the same samples, as a stream of blocks).
    public static func resample(_ buffer: AudioBuffer, to rate: Int) throws -> AudioBuffer {
        guard buffer.sampleRate != rate, !buffer.samples.isEmpty else {
            return AudioBuffer(samples: buffer.samples, sampleRate: rate)
        }
        let resampler = try StreamingResampler(from: buffer.sampleRate, to: rate)
        return AudioBuffer(samples: resampler.process(buffer.samples, flush: true), sampleRate: rate)
    }
}

/// Resamples a stream block by block, keeping filter state between blocks: live audio, and recordings
/// read a block at a time.
public final class StreamingResampler {
    private let soxr: soxr_t
    private let ratio: Double

    public init(from inputRate: Int, to outputRate: Int) throws {
        var error: soxr_error_t?
        var quality = soxr_quality_spec(UInt(SOXR_HQ), 0)
        guard let s = soxr_create(Double(inputRate), Double(outputRate), 1, &error, nil, &quality, nil), error == nil else {
            throw AudioError.resampling(detail: error.map { String(cString: $0) } ?? "soxr_create failed")
        }
        soxr = s
        ratio = Double(outputRate) / Double(inputRate)
    }

    deinit { soxr_delete(soxr) }

    /// Feeds samples and returns whatever output is ready; pass `flush: true` at the end of the stream to
    /// drain what the filter still holds.
    public func process(_ input: [Float], flush: Bool = false) -> [Float] {
        var result: [Float] = []
        result.reserveCapacity(Int(Double(input.count) * ratio) + 64)
        var space = [Float](repeating: 0, count: Int(Double(input.count) * ratio) + 4096)
        input.withUnsafeBufferPointer { inp in
            space.withUnsafeMutableBufferPointer { out in
                var used = 0
                repeat {  // the output space may fill before all input is taken
                    var taken = 0, done = 0
                    _ = soxr_process(soxr, inp.baseAddress.map { $0 + used }, inp.count - used, &taken, out.baseAddress, out.count, &done)
                    used += taken
                    result.append(contentsOf: out[0..<done])
                    if taken == 0 && done == 0 { break }
                } while used < inp.count
                guard flush else { return }
                while true {  // a nil input tells soxr the stream has ended
                    var done = 0
                    _ = soxr_process(soxr, nil, 0, nil, out.baseAddress, out.count, &done)
                    if done == 0 { break }
                    result.append(contentsOf: out[0..<done])
                }
            }
        }
        return result
    }
}
