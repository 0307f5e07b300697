import EarshotCore
import Foundation

/// Voice features for sound classifiers: each analysis window's vector is the d-vector of the speech in it
/// (the speaker encoder's L2-normalised 0.8 s vectors, every 0.4 s, that lie inside the window, averaged and
/// normalised: the encoder's own utterance recipe). YAMNet's embeddings carry the recording conditions more
/// than the voice; a male/female classifier trained on one corpus scored 0.849 with them on speakers of
/// other corpora.
public final class SpeakerWindowEmbedder: WindowEmbedder {
    public let encoder: SpeakerEncoder

    public init(encoder: SpeakerEncoder) { self.encoder = encoder }

    public var features: SoundFeatures { .speaker }
    public var modelHash: String { encoder.modelHash }
    public var frontEndSettings: LogMelSpectrogram.Settings { encoder.frontEnd.settings }
    /// One encoder window: 80 frames of 160 samples plus the FFT's overhang.
    public var minimumWindowSamples: Int { (SpeakerEncoder.windowFrames - 1) * 160 + encoder.frontEnd.settings.fftSize }

    public func windows(of audio: AudioBuffer, settings: WindowSettings) throws -> [SoundWindow] {
        let samples = try prepared(audio, settings: settings)
        let windowSamples = windowSamples(settings)
        let vectors = try encoder.windowEmbeddings(samples[...])  // vector v covers frames 40v ..< 40v + 80
        let rate = Double(Self.sampleRate)
        let frames = encoder.frontEnd.frameCount(windowSamples)
        let stride = SpeakerEncoder.strideFrames
        return settings.starts(count: samples.count, windowSamples: windowSamples, sampleRate: Self.sampleRate).map { start in
            // encoder windows wholly inside frames first ..< first + frames
            let first = start / 160
            let lowest = min(vectors.count - 1, (first + stride - 1) / stride)
            let highest = min(vectors.count - 1, (first + frames - SpeakerEncoder.windowFrames) / stride)
            // a window narrower than the hop grid still gets the encoder window nearest its start
            let chosen = highest >= lowest ? Array(vectors[lowest...highest]) : [vectors[lowest]]
            return SoundWindow(start: Double(start) / rate, end: Double(start + windowSamples) / rate,
                               embedding: SpeakerEncoder.mean(chosen), scores: [])
        }
    }
}
