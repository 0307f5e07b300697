internal import CSoxr
import Foundation

/// Sample-rate conversion with libsoxr at high quality (passband to 0.95 Nyquist, > 100 dB rejection).
public enum Resampler {
    public static func resample(_ buffer: AudioBuffer, to rate: Int) throws -> AudioBuffer {
        guard buffer.sampleRate != rate, !buffer.samples.isEmpty else {
            return AudioBuffer(samples: buffer.samples, sampleRate: rate)
        }
        let ratio = Double(rate) / Double(buffer.sampleRate)
        let capacity = Int((Double(buffer.samples.count) * ratio).rounded(.up)) + 16
        var output = [Float](repeating: 0, count: capacity)
        var done = 0
        var quality = soxr_quality_spec(UInt(SOXR_HQ), 0)
        let error = buffer.samples.withUnsafeBufferPointer { input in
            output.withUnsafeMutableBufferPointer { out in
                soxr_oneshot(Double(buffer.sampleRate), Double(rate), 1, input.baseAddress, input.count, nil,
                             out.baseAddress, out.count, &done, nil, &quality, nil)
            }
        }
        if let error { throw AudioError.resampling(detail: String(cString: error)) }
        output.removeSubrange(done...)
        return AudioBuffer(samples: output, sampleRate: rate)
    }
}

/// Resamples a live stream chunk by chunk, keeping filter state between chunks.
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

    /// Feeds samples and returns whatever output is ready; pass `flush: true` at the end of the stream.
    public func process(_ input: [Float], flush: Bool = false) -> [Float] {
        var output = [Float](repeating: 0, count: Int(Double(input.count) * ratio) + 1024)
        var produced = 0
        input.withUnsafeBufferPointer { inp in
            output.withUnsafeMutableBufferPointer { out in
                var done = 0
                _ = soxr_process(soxr, inp.baseAddress, inp.count, nil, out.baseAddress, out.count, &done)
                produced = done
                if flush {
                    _ = soxr_process(soxr, nil, 0, nil, out.baseAddress! + done, out.count - done, &done)
                    produced += done
                }
            }
        }
        output.removeSubrange(produced...)
        return output
    }
}
