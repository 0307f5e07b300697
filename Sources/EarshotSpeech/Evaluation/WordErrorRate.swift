import Foundation

/// Word error rate between a reference and a hypothesis after normalising both the same way:
/// case, punctuation and hyphens ignored, and numbers written in digits read as words
/// ("1469" and "fourteen sixty-nine" are the same words; "$5" is "five dollars").
public enum WordErrorRate {
    public struct Counts: Sendable, Equatable {
        public var errors: Int
        public var words: Int
        public var rate: Double { words == 0 ? (errors == 0 ? 0 : 1) : Double(errors) / Double(words) }
    }

    public static func counts(reference: String, hypothesis: String) -> Counts {
        // a number like 1200 may be read "twelve hundred" or "one thousand two hundred": each side's
        // digits are read the way the other side's words suggest
        let r = normalize(reference, context: Set(normalize(hypothesis)))
        let h = normalize(hypothesis, context: Set(r))
        return Counts(errors: editDistance(r, h), words: r.count)
    }

    public static func rate(reference: String, hypothesis: String) -> Double {
        counts(reference: reference, hypothesis: hypothesis).rate
    }

    public static func normalize(_ text: String, context: Set<String> = []) -> [String] {
        var s = text.lowercased()
            .replacingOccurrences(of: "(\\d),(\\d{3})", with: "$1$2", options: .regularExpression)
            .replacingOccurrences(of: "\\$(\\d+)", with: "$1 dollars", options: .regularExpression)
            .replacingOccurrences(of: "(\\d)%", with: "$1 percent", options: .regularExpression)
            .replacingOccurrences(of: "(\\d+)(st|nd|rd|th)\\b", with: "$1 ORD", options: .regularExpression)
        s = s.unicodeScalars.map { CharacterSet.alphanumerics.contains($0) || $0 == "'" || $0 == "." ? String($0) : " " }.joined()
        var words: [String] = []
        for raw in s.split(separator: " ") {
            var token = String(raw).trimmingCharacters(in: CharacterSet(charactersIn: "'."))
            if token.isEmpty { continue }
            if token == "ORD" {
                if let last = words.popLast() { words.append(ordinal(last)) }
                continue
            }
            if token.range(of: "^([a-z]\\.)+[a-z]$", options: .regularExpression) != nil {
                token = token.replacingOccurrences(of: ".", with: "")  // initialisms: "a.m." is "am"
            }
            token = abbreviations[token] ?? token.replacingOccurrences(of: ".", with: " ")
            for part in token.split(separator: " ") {
                if let n = Int(part), part.allSatisfy(\.isNumber) {
                    words += spoken(n, digits: part.count, context: context).split(separator: " ").map(String.init)
                } else {
                    words.append(String(part))
                }
            }
        }
        // "four hundred and seventy-six" is said both with and without "and"
        return words.indices.filter { i in
            !(words[i] == "and" && i > 0 && i + 1 < words.count && words[i - 1] == "hundred" && numberWords.contains(words[i + 1]))
        }.map { words[$0] }
    }

    static let numberWords = Set(ones + tens.filter { !$0.isEmpty })

    static let abbreviations = ["mr": "mister", "mrs": "missus", "dr": "doctor", "st": "saint", "vs": "versus"]

    static func editDistance(_ a: [String], _ b: [String]) -> Int {
        if a.isEmpty { return b.count }
        var previous = Array(0...b.count)
        for i in 1...a.count {
            var current = [i] + [Int](repeating: 0, count: b.count)
            for j in stride(from: 1, through: b.count, by: 1) {
                current[j] = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1))
            }
            previous = current
        }
        return previous[b.count]
    }

    private static let ones = ["zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten",
                               "eleven", "twelve", "thirteen", "fourteen", "fifteen", "sixteen", "seventeen",
                               "eighteen", "nineteen"]
    private static let tens = ["", "", "twenty", "thirty", "forty", "fifty", "sixty", "seventy", "eighty", "ninety"]

    /// Four-digit numbers from 1100 to 1999 are read as years ("fourteen sixty nine") unless `context`
    /// (the other text's words) holds the cardinal reading; everything else as cardinals.
    static func spoken(_ n: Int, digits: Int, context: Set<String> = []) -> String {
        let plain = cardinal(n)
        guard digits == 4, (1100...1999).contains(n) else { return plain }
        let high = n / 100, low = n % 100
        let year = low == 0 ? cardinal(high) + " hundred" : cardinal(high) + (low < 10 ? " oh " : " ") + cardinal(low)
        let plainFits = plain.split(separator: " ").allSatisfy { context.contains(String($0)) }
        let yearFits = year.split(separator: " ").allSatisfy { context.contains(String($0)) }
        return plainFits && !yearFits ? plain : year
    }

    static func cardinal(_ n: Int) -> String {
        if n < 20 { return ones[n] }
        if n < 100 { return tens[n / 10] + (n % 10 == 0 ? "" : " " + ones[n % 10]) }
        if n < 1000 { return ones[n / 100] + " hundred" + (n % 100 == 0 ? "" : " " + cardinal(n % 100)) }
        for (size, name) in [(1_000_000_000, "billion"), (1_000_000, "million"), (1000, "thousand")] where n >= size {
            return cardinal(n / size) + " " + name + (n % size == 0 ? "" : " " + cardinal(n % size))
        }
        return String(n)
    }

    static func ordinal(_ spokenNumber: String) -> String {
        let irregular = ["one": "first", "two": "second", "three": "third", "five": "fifth", "eight": "eighth",
                         "nine": "ninth", "twelve": "twelfth"]
        if let word = irregular[spokenNumber] { return word }
        if spokenNumber.hasSuffix("y") { return String(spokenNumber.dropLast()) + "ieth" }
        return spokenNumber + "th"
    }
}
