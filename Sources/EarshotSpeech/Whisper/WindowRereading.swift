import EarshotCore
import Foundation

/// A window's reading, and what is read again where Whisper ends it early: the rest of the window after its last
/// segment, until what remains holds no sound, and (where the last segment runs on into the next sentence) the rest
/// from the pause inside it as well, keeping the likelier reading. `WhisperDecoder` reads each part.
extension WhisperDecoder {
    /// Decodes up to 30 s of 16 kHz audio.
    func decode(_ samples: ArraySlice<Float>, as decoding: SpeechRecognizer.Decoding) throws -> Window {
        var window = try read(samples, as: decoding, padding: Self.paddingSamples(timestamps: decoding.timestamps))
        guard decoding.timestamps else {
            // A short live piece sometimes comes back said twice ("A small boat drifted… A small boat drifted…"),
            // which two copies do not make compressible enough for the ratio test: read it again with 10 s of
            // silence after it, as sherpa-onnx's default was.
            guard RepetitionCheck.looksLikeALoop(window.segments.map(\.text).joined(separator: " ")) else { return window }
            return try read(samples, as: decoding, padding: 10 * WhisperFeatures.sampleRate)
        }
        // Whisper sometimes ends a window early, after a segment that closes well before the audio does (a
        // sentence 22–26 s into a 27 s window came back empty). As openai-whisper's own loop does, the rest of
        // the window, from the last segment's end, is then read again, until what remains holds no sound.
        var onsets: AudioOnsets?
        var read = 0  // samples of the window read up to the last segment's end
        let rate = Double(WhisperFeatures.sampleRate)
        while let last = window.segments.last {
            var end = Int(last.end * rate)
            guard end > read + WhisperFeatures.sampleRate / 2, end < samples.count else { break }
            onsets = onsets ?? AudioOnsets(samples)
            let overrun = Self.pauseBeforeOverrun(of: last, onsets: onsets!, after: read)
            let unread = onsets!.loudSeconds(after: last.end) >= Self.unreadSpeech
            guard unread || overrun != nil else { break }
            var more = unread ? try rest(of: samples, from: end, as: decoding) : Window(segments: [], language: window.language)
            // In noise the alignment can end the last word short of its sound ("management." 5.36–5.45 s, said until
            // 5.94, Whisper's timestamp at 6.0): the rest, read from inside that word, then says it again ("…its
            // management. management."). Read from the segment's timestamp instead, a rest of noise came back as
            // "Thank you.", and words Whisper left out before its timestamp ("…19 inches. End quote.") were lost.
            more.dropRepeat(of: last, readUntil: window.readUntil, offset: Double(end) / rate)
            // Whisper also ends a window with a segment that closes inside the next sentence's first words ("…in two
            // weeks." ending 1.1 s into "Music from the radio…", after a 1.6 s pause): read from there, the rest
            // is a sentence begun mid-word and comes back garbled ("Don't feel like it's a wild-neck-hooked
            // dinner."). Where the last segment ends in sound that follows a pause inside it, the rest is also read
            // from that pause, and the likelier reading is kept (the last segment then ends where the pause begins,
            // without the words that reading holds again).
            if let cut = overrun.map({ (pause: $0, sound: $0.upperBound) })
                ?? onsets!.soundCut(at: last.end, after: last.start, pausesOf: Self.pauseBeforeUnreadSound) {
                let from = Int(max(cut.pause.lowerBound, cut.pause.upperBound - Self.leadBeforeUnreadSound) * rate)
                let other = try rest(of: samples, from: from, as: decoding)
                if Self.likelihood(other) > Self.likelihood(more) {
                    let reread = other.segments.map(\.text).joined(separator: " ")
                    window.segments.removeLast()
                    if let kept = last.cut(at: cut.pause, rereadAs: reread, textOf: { self.tokenizer.text(of: $0, below: self.spec.eot) }) {
                        window.segments.append(kept)
                    }
                    (more, end) = (other, from)
                }
            }
            guard !more.segments.isEmpty else { break }
            window.segments += more.segments.map { $0.shifted(by: Double(end) / rate) }
            window.readUntil = more.readUntil > 0 ? more.readUntil + Double(end) / rate : 0
            read = end
        }
        if !decoding.words { for i in window.segments.indices { window.segments[i].words = nil } }
        return window
    }

