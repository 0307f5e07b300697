import EarshotCore
import Foundation

/// Every word's time, from Whisper's cross-attention and then from the audio itself.
///
/// 1. The window's text tokens are forced through the decoder once; the alignment heads' attention over the
///    audio frames (20 ms each) is softmaxed, normalised per head, median-filtered (width 7) and averaged, and
///    dynamic time warping finds the monotonic path through it (openai-whisper's method).
/// 2. That path puts a word's start where the previous word ended, so a word after a pause starts early. Each
///    word's start and end are therefore moved to where the sound begins and ends inside its interval (10 ms
///    energy against a threshold set from the window's own noise floor and speech level).
struct WordAligner {
    let spec: WhisperSpec
    let tokenizer: WhisperTokenizer
    let language: String
    static let medianFilterWidth = 7
    static let prepended = "\"'“¿([{-"
    static let appended = "\"'.。,，!！?？:：”)]}、"
    /// Languages written without spaces: words are split at character boundaries instead.
    static let unspaced: Set<String> = ["zh", "ja", "th", "lo", "my", "yue"]

    /// The tokens forced through the decoder: the alignment heads' cross-attention, and the logits where the words'
    /// probabilities are wanted (nil: every word's probability is 0).
    typealias Pass = ([Int]) throws -> (logits: TensorValue?, crossAttention: TensorValue)

    /// Fills `segments[].words` (times from the window's start); `audio` is the window's samples, `onsets` where
    /// sound starts and stops in them.
    func addWords(to segments: inout [TranscriptSegment], audio: ArraySlice<Float>, onsets: AudioOnsets, startSequence: [Int],
                  pass: Pass) throws {
        let text = segments.flatMap { $0.tokens ?? [] }
        guard !text.isEmpty else { return }
        let start = startSequence.last == spec.no_timestamps ? Array(startSequence.dropLast()) : startSequence
        let tokens = start + [spec.no_timestamps] + text + [spec.eot]
        let (logits, attention) = try pass(tokens)
        let audioColumns = max(1, min(attention.shape[3], audio.count / WhisperFeatures.hop / 2))
        let matrix = alignmentMatrix(attention, columns: audioColumns, rows: start.count..<(tokens.count - 1))
        let path = dynamicTimeWarping(cost: matrix.map { $0.map { -$0 } })
        let probabilities = logits.map { tokenProbabilities($0, text: text, firstRow: start.count) } ?? Array(repeating: 0, count: text.count)
        var words = split(text)
        // the path's time at each text position where it moves to the next token
        var jumpTimes: [Double] = []
        var previous = -1
        for (row, column) in path where row != previous {
            jumpTimes.append(Double(column) * WhisperSpec.timestampStep)
            previous = row
        }
        var timed: [TranscriptWord] = []
        var boundary = 0
        for (index, word) in words.enumerated() {
            let end = boundary + word.tokens.count
            guard end < jumpTimes.count else { break }
            let p = probabilities[boundary..<end].reduce(0, +) / Double(max(1, end - boundary))
            timed.append(TranscriptWord(word: word.text, start: jumpTimes[boundary], end: jumpTimes[end], probability: p))
            words[index].firstToken = boundary
            boundary = end
        }
        let merged = mergePunctuation(Array(zip(timed, words.prefix(timed.count))))
        let rows = merged.map { $0.1.firstToken..<($0.1.firstToken + $0.1.tokens.count) }
        let spans = Self.endAtOwnSound(merged.map(\.0), rows: rows, matrix: matrix, onsets: onsets)
        let refined = Self.startAtOwnSound(onsets.refine(spans), rows: rows, matrix: matrix, onsets: onsets)
        // each segment takes the words whose first token is among its tokens
        var first = 0
        var cursor = 0
        for i in segments.indices {
            let count = segments[i].tokens?.count ?? 0
            var own: [TranscriptWord] = []
            while cursor < refined.count && merged[cursor].1.firstToken < first + count {
                own.append(refined[cursor])
                cursor += 1
            }
            segments[i].words = own
            first += count
        }
    }

