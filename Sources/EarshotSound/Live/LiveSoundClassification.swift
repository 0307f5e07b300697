import EarshotCore
import Foundation

/// What live sound classification reports for each window.
public struct LiveSoundEvent: Sendable, Equatable, Codable {
    public var start: Double
    public var end: Double
    /// Top label after smoothing, or nil when its confidence is under the threshold.
    public var label: String?
    public var confidence: Float
    public var top: [LabelScore]
    /// Time spent embedding and classifying this window.
    public var computeSeconds: Double

    private enum CodingKeys: String, CodingKey { case start, end, label, confidence, top, computeSeconds = "compute_seconds" }

    public func encode(to encoder: Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(start, forKey: .start)
        try c.encode(end, forKey: .end)
        try c.encode(label, forKey: .label)  // null, not absent, under the threshold
        try c.encode(confidence, forKey: .confidence)
        try c.encode(top, forKey: .top)
        try c.encode(computeSeconds, forKey: .computeSeconds)
    }
}

extension SoundClassifier {
    /// How live classification reports: a label only at or above `threshold`, scores averaged over the
    /// last `smoothing` windows.
    public struct LiveSettings: Sendable, Codable, Equatable {
        public var threshold: Float = 0.7
        public var smoothing = 1
        public init(threshold: Float = 0.7, smoothing: Int = 1) {
            self.threshold = threshold
            self.smoothing = smoothing
        }
    }

    /// Windowed analysis of a live stream, like SoundAnalysis: a window of `window.duration` every hop.
    /// The stream ends with the source; stop listening to stop the source.
    public func listen(_ source: any AudioSource, settings: LiveSettings = LiveSettings()) -> AsyncThrowingStream<LiveSoundEvent, Error> {
        producedStream { emit in try await run(source, settings: settings, emit: emit) }
    }

    private func run(_ source: any AudioSource, settings: LiveSettings, emit: (LiveSoundEvent) -> Void) async throws {
        let classifier = self
        let threshold = settings.threshold, smoothing = settings.smoothing
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
