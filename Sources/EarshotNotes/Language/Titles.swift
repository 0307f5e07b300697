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
        text.lowercased().components(separatedBy: CharacterSet.letters.union(.decimalDigits).union(CharacterSet(charactersIn: "'")).inverted)
            .map { $0.trimmingCharacters(in: CharacterSet(charactersIn: "'")) }.filter { !$0.isEmpty }
    }

    public static func keywords(from text: String, count: Int = 3) -> String {
        var frequency: [String: Int] = [:], firstSeen: [String: Int] = [:]
        for (i, word) in words(text).enumerated() where word.count > 2 && !stopWords.contains(word) && Int(word) == nil {
            frequency[word, default: 0] += 1
            if firstSeen[word] == nil { firstSeen[word] = i }
        }
        let top = frequency.keys.sorted { (frequency[$0]!, -firstSeen[$0]!) > (frequency[$1]!, -firstSeen[$1]!) }.prefix(count)
        guard !top.isEmpty else { return "Voice note" }
        return top.map { $0.prefix(1).uppercased() + $0.dropFirst() }.joined(separator: ", ")
    }
}