    /// A word whose span still holds a pause of at least `ownSoundPause` with sound on both sides starts at the
    /// stretch of sound its own tokens attend to most. The matching leaves such a pause inside a word where Whisper
    /// wrote one word for two that were said ("quick" for "the quick", "people" for "four people"): the alignment
    /// gives the left-out word's sound to the word after it, which then starts a word early. Only the start moves
    /// (that is where the left-out word's sound goes). On the word-timing set 7 of tiny.en's 10 noisy starts more than
    /// 250 ms off were such words; on natural speech it moves about one word in 700 (BENCHMARKS.md).
    static func startAtOwnSound(_ words: [TranscriptWord], rows: [Range<Int>], matrix: [[Float]], onsets: AudioOnsets) -> [TranscriptWord] {
        var out = words
        for (i, (word, rows)) in zip(words, rows).enumerated() {
            guard let own = ownStretch(of: word, rows: rows, matrix: matrix, onsets: onsets, pausesOf: ownSoundPause),
                  own.index > 0 else { continue }
            out[i].start = own.stretch.lowerBound
        }
        return out
    }

    /// A word whose span runs over a pause of at least `unreadPause` (longer than any pause inside a word) into sound
    /// that is not its own ends where that pause begins, and the next word starts there; done before the boundaries
    /// are matched to the pauses, so the pause goes to the boundary after the word. Two ways the path does this:
    /// - Where Whisper closed a segment inside the next sentence's first word, the path ran "dark." over the pause into
    ///   "Fresh"; the pause then went to the boundary before "dark.", which was timed on the sound of "Fresh". The
    ///   sound after the pause is not the word's own where the next word's tokens attend to it more than its own do.
    /// - The path must end at the window's last column, so the last word takes all the audio after it. Where Whisper
    ///   left out a window's last sentence, "lake." ran 3 s, over a 1.6 s pause and the whole sentence. The sound after
    ///   the pause is not the word's own where it lasts longer than a word (`longerThanAWord`) and the word's tokens
    ///   attend more to the sound before (of at least `shortestWord`); ended there, that sentence is sound after the
    ///   window's text, which the decoder reads again.
    /// In sentences said a word at a time (pauses up to 0.9 s), a word's own tokens often attend most to the last
    /// 10–30 ms of the word before it, which is why neither test is the word's own attention alone.
    static func endAtOwnSound(_ words: [TranscriptWord], rows: [Range<Int>], matrix: [[Float]], onsets: AudioOnsets) -> [TranscriptWord] {
        var out = words
        for i in words.indices where !rows[i].isEmpty && rows[i].upperBound <= matrix.count {
            let stretches = onsets.soundStretches(from: words[i].start, to: words[i].end, pausesOf: unreadPause)
            guard stretches.count > 1, let after = stretches.last else { continue }
            let before = stretches[stretches.count - 2]
            let notOwn: Bool
            if i + 1 < words.count {
                notOwn = attention(of: rows[i + 1], over: after, in: matrix) > attention(of: rows[i], over: after, in: matrix)
            } else {
                notOwn = onsets.loudSeconds(from: after.lowerBound, to: after.upperBound) > longerThanAWord
                    && onsets.loudSeconds(from: before.lowerBound, to: before.upperBound) >= shortestWord
                    && attention(of: rows[i], over: before, in: matrix) > attention(of: rows[i], over: after, in: matrix)
            }
            guard notOwn else { continue }
            out[i].end = max(words[i].start, before.upperBound)
            if i + 1 < out.count { out[i + 1].start = out[i].end }  // the spans stay contiguous, as the path left them
        }
        return out
    }

    /// Sound after a pause in the window's last word that is more than that word (`endAtOwnSound`), and the least a
    /// word's own sound holds.
    static let longerThanAWord = 1.0
    static let shortestWord = 0.1

    /// The mean of `rows` of the alignment matrix over the 20 ms columns of `stretch` (seconds); -infinity where they
    /// lie outside it (a word without tokens of its own), so such a word never wins a comparison.
    static func attention(of rows: Range<Int>, over stretch: Range<Double>, in matrix: [[Float]]) -> Float {
        let columns = matrix.first?.count ?? 0
        func column(_ seconds: Double) -> Int { min(columns, max(0, Int((seconds / WhisperSpec.timestampStep).rounded()))) }
        let span = column(stretch.lowerBound)..<max(column(stretch.lowerBound) + 1, column(stretch.upperBound))
        guard span.upperBound <= columns, !rows.isEmpty, rows.upperBound <= matrix.count else { return -.infinity }
        var sum: Float = 0
        for r in rows { for c in span { sum += matrix[r][c] } }
        return sum / Float(rows.count * span.count)
    }

