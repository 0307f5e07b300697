import EarshotLanguage
import EarshotSpeech
import Foundation

/// A sentence of a note with who said it and when.
public struct NoteSentence: Sendable, Equatable {
    /// The voice's label in the note (a name or `SPEAKER_nn`); nil in a note of one voice nobody named.
    public var speaker: String?
    public var text: String
    public var start: Double

    public init(speaker: String?, text: String, start: Double) {
        self.speaker = speaker
        self.text = text
        self.start = start
    }

    /// A transcript's sentences, each with its speaker and the time of its first word (the segment's start when
    /// the segment has no word times). A sentence runs on across segments of the same voice.
    public static func sentences(of segments: [TranscriptSegment]) -> [NoteSentence] {
        var result: [NoteSentence] = [], words: [String] = [], start = 0.0, speaker: String?
        func close() {
            if !words.isEmpty { result.append(NoteSentence(speaker: speaker, text: words.joined(separator: " "), start: start)) }
            words = []
        }
        for segment in segments {
            if segment.speaker != speaker { close() }
            speaker = segment.speaker
            let timed: [(String, Double)] = segment.words.map { $0.map { ($0.word.trimmingCharacters(in: .whitespaces), $0.start) } }
                ?? segment.text.split(separator: " ").map { (String($0), segment.start) }
            for (word, time) in timed where !word.isEmpty {
                if words.isEmpty { start = time }
                words.append(word)
                if let last = word.last, ".!?".contains(last) { close() }
            }
        }
        close()
        return result
    }

    /// The sentences of a plain transcript (no speakers, no times).
    public static func sentences(of text: String) -> [NoteSentence] {
        ReplyText.sentences(text).map { NoteSentence(speaker: nil, text: $0, start: 0) }
    }
}

/// The checks an action item the language model proposes must pass, and who owns it: an item stays only when a
/// sentence of the note says it (its content words are there) and that sentence commits someone to something (a
/// promise, a request, an obligation, a deadline, an instruction); its owner is read from that sentence and who
/// said it — "I'll…" is the speaker's, "Tom, can you…" is Tom's, "Anna will…" is Anna's, "can you…" answered by
/// another voice is theirs, "we…" is nobody's in particular. The model's own owner is kept only when no rule
/// decides and the note says that name.
public enum Commitments {
    /// One clause of a sentence: "Anna will send the plan by Thursday, and I need to cancel the booking" is two.
    struct Clause {
        var sentence: Int
        var text: String
    }

    /// The items of `proposed` ("Owner: task" lines) the note supports, with their owners and times.
    public static func check(_ proposed: [String], in sentences: [NoteSentence]) -> [ActionItem] {
        let clauses = sentences.indices.flatMap { i in Self.clauses(of: sentences[i].text).map { Clause(sentence: i, text: $0) } }
        let stems = clauses.map { Set(contentStems($0.text)) }
        let voices = Set(sentences.compactMap(\.speaker))
        var items: [ActionItem] = []
        for line in proposed {
            var (owner, task) = split(line)
            let wanted = Set(contentStems(task))
            guard !wanted.isEmpty else { continue }
            // the clause that says it best and commits someone: the most of the item's content words (a heading such as
            // "Call with the printing company" may hold more of them than "I have to approve it by Wednesday"), the
            // earliest on a tie
            let scores = stems.map { Double($0.intersection(wanted).count) / Double(wanted.count) }
            let ranked = scores.indices.filter { scores[$0] >= 0.25 }.sorted { (scores[$0], -$0) > (scores[$1], -$1) }
            guard let c = ranked.first(where: { commits($0, clauses: clauses, sentences: sentences) }) else { continue }
            let clause = clauses[c]
            let decided = self.owner(of: c, clauses: clauses, sentences: sentences)
            switch decided {
            case let .some(who): owner = who
            case .none: owner = owner.flatMap { said($0, in: sentences, voices: voices) ? $0 : nil }
            }
            guard !items.contains(where: { $0.text.lowercased() == task.lowercased() }) else { continue }
            task = task.prefix(1).uppercased() + task.dropFirst()
            items.append(ActionItem(text: task, owner: owner, start: sentences[clause.sentence].start))
        }
        return items
    }

    /// "Tom: Post the job description" → ("Tom", "Post the job description"); a line without a short owner → (nil, line).
    static func split(_ line: String) -> (String?, String) {
        let line = line.trimmingCharacters(in: .whitespacesAndNewlines)
        guard let colon = line.firstIndex(of: ":"), case let owner = line[..<colon].trimmingCharacters(in: .whitespaces),
              !owner.isEmpty, owner.split(separator: " ").count <= 2 else { return (nil, line) }
        return (owner, String(line[line.index(after: colon)...]).trimmingCharacters(in: .whitespaces))
    }

    /// Whether the note says the name: a voice of it, or a capitalised word of its text.
    static func said(_ name: String, in sentences: [NoteSentence], voices: Set<String>) -> Bool {
        voices.contains(name) || isName(name) && sentences.contains { s in
            Titles.wordRanges(in: s.text).contains { s.text[$0] == name && name.first?.isUppercase == true }
        }
    }

