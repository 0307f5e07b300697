import EarshotCore
import Foundation

/// What live sound classification reports for each window.
public struct LiveSoundEvent: Sendable, Equatable {
    public var start: Double
    public var end: Double
    /// Top label after smoothing, or nil when its confidence is under the threshold.
    public var label: String?
    public var confidence: Float
    public var top: [LabelScore]
    /// Time spent embedding and classifying this window.
    public var computeSeconds: Double
}

/// Windowed analysis of a live stream, like SoundAnalysis: a window of `window.duration` every hop,
/// scores optionally averaged over the last `smoothing` windows, a label only above `threshold`.
public final class LiveSoundClassifier: @unchecked Sendable {
    public let classifier: SoundClassifier
    public var threshold: Float = 0.7
    public var smoothing = 1

    public init(classifier: SoundClassifier) { self.classifier = classifier }

    public func events(from source: AudioSource) -> AsyncThrowingStream<LiveSoundEvent, Error> {
        producedStream { [self] emit in try await run(source, emit: emit) }
    }

    private func run(_ source: AudioSource, emit: (LiveSoundEvent) -> Void) async throws {
        let rate = SoundEmbedder.sampleRate
        let window = classifier.window
        let windowSamples = classifier.embedder.windowSamples(window)
        let hop = Int(window.hop * Double(rate))
        var buffer: [Float] = []
        var consumed = 0  // absolute index of buffer[0]
        var recent: [[Float]] = []
        for try await chunk in source.chunks(sampleRate: rate) {
            if Task.isCancelled { break }
            buffer += chunk
            while buffer.count >= windowSamples {
                let started = Date()
                let audio = AudioBuffer(samples: Array(buffer[0..<windowSamples]), sampleRate: rate)
                let windows = try classifier.embedder.windows(of: audio, settings: WindowSettings(duration: window.duration, overlap: 0))
                let scores = classifier.scores(of: windows)[0]
                recent.append(scores)
                if recent.count > max(1, smoothing) { recent.removeFirst() }
                var mean = [Float](repeating: 0, count: scores.count)
                for s in recent { for i in s.indices { mean[i] += s[i] / Float(recent.count) } }
                let top = mean.top(3, labels: classifier.labels)
                let best = top[0]
                emit(LiveSoundEvent(start: Double(consumed) / Double(rate), end: Double(consumed + windowSamples) / Double(rate),
                                    label: best.confidence >= threshold ? best.label : nil, confidence: best.confidence,
                                    top: top, computeSeconds: Date().timeIntervalSince(started)))
                buffer.removeFirst(min(hop, buffer.count))
                consumed += hop
            }
        }
    }
}
