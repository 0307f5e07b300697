import EarshotCore

/// `SpeechSegmenter` over a recording that arrives a block at a time: it finds the same pieces as over
/// the whole recording, hands each one over with its samples as soon as no later audio can change it,
/// and holds only the audio a piece may still need, so memory does not grow with the recording.
final class PieceStream {
    /// A piece and the samples Whisper reads for it.
    struct Ready {
        var piece: SpeechSegmenter.Piece
        var samples: ArraySlice<Float>
    }

    private let segmenter: SpeechSegmenter
    private let detector: VoiceActivityDetector
    private let rate: Int
    private var history = AudioHistory(keep: nil)
    /// Where the detector last said no speech was going on. A region it reports later starts after this
    /// (less the ~0.3 s it reaches back when speech begins; `reach` allows more).
    private var lastQuiet = 0
    private let reach: Int
    /// Neighbouring regions merged so far, which a later region may still join.
    private var open: SpeechRegion?
    /// Merged regions no later region can join, waiting for their trailing padding to arrive.
    private var decided: [SpeechRegion] = []

    init(segmenter: SpeechSegmenter, detector: VoiceActivityDetector, sampleRate: Int) {
        self.segmenter = segmenter
        self.detector = detector
        rate = sampleRate
        reach = 3 * sampleRate / 2
        detector.reset()
        for _ in 0..<Self.marginWindows { _ = detector.accept(Self.quiet[...]) }
    }

    /// Windows of silence the detector hears before and after the recording (half a second): silero starts from an
    /// empty state and judges each window with what came before, so a word at the very start of a file, or one
    /// ending with it, was often not heard at all (a lone digit said in 0.3–0.7 s).
    static let marginWindows = 16
    private static let quiet = [Float](repeating: 0, count: VoiceActivityDetector.window)
    private var margin: Int { Self.marginWindows * VoiceActivityDetector.window }

    /// Samples of the recording so far.
    var length: Int { history.end }
    /// Samples held now (at most about a minute, however long the recording).
    var samplesHeld: Int { history.count }

    /// Adds the next block; returns the pieces it completed, in order.
    func append(_ block: [Float]) -> [Ready] {
        history.append(block)
        take(detector.accept(block[...]) { [self] speaking in
            if !speaking { lastQuiet = detector.heard - margin }
        })
        // a region is decided once no later one can join it: too long a pause, or too long a window already
        if let region = open, Double(lastQuiet - reach - region.end) / Double(rate) > segmenter.mergeGap
            || Double(lastQuiet - reach - region.start) / Double(rate) > segmenter.mergeLimit {
            decided.append(region)
            open = nil
        }
        let ready = release(total: nil)
        let oldest = [open?.start, decided.first?.start, lastQuiet - reach].compactMap { $0 }.min()!
        history.forget(before: segmenter.readRange(of: SpeechRegion(start: max(0, oldest), end: max(0, oldest)),
                                                   sampleRate: rate, totalSamples: .max).start)
        return ready
    }

    /// Ends the recording: the pieces still held.
    func finish() -> [Ready] {
        for _ in 0..<Self.marginWindows { take(detector.accept(Self.quiet[...])) }
        take(detector.flush())
        detector.reset()
        if let region = open { decided.append(region) }
        open = nil
        return release(total: history.end)
    }

    /// Regions the detector closed: trimmed to their sound, then merged into `open` or starting a new one.
    private func take(_ regions: [SpeechRegion]) {
        for said in regions {
            // the detector's samples count the margin before the recording
            let heard = SpeechRegion(start: max(0, said.start - margin), end: min(history.end, said.end - margin))
            guard heard.end > heard.start, let region = SpeechSegmenter.trimQuiet(heard, audio: history.samples(from: heard.start, to: heard.end),
                                                         sampleRate: rate) else { continue }
            if let last = open, segmenter.joins(region, last, sampleRate: rate) {
                open!.end = max(last.end, region.end)
            } else {
                if let last = open { decided.append(last) }
                open = region
            }
        }
    }

    /// The decided regions whose audio has all arrived (all of them once `total` is known), as pieces.
    private func release(total: Int?) -> [Ready] {
        var ready: [Ready] = []
        while let region = decided.first {
            let pieces = segmenter.pieces(from: [region], sampleRate: rate, totalSamples: total ?? .max)
            guard total != nil || pieces.last!.read.end <= history.end else { break }
            decided.removeFirst()
            ready += pieces.map { Ready(piece: $0, samples: history.samples(from: $0.read.start, to: $0.read.end)) }
        }
        return ready
    }
}
