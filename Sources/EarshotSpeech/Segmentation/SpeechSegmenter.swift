import EarshotCore

/// Cuts a whole recording into pieces Whisper can read: speech regions from the VAD, padded so first
/// and last words are not clipped, neighbours merged for context, and nothing longer than Whisper's window.
public struct SpeechSegmenter: Sendable {
    /// Audio kept before each region: the VAD fires ~0.2 s late (and later still at the very start of a
    /// stream, where it has no context yet: regions within `startSnap` of it are read from the beginning).
    public var leadPadding = 0.5
    public var startSnap = 1.0
    /// Audio kept after each region (the VAD stops a little early).
    public var tailPadding = 0.5
    /// Regions closer than this are read together...
    public var mergeGap = 0.3
    /// ...while the piece stays under this length.
    public var mergeLimit = 15.0

    public init() {}

    /// Files: Whisper reads windows of up to ~28 s of consecutive speech, cut only at pauses longer than 2 s
    /// (WhisperX's cut & merge): whole sentences with their context, several timed segments per window.
    /// Live transcription keeps the short pieces of `init()`.
    public static let windows: SpeechSegmenter = {
        var segmenter = SpeechSegmenter()
        segmenter.mergeGap = 2.0
        // a short first word ("we", "she", "he") often goes unheard by the VAD, which then starts the region at
        // the second word: reading from the start of a file whose speech begins in its first 2 s gives Whisper
        // those words back (sentences said a word at a time, bench/word_timing.py: BENCHMARKS.md). A longer lead
        // before every window as well moved one sentence's last word onto the next in FileTranscriberTests.
        segmenter.startSnap = 2.0
        segmenter.mergeLimit = SpeechRecognizer.maxSeconds - segmenter.leadPadding - segmenter.tailPadding - 1
        return segmenter
    }()

    /// A piece to transcribe: `speech` is what the VAD heard (used for timestamps), `read` adds padding.
    public struct Piece: Sendable, Equatable {
        public var speech: SpeechRegion
        public var read: SpeechRegion
    }

    /// The pieces of a whole recording in memory (the same as `Transcriber` finds reading it a block at a time).
    public func pieces(of audio: AudioBuffer, detector: VoiceActivityDetector) -> [Piece] {
        let stream = PieceStream(segmenter: self, detector: detector, sampleRate: audio.sampleRate)
        var pieces: [Piece] = []
        let next = audio.blockReader(size: audio.sampleRate)
        while let block = next() { pieces += stream.append(block).map(\.piece) }
        return pieces + stream.finish().map(\.piece)
    }

    /// The VAD closes a region only after a stretch of silence and keeps some of it: cut the region back to
    /// where its sound is within 30 dB of its loudest 10 ms, so timestamps end when the voice does.
    /// Returns nil for a region with no sound at all.
    /// `audio` holds the region's samples.
    public static func trimQuiet(_ region: SpeechRegion, audio samples: ArraySlice<Float>, sampleRate: Int) -> SpeechRegion? {
        let frame = sampleRate / 100
        let count = samples.count / frame
        guard count > 0 else { return region }
        let energy = (0..<count).map { i -> Float in
            let a = samples.startIndex + i * frame
            return samples[a..<(a + frame)].reduce(0) { $0 + $1 * $1 } / Float(frame)
        }
        let threshold = max(energy.max()! * 1e-3, 1e-9)
        guard let first = energy.firstIndex(where: { $0 >= threshold }),
              let last = energy.lastIndex(where: { $0 >= threshold }) else { return nil }
        return SpeechRegion(start: region.start + first * frame, end: min(region.end, region.start + (last + 1) * frame))
    }

    /// The audio to give Whisper for a region the VAD found: the region plus padding.
    public func readRange(of speech: SpeechRegion, sampleRate: Int, totalSamples: Int) -> SpeechRegion {
        let rate = Double(sampleRate)
        let start = Double(speech.start) <= startSnap * rate ? 0 : speech.start - Int(leadPadding * rate)
        return SpeechRegion(start: start, end: min(totalSamples, speech.end + Int(tailPadding * rate)))
    }

    /// Whether `region` is read together with `last`, the region before it.
    func joins(_ region: SpeechRegion, _ last: SpeechRegion, sampleRate: Int) -> Bool {
        let rate = Double(sampleRate)
        return Double(region.start - last.end) / rate <= mergeGap && Double(region.end - last.start) / rate <= mergeLimit
    }

    func pieces(from regions: [SpeechRegion], sampleRate: Int, totalSamples: Int) -> [Piece] {
        let rate = Double(sampleRate)
        var merged: [SpeechRegion] = []
        for region in regions.sorted(by: { $0.start < $1.start }) {
            if let last = merged.last, joins(region, last, sampleRate: sampleRate) {
                merged[merged.count - 1].end = max(last.end, region.end)
            } else {
                merged.append(region)
            }
        }
        let maxLength = Int((SpeechRecognizer.maxSeconds - leadPadding - tailPadding - 0.5) * rate)
        return merged.flatMap { region -> [Piece] in
            // the VAD splits at max speech length already; this is a guarantee, not the usual path
            let parts = max(1, Int((Double(region.end - region.start) / Double(maxLength)).rounded(.up)))
            let size = (region.end - region.start + parts - 1) / parts
            return (0..<parts).map { i in
                let speech = SpeechRegion(start: region.start + i * size, end: min(region.end, region.start + (i + 1) * size))
                return Piece(speech: speech, read: readRange(of: speech, sampleRate: sampleRate, totalSamples: totalSamples))
            }
        }
    }
}
