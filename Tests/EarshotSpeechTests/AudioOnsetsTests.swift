import EarshotCore
@testable import EarshotSpeech
import XCTest

/// Given where the alignment put each word and where the sound really stops and starts, expect the word
/// boundaries on the pauses.
final class AudioOnsetsTests: XCTestCase {
    /// Sound and silence in 10 ms frames: `true` is a tone, `false` near-silence.
    func audio(_ pattern: [(seconds: Double, loud: Bool)]) -> ArraySlice<Float> {
        var samples: [Float] = []
        for (seconds, loud) in pattern {
            let count = Int(seconds * 16000)
            samples += (0..<count).map { loud ? 0.3 * sin(Float($0) * 0.2) : 0.0001 * sin(Float($0) * 0.7) }
        }
        return samples[...]
    }

    func testAWordThatSwallowedThePauseEndsWhereTheSoundDoes() {
        // "morning" 0–1.0 s, a pause to 2.6 s, "we need" from 2.6 s; the alignment ran "morning" to 2.84
        let onsets = AudioOnsets(audio([(1.0, true), (1.6, false), (1.4, true)]))
        let refined = onsets.refine([(0.0, 2.84), (2.84, 3.3), (3.3, 4.0)])
        XCTAssertEqual(refined[0].end, 1.0, accuracy: 0.02)
        XCTAssertEqual(refined[1].start, 2.6, accuracy: 0.02)
    }

    /// The alignment gave a word no time at all ("We" at 2.84–2.84): both of its boundaries are as far from the
    /// pause, and the pause goes to the first, so the words stay in order.
    func testAZeroLengthWordAfterAPauseKeepsTheWordsInOrder() {
        let onsets = AudioOnsets(audio([(1.0, true), (1.6, false), (1.4, true)]))
        let refined = onsets.refine([(0.0, 2.84), (2.84, 2.84), (2.84, 3.3), (3.3, 4.0)])
        XCTAssertEqual(refined[0].end, 1.0, accuracy: 0.02, "the word before the pause ends with its sound")
        XCTAssertEqual(refined[1].start, 2.6, accuracy: 0.02, "the word after it starts with its sound")
        for (a, b) in zip(refined, refined.dropFirst()) { XCTAssertLessThanOrEqual(a.end, b.start + 1e-9) }
        for word in refined { XCTAssertLessThan(word.start, word.end) }
    }

    /// Whisper wrote "quick" for "the quick": the span the alignment gave it holds the left-out "the" (0.5–0.75 s),
    /// a 0.4 s pause and "quick" (1.15–1.5 s). The word starts at the stretch its own tokens attend to most: the
    /// second where they attend there, the first (unchanged) where they attend to it. A pause shorter than
    /// `ownSoundPause` (a closure inside a word) splits nothing.
    func testAWordStartsAtTheSoundItsTokensAttendTo() {
        let onsets = AudioOnsets(audio([(0.5, false), (0.25, true), (0.4, false), (0.35, true), (0.5, false)]))
        let word = TranscriptWord(word: " quick", start: 0.5, end: 1.5, probability: 0.9)
        // one token row over 100 columns of 20 ms: attention on 1.15–1.5 s, or on 0.5–0.75 s
        func matrix(attending range: Range<Double>) -> [[Float]] {
            [(0..<100).map { range.contains(Double($0) * 0.02) ? 1 : 0 }]
        }
        let later = WordAligner.startAtOwnSound([word], rows: [0..<1], matrix: matrix(attending: 1.15..<1.5), onsets: onsets)
        XCTAssertEqual(later[0].start, 1.15, accuracy: 0.02)
        XCTAssertEqual(later[0].end, 1.5, "the end stays")
        let earlier = WordAligner.startAtOwnSound([word], rows: [0..<1], matrix: matrix(attending: 0.5..<0.75), onsets: onsets)
        XCTAssertEqual(earlier[0].start, 0.5)
        let closure = AudioOnsets(audio([(0.5, false), (0.25, true), (0.15, false), (0.35, true), (0.5, false)]))
        let whole = WordAligner.startAtOwnSound([TranscriptWord(word: " quick", start: 0.5, end: 1.25, probability: 0.9)], rows: [0..<1],
                                                matrix: matrix(attending: 0.9..<1.25), onsets: closure)
        XCTAssertEqual(whole[0].start, 0.5, "a short pause is inside the word")
    }