    /// Where Whisper's text stops before the window's speech does with no pause long enough between (a window's last
    /// sentence cut to "…for Messer's Longman, the"), the alignment gives the last word the rest of the speech ("the"
    /// 2 s long, over "diary of Lady Willonby."): the pause before such a word, which the rest is read from. None
    /// that begins at or before sample `read`, where an earlier rest was read from: that reading ended the same way.
    static func pauseBeforeOverrun(of last: TranscriptSegment, onsets: AudioOnsets, after read: Int) -> Range<Double>? {
        guard let word = last.words?.last, onsets.loudSeconds(from: word.start, to: word.end) > WordAligner.longerThanAWord,
              let pause = onsets.pause(endingAt: word.start),
              Int(pause.lowerBound * Double(WhisperFeatures.sampleRate)) > read else { return nil }
        return pause
    }

    /// Sound left after a window's last segment that is read again (less is a breath or a click).
    static let unreadSpeech = 0.3
    /// The shortest pause inside a last segment ending in sound after which the rest is also read from the pause
    /// (between sentences; a pause within one is seldom this long), and the quiet kept before the sound then.
    static let pauseBeforeUnreadSound = 0.5
    static let leadBeforeUnreadSound = 0.3
    /// How far past the timestamp that closed a segment a repeat of its last words may end and still be a repeat.
    static let repeatSlack = 0.2

    /// A reading of a window from `from` samples on, after Whisper ended its text before there: none where it is
    /// unlikely (average log-probability per token below `logProbThreshold`, where a window's reading falls back
    /// to sampling), or fairly unlikely where Whisper also doubts that it holds speech (`restLooksLikeNoise`). What
    /// Whisper writes for the noise after speech is seldom likely ("Thanks for watching.", −1.03; a missed "End
    /// quote." read there: −0.45), and a rest is only read in case the first reading ended early.
    private func rest(of samples: ArraySlice<Float>, from: Int, as decoding: SpeechRecognizer.Decoding) throws -> Window {
        var reading = try read(samples.dropFirst(from), as: decoding, padding: Self.paddingSamples(timestamps: true))
        if Self.likelihood(reading) < decoding.logProbThreshold || Self.restLooksLikeNoise(reading) { reading.segments = [] }
        return reading
    }

    /// Whether a reading of a window's rest is what Whisper writes over noise: below −0.6 per token with a
    /// no-speech probability of 0.3 or more. Speech recorded with 0.7–1.8 s of rain, sea, fire, a helicopter, a
    /// chainsaw or a clock after it (the 173 utterances as the noisy VCTK set records them, BENCHMARKS.md) had its
    /// rest of noise read as "Thank you.", "Thank you very much.", "Thanks for watching.", "Bye." or "George." after
    /// 10 utterances with base and 7 with tiny.en, at −0.68 to −1.0 with no-speech 0.42–0.92; the rests that held
    /// words Whisper had left out ("the middle yard.", "End quote.", "1814") were at −0.37 to −0.78 with no-speech
    /// at most 0.05 below −0.6. openai-whisper's own test for a silent window (no-speech above 0.6 and below −1)
    /// is for a reading whose audio the detector found speech in; a rest is read only in case that reading ended early.
    static func restLooksLikeNoise(_ reading: Window) -> Bool {
        guard let first = reading.segments.first, let noSpeech = first.noSpeechProbability else { return false }
        return likelihood(reading) < restUnlikely && noSpeech >= restNoSpeech
    }
    static let restUnlikely = -0.6
    static let restNoSpeech = 0.3

    /// How likely a reading of a window's rest is: its average log-probability per token (nothing read: none).
    static func likelihood(_ window: Window) -> Double {
        window.segments.isEmpty ? -.infinity : window.segments[0].averageLogProbability ?? -.infinity
    }
}
