import EarshotCore
import Foundation

/// Transcribes recordings of any length: VAD segmentation, then Whisper on each piece.
/// Load once, transcribe many files.
public final class FileTranscriber: @unchecked Sendable {
    public let recognizer: SpeechRecognizer
    private let detector: VoiceActivityDetector
    public var segmenter = SpeechSegmenter()

    public convenience init(model: WhisperModel = .default, threads: Int = SpeechRecognizer.defaultThreadCount,
                            language: String = "en", store: ModelStore = ModelStore()) throws {
        try self.init(model: model, threads: threads, language: language, store: store, floatReference: false)
    }

    /// - Parameter floatReference: Whisper from setup's float conversion (tests compare it with the shipped one).
    init(model: WhisperModel, threads: Int, language: String, store: ModelStore, floatReference: Bool) throws {
        recognizer = try SpeechRecognizer(model: model, threads: threads, language: language, store: store,
                                          floatReference: floatReference)
        detector = try VoiceActivityDetector(store: store)
    }

    /// - Parameter progress: called with the fraction done (segmentation counts for the first 5%).
    public func transcribe(_ audio: AudioBuffer, source: String, progress: ((Double) -> Void)? = nil) throws -> Transcript {
        let rate = Double(SpeechRecognizer.sampleRate)
        let audio = audio.sampleRate == SpeechRecognizer.sampleRate
            ? audio : try Resampler.resample(audio, to: SpeechRecognizer.sampleRate)
        let pieces = segmenter.pieces(of: audio, detector: detector) { progress?($0 * 0.05) }
        let total = pieces.reduce(0) { $0 + $1.read.end - $1.read.start }
        var done = 0
        var segments: [TranscriptSegment] = []
        for piece in pieces {
            let text = recognizer.recognize(audio.samples[piece.read.start..<piece.read.end])
            done += piece.read.end - piece.read.start
            progress?(0.05 + 0.95 * Double(done) / Double(max(1, total)))
            guard !text.isEmpty else { continue }
            segments.append(TranscriptSegment(start: Double(piece.speech.start) / rate,
                                              end: Double(piece.speech.end) / rate, text: text))
        }
        progress?(1)
        return Transcript(source: source, model: recognizer.model.rawValue, duration: audio.duration, segments: segments)
    }
}