    /// The stretches of sound in `word`'s span between pauses of at least `pausesOf` seconds, and which of them its
    /// tokens (`rows` of `matrix`) attend to most; nil where the span holds no such pause.
    private static func ownStretch(of word: TranscriptWord, rows: Range<Int>, matrix: [[Float]], onsets: AudioOnsets,
                                   pausesOf shortest: Double) -> (stretch: Range<Double>, index: Int)? {
        guard !rows.isEmpty, rows.upperBound <= matrix.count else { return nil }
        let stretches = onsets.soundStretches(from: word.start, to: word.end, pausesOf: shortest)
        guard stretches.count > 1 else { return nil }
        let scores = stretches.map { attention(of: rows, over: $0, in: matrix) }
        let best = scores.indices.max { scores[$0] < scores[$1] }!
        return (stretches[best], best)
    }

    /// The shortest pause inside a word that `startAtOwnSound` reads as two words' sounds: longer than a stop
    /// consonant's closure or a weak fricative lost in noise (with 0.1 s, "plastic" and "after" in the noisy set
    /// started at their second syllable).
    static let ownSoundPause = 0.2
    /// The shortest pause inside a word's span that `endAtOwnSound` reads as the pause after it.
    static let unreadPause = 0.5

    /// [row][column]: the alignment heads' attention, softmax over the audio columns, normalised over the rows
    /// per head, median-filtered along time, averaged over heads; rows restricted to `rows`.
    private func alignmentMatrix(_ attention: TensorValue, columns: Int, rows: Range<Int>) -> [[Float]] {
        let (heads, n, width) = (attention.shape[1], attention.shape[2], attention.shape[3])
        var sum = [[Float]](repeating: [Float](repeating: 0, count: columns), count: rows.count)
        attention.withFloats { qk in
            for h in 0..<heads {
                var weights = (0..<n).map { i -> [Float] in
                    let base = (h * n + i) * width
                    return LogitRules.logSoftmax(Array(qk[base..<(base + columns)])).map { exp($0) }
                }
                for t in 0..<columns {
                    let column = (0..<n).map { weights[$0][t] }
                    let mean = column.reduce(0, +) / Float(n)
                    let variance = column.reduce(0) { $0 + ($1 - mean) * ($1 - mean) } / Float(max(1, n - 1))
                    let deviation = max(variance.squareRoot(), 1e-10)
                    for i in 0..<n { weights[i][t] = (weights[i][t] - mean) / deviation }
                }
                for (r, i) in rows.enumerated() {
                    let filtered = medianFilter(weights[i], width: Self.medianFilterWidth)
                    for t in 0..<columns { sum[r][t] += filtered[t] / Float(heads) }
                }
            }
        }
        return sum
    }

    /// Probability of each text token where it was written (softmax over text tokens only).
    private func tokenProbabilities(_ logits: TensorValue, text: [Int], firstRow: Int) -> [Double] {
        let (n, vocab) = (logits.shape[1], logits.shape[2])
        return logits.withFloats { values in
            text.enumerated().map { k, token in
                let base = (firstRow + k) * vocab
                guard firstRow + k < n, token < spec.eot else { return 0 }
                let row = LogitRules.logSoftmax(Array(values[base..<(base + spec.eot)]))
                return Double(exp(row[token]))
            }
        }
    }

    struct Word { var text: String; var tokens: [Int]; var firstToken = 0 }

    /// Text tokens grouped into words: a new word at a leading space or a punctuation mark (by character for
    /// languages written without spaces).
    func split(_ tokens: [Int]) -> [Word] {
        var pieces: [Word] = []
        var current: [Int] = []
        for token in tokens {
            current.append(token)
            let bytes = tokenizer.bytes(of: current, below: spec.eot)
            guard String(validating: bytes, as: UTF8.self) != nil else { continue }  // mid-character
            pieces.append(Word(text: String(decoding: bytes, as: UTF8.self), tokens: current))
            current = []
        }
        if !current.isEmpty { pieces.append(Word(text: tokenizer.text(of: current, below: spec.eot), tokens: current)) }
        guard !Self.unspaced.contains(language) else { return pieces }
        var words: [Word] = []
        for piece in pieces {
            let trimmed = piece.text.trimmingCharacters(in: .whitespaces)
            let punctuation = !trimmed.isEmpty && trimmed.allSatisfy { $0.isPunctuation || $0.isSymbol }
            if words.isEmpty || piece.text.hasPrefix(" ") || punctuation {
                words.append(piece)
            } else {
                words[words.count - 1].text += piece.text
                words[words.count - 1].tokens += piece.tokens
            }
        }
        return words
    }

