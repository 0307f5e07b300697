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
        self.displayName = displayName
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
        decoded += max(0, Int(read))
        if read < frames { try checkComplete() }
        return block
    }

    /// Frames decoded so far.
    private var decoded = 0
    private let displayName: String

    /// At the end of the stream: a compressed file that stops well short of the length its header gives (FLAC's
    /// STREAMINFO, Ogg's last granule, MP3's frame count) was cut off, and is refused as a truncated WAV is,
    /// rather than transcribed in part without a word. MP3 lengths are estimates: half a second or 2% may go.
    private func checkComplete() throws {
        guard let expected = frameCount else { return }
        let missing = expected - decoded
        guard missing > max(sampleRate / 2, expected / 50) else { return }
        func seconds(_ frames: Int) -> String { String(format: "%.1f s", Double(frames) / Double(sampleRate)) }
        throw AudioError.truncated(path: displayName, detail: "the header promises \(seconds(expected)) of audio, "
                                   + "only \(seconds(decoded)) could be decoded")
    }
}
