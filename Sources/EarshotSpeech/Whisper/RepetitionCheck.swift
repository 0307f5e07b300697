/// Spots Whisper's failure mode of looping: the same phrase (3+ words) twice in a row, or one word 4+ times.
enum RepetitionCheck {
    static func looksLikeALoop(_ text: String) -> Bool {
        let words = text.lowercased().split { !$0.isLetter && !$0.isNumber && $0 != "'" }.map(String.init)
        let n = words.count
        var run = 1
        for i in 1..<max(1, n) {
            run = words[i] == words[i - 1] ? run + 1 : 1
            if run >= 4 { return true }
        }
        guard n >= 6 else { return false }
        for k in 3...(n / 2) {
            for i in 0...(n - 2 * k) where words[i..<(i + k)] == words[(i + k)..<(i + 2 * k)] {
                return true
            }
        }
        return false
    }
}