    /// Opening marks (written with a leading space) join the next word, closing marks (without one) the previous
    /// word: their times go with the word.
    private func mergePunctuation(_ words: [(TranscriptWord, Word)]) -> [(TranscriptWord, Word)] {
        func only(_ text: String, _ marks: String) -> Bool {
            let bare = text.trimmingCharacters(in: .whitespaces)
            return !bare.isEmpty && bare.allSatisfy { marks.contains($0) }
        }
        var out: [(TranscriptWord, Word)] = []
        var opening: (TranscriptWord, Word)?
        for (word, source) in words {
            if let last = out.indices.last, !word.word.hasPrefix(" "), only(word.word, Self.appended) {
                out[last].0.word += word.word
                out[last].0.end = max(out[last].0.end, word.end)
                continue
            }
            if word.word.hasPrefix(" ") && only(word.word, Self.prepended) && opening == nil {
                opening = (word, source)
                continue
            }
            var (word, source) = (word, source)
            if let (mark, markSource) = opening {
                word.word = mark.word + word.word.trimmingCharacters(in: .whitespaces)
                word.start = mark.start
                source.firstToken = markSource.firstToken
                source.tokens = markSource.tokens + source.tokens
                opening = nil
            }
            out.append((word, source))
        }
        if let opening { out.append(opening) }
        return out
    }
}

/// Median of each value's neighbourhood of `width` (reflected at the ends, as scipy/openai-whisper do). The
/// neighbourhood is kept sorted in one buffer as it is read (a new array sorted per value was ~1% of a tiny.en
/// file's time); the median of the same values is the same however they were sorted.
func medianFilter(_ values: [Float], width: Int) -> [Float] {
    let half = width / 2
    guard values.count > half else { return values }
    var window = [Float](repeating: 0, count: 2 * half + 1)
    return values.indices.map { i in
        for slot in 0...(2 * half) {
            var k = i - half + slot
            if k < 0 { k = -k - 1 }
            if k >= values.count { k = 2 * values.count - k - 1 }
            let value = values[min(max(k, 0), values.count - 1)]
            var s = slot
            while s > 0 && window[s - 1] > value {
                window[s] = window[s - 1]
                s -= 1
            }
            window[s] = value
        }
        return window[half]
    }
}

/// The cheapest monotonic path from the top-left to the bottom-right of `cost` [rows][columns], as
/// (row, column) pairs in order (diagonal, down or right steps; ties go right, as openai-whisper's).
func dynamicTimeWarping(cost: [[Float]]) -> [(Int, Int)] {
    let n = cost.count, m = cost.first?.count ?? 0
    guard n > 0, m > 0 else { return [] }
    var total = [[Float]](repeating: [Float](repeating: .infinity, count: m + 1), count: n + 1)
    var trace = [[UInt8]](repeating: [UInt8](repeating: 2, count: m + 1), count: n + 1)
    total[0][0] = 0
    for j in 1...m {
        for i in 1...n {
            let (c0, c1, c2) = (total[i - 1][j - 1], total[i - 1][j], total[i][j - 1])
            let (c, t): (Float, UInt8) = c0 < c1 && c0 < c2 ? (c0, 0) : (c1 < c0 && c1 < c2 ? (c1, 1) : (c2, 2))
            total[i][j] = cost[i - 1][j - 1] + c
            trace[i][j] = t
        }
    }
    for j in 0...m { trace[0][j] = 2 }
    for i in 0...n { trace[i][0] = 1 }
    var (i, j) = (n, m)
    var path: [(Int, Int)] = []
    while i > 0 || j > 0 {
        path.append((i - 1, j - 1))
        switch trace[i][j] {
        case 0: i -= 1; j -= 1
        case 1: i -= 1
        default: j -= 1
        }
    }
    return path.reversed().filter { $0.0 >= 0 && $0.1 >= 0 }
}
