import Foundation

/// Titles without a language model: the transcript's most frequent content words, so the title names the
/// topic rather than repeating the opening words ("Budget, Meeting, Friday").
public enum Titles {
    static let stopWords: Set<String> = [
        "a", "about", "after", "again", "all", "also", "am", "an", "and", "any", "are", "as", "at", "be", "because",
        "been", "before", "but", "by", "can", "could", "did", "do", "does", "don't", "for", "from", "get", "got",
        "had", "has", "have", "he", "her", "here", "him", "his", "how", "i", "i'm", "if", "in", "into", "is", "it",
        "it's", "its", "just", "know", "let", "like", "me", "more", "my", "need", "needs", "no", "not", "now", "of",
        "on", "one", "or", "our", "out", "really", "should", "so", "some", "that", "that's", "the", "their", "them",
        "then", "there", "these", "they", "think", "this", "to", "too", "up", "us", "very", "was", "we", "we'll",
        "were", "what", "when", "which", "while", "who", "will", "with", "would", "yeah", "you", "your", "okay",
        "um", "uh", "well", "going", "want", "make", "sure", "thing", "things", "today", "tomorrow", "next", "last",
    ]

    /// Lower-case words of a text (letters, digits and apostrophes).
    static func words(_ text: String) -> [String] {
        wordRanges(in: text).map { word(text[$0]) }.filter { !$0.isEmpty }
    }

    /// Where the words of a text are: runs of letters (with their marks), digits and apostrophes.
    static func wordRanges(in text: String) -> [Range<String.Index>] {
        wordPattern.matches(in: text, range: NSRange(text.startIndex..., in: text)).compactMap { Range($0.range, in: text) }
    }

    /// A word as `words` gives it: lower case, without apostrophes at either end.
    static func word(_ written: Substring) -> String {
        written.lowercased().trimmingCharacters(in: CharacterSet(charactersIn: "'"))
    }

    /// A word that says what a text is about: three letters or more and not a stop word (of `words`' lower case).
    static func isContentWord(_ word: String) -> Bool { word.count > 2 && !stopWords.contains(word) }

    private static let wordPattern = try! NSRegularExpression(pattern: "[\\p{L}\\p{M}\\p{Nd}']+")

    public static func keywords(from text: String, count: Int = 3) -> String {
        var frequency: [String: Int] = [:], firstSeen: [String: Int] = [:]
        for (i, word) in words(text).enumerated() where isContentWord(word) && Int(word) == nil {
            frequency[word, default: 0] += 1
            if firstSeen[word] == nil { firstSeen[word] = i }
        }
        let top = Array(frequency.keys.sorted { (frequency[$0]!, -firstSeen[$0]!) > (frequency[$1]!, -firstSeen[$1]!) }.prefix(count))
        guard !top.isEmpty else { return "Voice note" }
        return phrases(of: top, in: text).map { $0.prefix(1).uppercased() + $0.dropFirst() }.joined(separator: ", ")
    }

    /// The key words in their order, a name among them written as the text writes it: key words of a name next to
    /// each other, with the title before it ("Mrs. Rachel Lind", not "Mrs, Rachel, Lind"; "Dr. Okafor"). A word is
    /// taken for part of a name when the text writes it capitalised inside a sentence: a sentence's first word ("Ask
    /// Anna Berg…") is not, and other key words side by side are as often a subject and its verb as a phrase.
    static func phrases(of keys: [String], in text: String) -> [String] {
        let tokens = wordRanges(in: text)
        func word(_ i: Int) -> String { Self.word(text[tokens[i]]) }
        func gap(before i: Int) -> Substring { text[tokens[i - 1].upperBound..<tokens[i].lowerBound] }
        func title(_ i: Int) -> Bool {  // token i is a title's abbreviation ("Dr.") right before token i + 1
            let written = text[tokens[i]], after = gap(before: i + 1)
            return (2...3).contains(written.count) && written.first?.isUppercase == true && after.first == "."
                && after.count > 1 && after.dropFirst().allSatisfy(\.isWhitespace)
        }
        func capitalisedInsideASentence(_ i: Int) -> Bool {
            guard i > 0, text[tokens[i]].first?.isUppercase == true else { return false }
            return !gap(before: i).contains { ".!?".contains($0) } || title(i - 1)
        }
        let nameWords = Set(tokens.indices.filter(capitalisedInsideASentence).map(word)).intersection(keys)
        func part(_ i: Int) -> Bool { text[tokens[i]].first?.isUppercase == true && nameWords.contains(word(i)) }
        var written: [String: String] = [:]  // each key word's name, from its first run
        var i = 0
        while i < tokens.count {
            guard part(i) else { i += 1; continue }
            var (start, end) = (i, i)
            while end + 1 < tokens.count, part(end + 1), gap(before: end + 1).allSatisfy(\.isWhitespace) { end += 1 }
            if start > 0, title(start - 1) { start -= 1 }
            if end > start {
                let name = String(text[tokens[start].lowerBound..<tokens[end].upperBound])
                for j in start...end where keys.contains(word(j)) && written[word(j)] == nil { written[word(j)] = name }
            }
            i = end + 1
        }
        var out: [String] = []
        for key in keys {
            let phrase = written[key] ?? key
            if !out.contains(phrase) { out.append(phrase) }
        }
        return out
    }
}
