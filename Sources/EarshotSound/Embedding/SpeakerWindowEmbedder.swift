import EarshotCore
import EarshotSpeech
import Foundation

/// Voice features for sound classifiers: each analysis window's vector is the d-vector of the speech in it
/// (the speaker encoder's L2-normalised 0.8 s vectors, every 0.4 s, that lie inside the window, averaged and
/// normalised: the encoder's own utterance recipe). YAMNet's embeddings carry the recording conditions more
/// than the voice; a male/female classifier trained on one corpus scored 0.849 with them on speakers of
/// other corpora.
///
/// The recording is first brought to one speech level (`SpeechLevel`) and its log-mel frames lose their steady
/// noise floor (`NoiseFloor`); each window also carries how much of it the speech detector hears as speech
/// (`SoundWindow.speech`): a window of pause holds no voice, and under noise its d-vector is the noise's, so
/// training leaves such windows out and a recording's classification weighs its windows by their speech
/// (`SpeechWeights.swift`). Trained on LibriSpeech and tested on 180 voices of other corpora, male/female went
/// from 0.978 / 0.933 / 0.706 (as recorded / 10 dB SNR / 5 dB) to 0.983 / 0.978 / 0.983 (BENCHMARKS.md).
public final class SpeakerWindowEmbedder: WindowEmbedder {
    public let encoder: SpeakerEncoder
    public let speech: SpeechProbabilities

    public init(encoder: SpeakerEncoder, speech: SpeechProbabilities) {
        self.encoder = encoder
        self.speech = speech
    }

    public var features: SoundFeatures { .speaker }
    /// What changed how these features are computed from a recording, beyond the encoder's own build:
    /// "2": the recording brought to one speech level and its noise floor removed, windows weighed by speech.
    static let frontEndVersion = "voice-front-end-2"
    /// The encoder's build and this front-end's version: a model trained on features computed otherwise is
    /// refused (retrain it) instead of being read with these.
    public var modelHash: String { SHA256.hex(Data("\(encoder.modelHash)|\(Self.frontEndVersion)".utf8)) }
    public var frontEndSettings: LogMelSpectrogram.Settings { encoder.frontEnd.settings }
    /// One encoder window: 80 frames of 160 samples plus the FFT's overhang.
    public var minimumWindowSamples: Int { (SpeakerEncoder.windowFrames - 1) * 160 + encoder.frontEnd.settings.fftSize }

    public func windows(of audio: AudioBuffer, settings: WindowSettings) throws -> [SoundWindow] {
        // one speech level and no steady noise floor: the network reads a recording's voice, not its gain or its room
        let samples = SpeechLevel.normalised(try prepared(audio, settings: settings))
        let windowSamples = windowSamples(settings)
        // vector v covers frames 40v ..< 40v + 80
        let vectors = try encoder.windowEmbeddings(samples[...], noiseFloorRemoved: true)
        let frameSpeech = try speech.frames(samples[...])  // frame j covers samples 512j ..< 512(j + 1)
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
                               embedding: SpeakerEncoder.mean(chosen), scores: [],
                               speech: Self.meanSpeech(frameSpeech, from: start, count: windowSamples))
        }
    }

    /// The mean probability of the detector's frames that start inside samples `start ..< start + count`.
    static func meanSpeech(_ frames: [Float], from start: Int, count: Int) -> Float {
        let size = SpeechProbabilities.frameSamples
        let first = (start + size - 1) / size, last = min(frames.count, (start + count) / size)
        guard first < last else { return 0 }
        return frames[first..<last].reduce(0, +) / Float(last - first)
    }
}