    /// The path ran "dark." (said 0.6–1.0 s) over a 1.6 s pause into the next sentence's first word "Fresh" (from 2.6 s),
    /// as it does where Whisper closed a segment inside that word. Where the sound after the pause draws more of the
    /// next word's attention than of its own, the word ends at the pause and the next word starts there, so the pause
    /// goes to the boundary between them; where its own tokens attend to it more, or the pause is shorter than
    /// `unreadPause`, nothing moves.
    func testAWordRunOverALongPauseIntoTheNextWordEndsBeforeIt() {
        let onsets = AudioOnsets(audio([(0.2, false), (0.8, true), (1.6, false), (0.6, true), (0.3, false)]))
        let words = [TranscriptWord(word: " was", start: 0.2, end: 0.6, probability: 0.9),
                     TranscriptWord(word: " dark.", start: 0.6, end: 2.95, probability: 0.9),
                     TranscriptWord(word: " Fresh", start: 2.95, end: 3.2, probability: 0.9)]
        // one token row per word over 175 columns of 20 ms
        func matrix(_ ranges: [Range<Double>]) -> [[Float]] {
            ranges.map { r in (0..<175).map { r.contains(Double($0) * 0.02) ? 1 : 0 } }
        }
        let rows = [0..<1, 1..<2, 2..<3]
        let own = WordAligner.endAtOwnSound(words, rows: rows, matrix: matrix([0.2..<0.6, 0.6..<1.0, 2.6..<3.2]), onsets: onsets)
        XCTAssertEqual(own[1].end, 1.0, accuracy: 0.02, "the word ends where the pause begins")
        XCTAssertEqual(own[2].start, own[1].end, "the next word starts where it ends")
        let refined = onsets.refine(own)
        XCTAssertEqual(refined[1].start, 0.6, accuracy: 0.02)
        XCTAssertEqual(refined[1].end, 1.0, accuracy: 0.02)
        XCTAssertEqual(refined[2].start, 2.6, accuracy: 0.02, "the pause went to the boundary after the word")
        let ownSound = WordAligner.endAtOwnSound(words, rows: rows, matrix: matrix([0.2..<0.6, 0.6..<2.95, 2.95..<3.2]), onsets: onsets)
        XCTAssertEqual(ownSound, words, "its own tokens attend to the sound after the pause more")
        let short = AudioOnsets(audio([(0.2, false), (0.8, true), (0.3, false), (0.6, true), (0.3, false)]))
        let closeWords = [TranscriptWord(word: " was", start: 0.2, end: 0.6, probability: 0.9),
                          TranscriptWord(word: " dark.", start: 0.6, end: 1.6, probability: 0.9),
                          TranscriptWord(word: " Fresh", start: 1.6, end: 1.9, probability: 0.9)]
        let unmoved = WordAligner.endAtOwnSound(closeWords, rows: rows, matrix: matrix([0.2..<0.6, 0.6..<1.0, 1.3..<1.9]), onsets: short)
        XCTAssertEqual(unmoved, closeWords, "a pause under unreadPause splits nothing")
    }

    /// The path must end at the window's last column, so the last word takes the audio after it: where Whisper left out
    /// a window's last sentence, "lake." (0.6–1.0 s) ran over a 1.6 s pause and the 1.5 s sentence after it. It ends at
    /// its own sound, so the decoder reads the sentence again; not where the sound after the pause could be one word
    /// (its own, after a pause: sentences said a word at a time), nor where its tokens attend to that sound.
    func testAWindowsLastWordRunOverALeftOutSentenceEndsAtItsOwnSound() {
        let onsets = AudioOnsets(audio([(0.2, false), (0.8, true), (1.6, false), (1.5, true), (0.3, false)]))
        let lake = [TranscriptWord(word: " quiet", start: 0.2, end: 0.6, probability: 0.9),
                    TranscriptWord(word: " lake.", start: 0.6, end: 4.1, probability: 0.9)]
        func matrix(_ ranges: [Range<Double>]) -> [[Float]] {
            ranges.map { r in (0..<205).map { r.contains(Double($0) * 0.02) ? 1 : 0 } }
        }
        let own = WordAligner.endAtOwnSound(lake, rows: [0..<1, 1..<2], matrix: matrix([0.2..<0.6, 0.6..<1.0]), onsets: onsets)
        XCTAssertEqual(own[1].end, 1.0, accuracy: 0.02)
        let attended = WordAligner.endAtOwnSound(lake, rows: [0..<1, 1..<2], matrix: matrix([0.2..<0.6, 2.6..<4.1]), onsets: onsets)
        XCTAssertEqual(attended, lake, "its tokens attend to the sound after the pause")
        let word = AudioOnsets(audio([(0.2, false), (0.8, true), (0.7, false), (0.5, true), (0.3, false)]))
        let bags = [TranscriptWord(word: " red", start: 0.2, end: 0.98, probability: 0.9),
                    TranscriptWord(word: " bags.", start: 0.98, end: 2.2, probability: 0.9)]
        let kept = WordAligner.endAtOwnSound(bags, rows: [0..<1, 1..<2], matrix: matrix([0.2..<0.98, 0.98..<1.0]), onsets: word)
        XCTAssertEqual(kept, bags, "the sound after the pause could be the word itself")
    }

