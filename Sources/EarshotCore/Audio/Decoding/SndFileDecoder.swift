internal import CSndFile
import Foundation

/// A decoder's output a block at a time: interleaved float samples at the file's own rate.
protocol BlockDecoder: AnyObject {
    var channels: Int { get }
    var sampleRate: Int { get }
    /// Frames in the whole file, when the container says.
    var frameCount: Int? { get }
    /// Up to `frames` frames, interleaved; empty at the end.
    func read(frames: Int) throws -> [Float]
}

/// FLAC, Ogg Vorbis/Opus, MP3, AIFF and the other formats libsndfile reads.
final class SndFileStream: BlockDecoder {
    private let file: OpaquePointer
    let channels: Int
    let sampleRate: Int
    let frameCount: Int?

    init(path: String, displayName: String) throws {
        var info = SF_INFO()
        guard let file = sf_open(path, Int32(SFM_READ), &info) else {
            throw AudioError.notAudio(path: displayName, detail: String(cString: sf_strerror(nil)))
        }
        guard info.channels > 0, info.samplerate > 0 else {
            sf_close(file)
            throw AudioError.unsupported(path: displayName, detail: "\(info.channels) channels at \(info.samplerate) Hz")
        }
        self.file = file
        channels = Int(info.channels)
        sampleRate = Int(info.samplerate)
        // formats without a length in their header report SF_COUNT_MAX
        frameCount = info.frames > 0 && info.frames < 1 << 40 ? Int(info.frames) : nil
    }

    deinit { sf_close(file) }

    func read(frames: Int) throws -> [Float] {
        var block = [Float](repeating: 0, count: frames * channels)
        let read = block.withUnsafeMutableBufferPointer { sf_readf_float(file, $0.baseAddress, sf_count_t(frames)) }
        block.removeSubrange((max(0, Int(read)) * channels)...)
        return block
    }
}
