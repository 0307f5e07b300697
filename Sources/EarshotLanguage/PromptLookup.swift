/// Drafts for prompt-lookup decoding. A note's title, summary and action items copy whole phrases of the transcript
/// ("Tom: post the job description by Friday"), so the tokens that followed the last few generated tokens where they
/// last appeared in the prompt are a cheap guess at what comes next. The model checks a guess of k tokens in one
/// batch of k + 1 and keeps the guessed tokens its own greedy choice agrees with, so the reply is greedy decoding's,
/// sooner. (Not always to the letter: a batch's sums are rounded in another order than one token's, and where two
/// tokens nearly tie the choice can differ — 15 of 20 judged notes came out word for word the same, the others
/// worded a sentence differently. The same transcript still gives the same note: the guesses depend only on it.)
/// On the Intel Xeon a token alone took ~90 ms and each more in a batch ~15 ms, so long guesses rejected early cost
/// more than they save: guesses of up to 3 tokens wrote 8 judged notes in 13% less time, of up to 6 tokens 20 notes in
/// 8% less (BENCHMARKS.md).
enum PromptLookup {
    /// Tokens matched at the end of the text: the longest match wins; one token alone guesses too often wrong.
    static let longestMatch = 4
    static let shortestMatch = 2

    /// Up to `count` tokens that followed the latest earlier occurrence of the last `longestMatch`…`shortestMatch`
    /// tokens of `history`; empty when none occurs earlier.
    static func draft<Token: Equatable>(after history: [Token], count: Int) -> [Token] {
        guard count > 0 else { return [] }
        for n in stride(from: longestMatch, through: shortestMatch, by: -1) where history.count > n {
            let tail = history[(history.count - n)...]
            for start in stride(from: history.count - n - 1, through: 0, by: -1)
            where history[start..<(start + n)].elementsEqual(tail) {
                let from = start + n
                return Array(history[from..<min(from + count, history.count)])
            }
        }
        return []
    }
}

/// When to stop guessing for a while: a guess whose first token is wrong cost a batch of k + 1 for one token, and
/// text that copies nothing (a summary in the model's own words, a counted list) keeps finding short matches that
/// are wrong. After such a miss the next `wait` tokens are decoded alone, `wait` doubling with each miss in a row (up
/// to `longestWait`) and back to none once a guess is kept in part. Counting to two hundred, generation ran 7% slower
/// with guesses than without them before this (BENCHMARKS.md, language models).
struct DraftBackoff {
    static let longestWait = 16
    private var wait = 0
    private var left = 0

    /// Whether to guess before this token (each call is one token's turn).
    mutating func shouldGuess() -> Bool {
        if left > 0 {
            left -= 1
            return false
        }
        return true
    }

    /// What became of a guess of `guessed` tokens, `kept` of them kept.
    mutating func record(guessed: Int, kept: Int) {
        guard guessed > 0 else { return }
        if kept > 0 {
            wait = 0
        } else {
            wait = min(Self.longestWait, max(1, wait * 2))
            left = wait
        }
    }
}