    // MARK: clauses and words

    static func clauses(of sentence: String) -> [String] {
        let cut = sentence.replacingOccurrences(of: #"(?:[,;]\s*(?:and|but|so|then)\s+|;\s*|\s+and then\s+|\s+and (?=I |I'll |we |we'll ))"#,
                                                with: "\u{1}", options: .regularExpression)
        return cut.split(separator: "\u{1}").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
    }

    /// Content words cut to five letters, so "quotes" meets "quote" and "posting" meets "post".
    static func contentStems(_ text: String) -> [String] {
        Titles.words(text).filter(Titles.isContentWord).map { String($0.prefix(5)) }
    }

    // MARK: is it a commitment

    static let cues = [
        #"\b(i|we|you|he|she|they)('ll| will| shall)\b"#, #"\b(i|we)'?(m| am|re| are) (going|gonna) to\b"#,
        #"\b(need|needs|needed)\b"#, #"\b(have|has|got) to\b"#, #"\b(must|should|promised?|agreed? to|offered to|plans? to)\b"#,
        #"\b(can|could|would|will) you\b"#, #"\bplease\b"#, #"\blet'?s\b"#, #"\blet me\b"#,
        #"\b(remember|remind|reminder|don't forget|make sure|to-?do|deadline|due)\b"#,
        #"\b(is|are) going to\b"#, #"\b(?!(?:It|This|That|There|What|Which)\b)\p{Lu}\p{Ll}+(?: from the \p{Ll}+)? (will|is to)\b"#,
        #"\b(by|before|until|on|this|next) (monday|tuesday|wednesday|thursday|friday|saturday|sunday|tomorrow|tonight|week|weekend|month|the end)\b"#,
        #"\b(tomorrow|tonight)\b"#,
    ]
    /// The cues, matched without case except a name's capital ("Anna will…", where "it will rain" is no commitment).
    static let cuePatterns = cues.map { cue in
        try! NSRegularExpression(pattern: cue.contains("\\p{Lu}") ? cue : "(?i)" + cue, options: [])
    }

    /// Verbs a spoken to-do begins with ("Buy milk…", "Pay the electricity bill…").
    static let instructions: Set<String> = [
        "add", "arrange", "ask", "book", "bring", "buy", "call", "cancel", "change", "charge", "check", "clean", "clear",
        "collect", "confirm", "contact", "drop", "email", "feed", "file", "finish", "fix", "follow", "get", "invite",
        "leave", "mail", "order", "pay", "phone", "pick", "plan", "post", "prepare", "print", "put", "remember", "renew",
        "reply", "return", "review", "ring", "schedule", "send", "share", "sign", "submit", "take", "tell", "text",
        "update", "upload", "water", "write",
    ]

    /// Whether clause `c` commits someone: a cue in it or in an earlier clause of its sentence ("Tom, can you post the
    /// job and send…"), an instruction opening it, or a short cue just before that sets it up ("Reminder for Thursday.
    /// Pick up the parcel…"). "I said yes, and I promised…" commits to the second clause only.
    static func commits(_ c: Int, clauses: [Clause], sentences: [NoteSentence]) -> Bool {
        func cued(_ text: String) -> Bool {
            cuePatterns.contains { $0.firstMatch(in: text, range: NSRange(text.startIndex..., in: text)) != nil }
        }
        let clause = clauses[c]
        var k = c
        while k >= 0, clauses[k].sentence == clause.sentence {
            if cued(clauses[k].text) { return true }
            k -= 1
        }
        // an instruction, not a heading ("Call with Sarah…", "Phone call with the bank")
        let words = Titles.words(clause.text)
        if let first = words.first, instructions.contains(first), !["with", "call", "from", "about"].contains(words.dropFirst().first ?? "") {
            return true
        }
        let i = clause.sentence
        return i > 0 && sentences[i - 1].speaker == sentences[i].speaker && cued(sentences[i - 1].text)
            && Titles.words(sentences[i - 1].text).count <= 6
    }

    // MARK: who

    /// Whether a capitalised word may be someone's name: not a pronoun or another word that opens sentences, a day
    /// or a month ("Wednesday: Email the proof" names no one).
    static func isName(_ word: String) -> Bool { !pronouns.contains(word) && !calendar.contains(word) }