    /// The pause before a word that the matching started at its end ("the" after "Longman," and 0.94 s of quiet), which
    /// a window's rest is read from where the last word holds more sound than a word; none where the word runs on
    /// from the one before, nor for the quiet at the window's start.
    func testThePauseBeforeAWordIsTheOneEndingWhereItStarts() throws {
        let onsets = AudioOnsets(audio([(0.3, false), (1.0, true), (0.9, false), (2.0, true), (0.3, false)]))
        let pause = try XCTUnwrap(onsets.pause(endingAt: 2.2))
        XCTAssertEqual(pause.lowerBound, 1.3, accuracy: 0.02)
        XCTAssertEqual(pause.upperBound, 2.2, accuracy: 0.02)
        XCTAssertNil(onsets.pause(endingAt: 2.6), "inside the sound")
        XCTAssertNil(onsets.pause(endingAt: 0.3), "the window's leading quiet")
        XCTAssertEqual(onsets.loudSeconds(from: 2.2, to: 4.2), 2.0, accuracy: 0.02)
    }

    /// A segment closed 0.5 s into the sound after a 1.6 s pause (Whisper read "…two weeks." on into the next sentence):
    /// the pause before that sound is found; a segment that ends in the quiet, or holds no pause that long, has none.
    func testASegmentThatEndsInTheNextSoundFindsThePauseBeforeIt() throws {
        let onsets = AudioOnsets(audio([(1.0, true), (1.6, false), (1.4, true)]))
        let cut = try XCTUnwrap(onsets.soundCut(at: 3.1, after: 0.2, pausesOf: 0.5))
        XCTAssertEqual(cut.pause.lowerBound, 1.0, accuracy: 0.02)
        XCTAssertEqual(cut.pause.upperBound, 2.6, accuracy: 0.02)
        XCTAssertNil(onsets.soundCut(at: 2.0, after: 0.2, pausesOf: 0.5), "it ends in the pause")
        XCTAssertNil(onsets.soundCut(at: 3.1, after: 0.2, pausesOf: 2.0), "no pause that long")
        XCTAssertNil(onsets.soundCut(at: 3.1, after: 2.7, pausesOf: 0.5), "it begins after the pause")
    }

    /// Cut short at the pause, a segment's words that began after it share the time of the last word before it.
    func testASegmentCutShortKeepsEveryWordInsideIt() {
        let words = [TranscriptWord(word: " two", start: 2.3, end: 2.92, probability: 0.9),
                     TranscriptWord(word: " weeks.", start: 4.5, end: 5.64, probability: 0.9)]
        var segment = TranscriptSegment(start: 0, end: 5.64, text: "in two weeks.")
        segment.words = [TranscriptWord(word: " in", start: 0, end: 2.3, probability: 0.9)] + words
        let cut = segment.ending(at: 2.92)
        XCTAssertEqual(cut.end, 2.92)
        let times = cut.words!.map { [$0.start, $0.end] }
        XCTAssertEqual(times.count, 3)
        for (expected, actual) in zip([[0, 2.3], [2.3, 2.61], [2.61, 2.92]], times) {
            XCTAssertEqual(expected[0], actual[0], accuracy: 1e-9)
            XCTAssertEqual(expected[1], actual[1], accuracy: 1e-9)
        }
    }

    /// Cut at a pause from which the rest was read again: the words the alignment put after the pause go when that
    /// reading holds them again (a sentence with a long pause inside, read twice), and stay, inside the cut segment,
    /// when it does not (Whisper ran the segment on into the next sentence); the tokens follow the words kept.
    func testASegmentCutAtAPauseDropsOnlyTheWordsReadAgain() throws {
        let tokenizer = try WhisperTokenizer(vocabulary: try WhisperModel.base.files(in: ModelStore()).vocabulary)
        let spoken: [(String, Double)] = [(" The", 0.66), (" Hon.", 0.84), (" Bennet,", 1.88), (" who", 3.78), (" visited", 3.88), (" Newgate.", 4.24)]
        var segment = TranscriptSegment(start: 0.66, end: 5.0, text: "The Hon. Bennet, who visited Newgate.")
        segment.words = spoken.map { TranscriptWord(word: $0.0, start: $0.1, end: $0.1 + 0.1, probability: 0.9) }
        segment.tokens = tokenizer.encode(" " + segment.text)
        let textOf = { (tokens: [Int]) in tokenizer.text(of: tokens, below: Int.max) }
        let pause = 1.32..<1.88

        let reread = try XCTUnwrap(segment.cut(at: pause, rereadAs: "H. G. Bennet, who visited Newgate.", textOf: textOf))
        XCTAssertEqual(reread.text, "The Hon.")
        XCTAssertEqual(reread.words?.map(\.word), [" The", " Hon."])
        XCTAssertEqual(reread.end, 1.32)
        XCTAssertEqual(reread.tokens.map(textOf), " The Hon.")

        let other = try XCTUnwrap(segment.cut(at: pause, rereadAs: "Music from the radio fills the kitchen.", textOf: textOf))
        XCTAssertEqual(other.text, segment.text)
        XCTAssertEqual(other.words?.count, spoken.count)
        XCTAssertEqual(other.end, 1.32)

        XCTAssertNil(segment.cut(at: 0.1..<0.5, rereadAs: "The Hon. Bennet, who visited Newgate.", textOf: textOf),
                     "every word is read again")
    }
}
