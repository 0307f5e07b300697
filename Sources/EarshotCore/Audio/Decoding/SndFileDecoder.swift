internal import CSndFile
import Foundation

/// FLAC, Ogg Vorbis/Opus, MP3, AIFF and the other formats libsndfile reads.
public struct SndFileDecoder: Sendable {
    public init() {}

    public func decode(path: String, displayName: String) throws -> DecodedAudio {
        var info = SF_INFO()
        guard let file = sf_open(path, Int32(SFM_READ), &info) else {
            let reason = String(cString: sf_strerror(nil))
            throw AudioError.notAudio(path: displayName, detail: reason)
        }
        defer { sf_close(file) }
        let channels = Int(info.channels)
        guard channels > 0, info.samplerate > 0 else {
            throw AudioError.unsupported(path: displayName, detail: "\(channels) channels at \(info.samplerate) Hz")
        }
        var samples: [Float] = []
        if info.frames > 0 && info.frames < Int64(Int32.max) { samples.reserveCapacity(Int(info.frames) * channels) }
        let block = 65_536
        var chunk = [Float](repeating: 0, count: block * channels)
        while true {
            let read = chunk.withUnsafeMutableBufferPointer { sf_readf_float(file, $0.baseAddress, sf_count_t(block)) }
            if read <= 0 { break }
            samples.append(contentsOf: chunk[0..<(Int(read) * channels)])
        }
        return DecodedAudio(interleaved: samples, channels: channels, sampleRate: Int(info.samplerate))
    }
}