    static let calendar: Set<String> = ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday", "January",
                                        "February", "March", "April", "May", "June", "July", "August", "September", "October",
                                        "November", "December", "Today", "Tomorrow", "Tonight"]

    static let pronouns: Set<String> = ["I", "We", "You", "He", "She", "They", "It", "This", "That", "The", "Everyone", "Someone",
                                        "Nobody", "Somebody", "There", "Then", "So", "And", "But", "Also", "Maybe", "Okay", "Ok"]

    /// The owner a rule reads from clause `c` (or the clause before it in the same sentence, which may hold the subject):
    /// `.some(name)` for a person, `.some(nil)` when the clause says "we" or the note's author, nil when no rule decides.
    static func owner(of c: Int, clauses: [Clause], sentences: [NoteSentence]) -> String?? {
        let clause = clauses[c]
        if let decided = rule(clause.text, sentence: clause.sentence, sentences: sentences) { return decided }
        // a clause without its own subject ("…and send it to Maria") takes the sentence's
        var k = c - 1
        while k >= 0, clauses[k].sentence == clause.sentence {
            if let decided = rule(clauses[k].text, sentence: clause.sentence, sentences: sentences) { return decided }
            k -= 1
        }
        return nil
    }

    /// The patterns `rule` reads a clause with, compiled once.
    enum Who {
        /// "Tom, can you…", "Tom, please…"
        static let addressedFirst = try! NSRegularExpression(pattern: #"^(?:(?:[Oo]kay|[Ss]o|[Aa]nd|[Rr]ight|[Ww]ell|[Aa]lso),?\s+)?([A-Z][\p{L}'-]+),\s+(?:can|could|would|will|please|you|would|do|don't|make|remember)\b"#)
        /// "…could you do it, Tom?"
        static let addressedLast = try! NSRegularExpression(pattern: #"\b(?:can|could|would|will) you\b.*,\s*([A-Z][\p{L}'-]+)\s*[?.!]?$"#)
        /// "Anna will…", "Priya is going to…", "James from the bank will…"
        static let namedSubject = try! NSRegularExpression(pattern: #"(?:^|[^\p{L}])([A-Z][\p{L}'-]+)(?: from [\w ]+)?\s+(?:will|'ll|is going to|needs to|has to|must|should|promised to|agreed to|offered to|is to|can)\b"#)
        /// "He will…", "She'll…"
        static let pronounSubject = try! NSRegularExpression(pattern: #"^(?:(?:[Aa]nd|[Ss]o|[Tt]hen|[Aa]lso),?\s+)?(?:[Hh]e|[Ss]he)(?:'ll| will| is going to| needs to| has to| promised to)\b"#)
        /// "I'll…", "I need to…", "Let me…"
        static let firstPerson = try! NSRegularExpression(pattern: #"\b(?:I'll|I will|I'm going to|I am going to|I'm gonna|I need to|I have to|I've got to|I must|I should|I can|I promise|I promised|I'd better|I plan to|I'll make sure|[Ll]et me)\b"#)
        /// "Can you…?", "Please…"
        static let askedYou = try! NSRegularExpression(pattern: #"\b(?:[Cc]an|[Cc]ould|[Ww]ould|[Ww]ill) you\b|^[Pp]lease\b"#)
        /// "We'll…", "Let's…", "Everyone…"
        static let everyone = try! NSRegularExpression(pattern: #"\b(?:[Ww]e'll|[Ww]e will|[Ww]e need to|[Ww]e have to|[Ww]e should|[Ww]e must|[Ll]et's|[Ee]veryone|[Ww]e're going to)\b"#)
    }

    static func rule(_ text: String, sentence i: Int, sentences: [NoteSentence]) -> String?? {
        let speaker = sentences[i].speaker
        let labelled = Set(sentences.compactMap(\.speaker)).count > 1 || (speaker.map(Note.isName) ?? false)
        func match(_ regex: NSRegularExpression) -> String? {
            guard let m = regex.firstMatch(in: text, range: NSRange(text.startIndex..., in: text)) else { return nil }
            return m.numberOfRanges > 1 ? Range(m.range(at: 1), in: text).map { String(text[$0]) } ?? "" : ""
        }
        // "Tom, can you…" / "Tom, please…" / "…could you do it, Tom?"
        if let name = match(Who.addressedFirst),
           isName(name) { return .some(name) }
        if let name = match(Who.addressedLast), isName(name) { return .some(name) }
        // "Anna will…", "Priya is going to…"
        if let name = match(Who.namedSubject),
           isName(name) { return .some(name) }
        // "He will…", "She'll…": the name said last in the two sentences before
        if match(Who.pronounSubject) != nil {
            for k in stride(from: i - 1, through: max(0, i - 2), by: -1) {
                if let last = sentences[k].text.matches(of: #/\b([A-Z][a-z]+)\b/#).map({ String($0.1) }).last(where: isName) {
                    return .some(last)
                }
            }
            return .some(nil)
        }
        // "I'll…", "I need to…": the speaker's (in a note of one voice, its author's: no owner)
        if match(Who.firstPerson) != nil {
            return .some(labelled ? speaker : nil)
        }
        // "Can you…?" answered by another voice: theirs
        if labelled, match(Who.askedYou) != nil {
            let next = sentences[(i + 1)...].first { $0.speaker != speaker }
            if let next, let who = next.speaker { return .some(who) }
            return nil
        }
        // "We'll…", "Let's…", "Everyone…": nobody in particular
        if match(Who.everyone) != nil {
            return .some(nil)
        }
        return nil
    }
}
