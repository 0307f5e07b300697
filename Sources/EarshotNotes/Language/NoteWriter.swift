import EarshotLanguage
import Foundation

/// What the language model writes for a note.
public struct NoteText: Sendable, Equatable {
    public var title: String
    public var summary: String
    /// The commitments the note holds, each checked against what was said (`Commitments`).
    public var actions: [ActionItem]
    /// Whether the model wrote the title (false: its title broke the rules and key words were used instead).
    public var titleFromModel = true
    /// The action items as the model proposed them, before the checks (for measuring the checks).
    public var proposedActions: [String] = []

    public init(title: String, summary: String, actions: [ActionItem], titleFromModel: Bool = true, proposedActions: [String] = []) {
        self.title = title
        self.summary = summary
        self.actions = actions
        self.titleFromModel = titleFromModel
        self.proposedActions = proposedActions
    }
}

/// Titles, summaries and action items from a transcript with a local language model. Long transcripts
/// are summarised in chunks first; action items come from a grammar, so they always parse as a JSON list.
public struct NoteWriter {
    public static let maxTitleWords = 8
    /// Transcript tokens per request: the rest of the 4,096-token context holds instructions and the reply.
    static let chunkTokens = 2_500

    public let model: any ChatModel
    public init(model: any ChatModel) { self.model = model }

    /// Every rule of the three questions is here, in a system message that is the same for every note, and each
    /// question after the transcript is a few words: a language model keeps what it has read of a prompt that begins
    /// as the last one did, up to a paragraph break (`LanguageModel.promptCuts`), so this part is decoded once per
    /// loaded model rather than once per question. With the rules after each transcript a note's three prompts were
    /// ~200 tokens, about 3 s of a 2-core machine's 6; now a median of 67 on the judged notes (BENCHMARKS.md).
    static let system = """
    You help people file their voice notes. Answer with exactly what is asked, nothing else.

    Action items are things someone has to do, as a JSON array of short imperative phrases. When the note names the \
    person who will do one, begin that item with their name and a colon; when it says by when, keep the day or date \
    in the item. Never add a name the note does not say. A note with nothing to do (an idea, a story) has none: reply [].
    A summary says what this note says in one or two sentences. A title names the note's topic in a few words, as a \
    file name would, never a sentence: at most \(maxTitleWords) words.

    Two examples.
    Transcript: \"\"\"Call with Ben from the garage. The brakes need new pads, about two hundred euros. Ben will order \
    the parts by Wednesday. I have to bring the car in on Friday morning.\"\"\"
    Action items: ["Ben: Order the brake pads by Wednesday", "Bring the car in on Friday morning"]
    Summary: The brakes need new pads for about two hundred euros; Ben orders them by Wednesday and the car goes in on \
    Friday morning.
    Title: Brake Pads at the Garage

    Transcript: \"\"\"Reminder for Thursday. Pick up the parcel at the post office and return the library books.\"\"\"
    Action items: ["Pick up the parcel at the post office on Thursday", "Return the library books on Thursday"]
    Summary: On Thursday, pick up the parcel at the post office and return the library books.
    Title: Parcel and Library Books
    """

    /// The messages of one question about a transcript: the shared system message, then the transcript after a
    /// paragraph break of its own (so that the prompt is cut there, and the next note reuses all before it).
    static func request(_ body: String, _ question: String) -> [ChatMessage] {
        [.init("system", system), .init("user", "Voice note transcript:\n\n\"\"\"\(body)\"\"\"\n\n\(question)")]
    }

    /// GBNF: a JSON array of up to 10 short strings, or []; `excluded`: characters no item may hold (GBNF ranges).
    static func actionsGrammar(excluding excluded: String = "") -> String { listGrammar(items: 10, excluding: excluded) }

    /// GBNF: a JSON array of up to `items` strings of 3–120 characters, or [].
    static func listGrammar(items: Int, excluding excluded: String = "") -> String {
        #"""
        root ::= "[" ws ( item ( "," ws item ){0,\#(items - 1)} )? ws "]"
        item ::= "\"" char{3,120} "\""
        char ::= [^"\\\x00-\x1f\#(excluded)]
        ws ::= [ \n]{0,2}
        """#
    }

    /// Chinese, Japanese and Korean characters (CJK punctuation, kana, ideographs, hangul, full-width forms). Qwen, the
    /// default model, learnt as much Chinese as English and now and then slips into it mid-sentence: an action item
    /// on a judged English note once ended "…the order人们". A note whose transcript holds none of these characters
    /// gets none: its replies are generated under a grammar without them (llama.cpp then picks the likeliest token
    /// that has none; the grammar is checked against the likeliest token first, so this costs next to nothing).
    static let eastAsian: [ClosedRange<UInt32>] = [0x3000...0x30FF, 0x3400...0x4DBF, 0x4E00...0x9FFF, 0xAC00...0xD7AF,
                                                   0xF900...0xFAFF, 0xFF00...0xFFEF]

    /// The grammars of a transcript's replies: free text (nil: unrestricted) and action items.
    static func grammars(for transcript: String) -> (text: String?, actions: String, points: String) {
        guard !transcript.unicodeScalars.contains(where: { c in eastAsian.contains { $0.contains(c.value) } }) else {
            return (nil, actionsGrammar(), listGrammar(items: Self.pointsPerSection))
        }
        let ranges = eastAsian.map { String(format: "\\u%04x-\\u%04x", $0.lowerBound, $0.upperBound) }.joined()
        return ("root ::= [^\(ranges)]*", actionsGrammar(excluding: ranges), listGrammar(items: Self.pointsPerSection, excluding: ranges))
    }

    /// `sentences`: the transcript's sentences with who said each and when (`NoteSentence.sentences(of:)`), against
    /// which the model's action items are checked and given owners; nil reads them from `transcript` (one voice).
    /// `template`: how the summary is laid out (its sections asked together with the rest; see `SummaryTemplate`).
    public func write(transcript: String, sentences: [NoteSentence]? = nil, template: SummaryTemplate = .memo) throws -> NoteText {
        let text = transcript.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !text.isEmpty else { return NoteText(title: "Empty recording", summary: "No speech was found in this recording.", actions: []) }
        let chunks = try Self.chunks(of: text, maxTokens: Self.chunkTokens, count: model.tokenCount)
        let grammars = Self.grammars(for: text)
        // a long note: each chunk's action items and summary, asked together; the summaries are then read as the note
        var found: [String] = [], parts: [String] = []
        for chunk in chunks where chunks.count > 1 {
            let replies = try model.replies(to: [actionsRequest(chunk, grammar: grammars.actions),
                                                 summaryRequest(of: chunk, grammar: grammars.text, part: true)])
            found += readActions(replies[0], of: chunk)
            parts.append(readSummary(replies[1], part: true))
        }
        let body = chunks.count == 1 ? text : parts.joined(separator: " ")
        // the note's questions at once (the model reads the body once and writes the replies together): its summary and
        // title, and the action items of a note of one chunk
        let asked = chunks.count == 1 ? [actionsRequest(text, grammar: grammars.actions)] : []
        let sections = template.sections.map { sectionRequest($0, of: template, body: body, grammar: grammars.points) }
        let replies = try model.replies(to: asked + [summaryRequest(of: body, grammar: grammars.text), titleRequest(body, grammar: grammars.text)]
                                        + sections)
        let proposed = asked.isEmpty ? found : readActions(replies[0], of: text)
        let short = readSummary(replies[asked.count])
        let heading = readTitle(replies[asked.count + 1], summary: short, transcript: text)
        let actions = Commitments.check(proposed, in: sentences ?? NoteSentence.sentences(of: text))
        let points = zip(template.sections, replies.suffix(sections.count)).map { ($0, Self.readPoints($1, said: text, heading: $0)) }
        return NoteText(title: heading.title, summary: Self.laidOut(short, points), actions: actions, titleFromModel: heading.fromModel,
                        proposedActions: proposed)
    }

    func titleRequest(_ body: String, grammar: String?) -> ReplyRequest {
        ReplyRequest(Self.request(body, "Title, in a few words?"), maxTokens: 24, grammar: grammar)
    }

    /// The model's title, or key words of the note when it broke the rules (empty, the transcript's opening, the
    /// instructions echoed).
    func readTitle(_ reply: String, summary: String, transcript: String) -> (title: String, fromModel: Bool) {
        let title = Self.cleanTitle(ReplyText.afterLabel("Title:", in: reply))
        if title.isEmpty || Self.copiesOpening(title, of: transcript) || Self.echoesInstructions(title) {
            return (Titles.keywords(from: summary.isEmpty ? transcript : summary + " " + transcript), false)
        }
        return (title, true)
    }

    /// The note's summary of one or two sentences, or (`part`) two or three of one part of a long note.
    func summaryRequest(of body: String, grammar: String?, part: Bool = false) -> ReplyRequest {
        let question = part ? "Summarise this part of a note in two or three sentences." : "Summary?"
        return ReplyRequest(Self.request(body, question), maxTokens: 120, grammar: grammar, end: .sentences(part ? 3 : 2, after: "Summary:"))
    }

    func readSummary(_ reply: String, part: Bool = false) -> String {
        Self.withoutRepeats(Self.withoutPreamble(ReplyText.firstSentences(ReplyText.afterLabel("Summary:", in: reply), count: part ? 3 : 2)))
    }

    /// A summary without an opening that only says it is one: "The summary of the voice note is: …", "Here is a
    /// summary: …", "In summary, …", "The voice note discusses …" (the 1.5B model opened readings' summaries so).
    static func withoutPreamble(_ summary: String) -> String {
        let preamble = #"^(?i)(?:(?:here(?: is|'s)|this is) (?:a |the )?(?:short |brief )?summary[^:]*:|(?:the |a )?(?:short |brief )?summary(?: of (?:the |this )?(?:voice note|note|transcript|recording|text))?(?: is)?\s*:|in summary,|(?:the|this) (?:voice )?(?:note|recording|transcript) (?:discusses|describes|is about|talks about|covers|mentions|explains|says that)\b)\s*"#
        guard let found = summary.range(of: preamble, options: .regularExpression) else { return summary }
        let rest = summary[found.upperBound...].trimmingCharacters(in: CharacterSet(charactersIn: " \"'“”"))
        return rest.isEmpty ? summary : rest.prefix(1).uppercased() + rest.dropFirst()
    }

    /// A summary without the sentences and the clauses after a semicolon that only say again what came before it: the
    /// 1.5B model summarised "Remember to call the dentist on Tuesday morning and move the appointment to next week."
    /// as "The dentist needs to be called on Tuesday morning and the appointment moved to next week; the dentist needs
    /// to be called." (seen on the notes page of a browser test). A part is a repeat when it has content words
    /// (`Titles.isContentWord`) and every one of them was already said.
    static func withoutRepeats(_ summary: String) -> String {
        func content(_ text: String) -> Set<String> { Set(Titles.words(text).filter(Titles.isContentWord)) }
        var said = Set<String>(), kept: [String] = []
        for sentence in ReplyText.sentences(summary) {
            let end = sentence.last.flatMap { ".!?".contains($0) ? String($0) : nil } ?? ""
            var clauses: [String] = []
            for clause in sentence.dropLast(end.count).components(separatedBy: ";") {
                let words = content(clause)
                if !said.isEmpty, !words.isEmpty, words.isSubset(of: said) { continue }
                said.formUnion(words)
                clauses.append(clause.trimmingCharacters(in: .whitespaces))
            }
            if !clauses.isEmpty { kept.append(clauses.joined(separator: "; ") + end) }
        }
        return kept.isEmpty ? summary : kept.joined(separator: " ")
    }

    func actionsRequest(_ chunk: String, grammar: String) -> ReplyRequest {
        ReplyRequest(Self.request(chunk, "Action items?"), maxTokens: 300, grammar: grammar)
    }

    func readActions(_ reply: String, of chunk: String) -> [String] {
        let items = (try? JSONDecoder().decode([String].self, from: Data(reply.utf8))) ?? []
        return items.map { Self.withoutInventions($0.trimmingCharacters(in: .whitespacesAndNewlines), said: chunk) }.filter { $0.count >= 3 }
    }

    /// An action item without the owner or deadline the model made up: asked to keep who and by when, the 1.5B
    /// model also wrote "John: …" and "by April 15th" into notes that name no one and no date (8 of 27 items on
    /// the judged set, bench/llm.py). A leading "Name:" or a closing "by …" stays only when the note says it.
    static func withoutInventions(_ item: String, said transcript: String) -> String {
        let said = Set(Titles.words(transcript))
        var item = item
        if let colon = item.firstIndex(of: ":"), case let owner = item[..<colon], !owner.isEmpty, owner.split(separator: " ").count <= 2,
           !Titles.words(String(owner)).allSatisfy(said.contains) {
            item = String(item[item.index(after: colon)...]).trimmingCharacters(in: .whitespaces)
        }
        if let by = item.range(of: #"[;,]?\s+by\s+[^;,]+$"#, options: [.regularExpression, .caseInsensitive]) {
            let deadline = Titles.words(String(item[by])).filter { $0 != "by" && $0 != "the" }
            if !deadline.isEmpty && !deadline.allSatisfy(said.contains) { item = String(item[..<by.lowerBound]) }
        }
        return item.isEmpty ? item : item.prefix(1).uppercased() + item.dropFirst()
    }

    // MARK: text helpers

    /// Transcript pieces of at most `maxTokens`, cut between sentences.
    static func chunks(of text: String, maxTokens: Int, count: (String) throws -> Int) rethrows -> [String] {
        guard try count(text) > maxTokens else { return [text] }
        var chunks: [String] = [], current = ""
        for sentence in ReplyText.sentences(text) {
            let candidate = current.isEmpty ? sentence : current + " " + sentence
            if try !current.isEmpty && count(candidate) > maxTokens {
                chunks.append(current)
                current = sentence
            } else {
                current = candidate
            }
        }
        if !current.isEmpty { chunks.append(current) }
        return chunks
    }

    /// The first line of a reply, without quotes, a "Title:" label, markdown or a final full stop, cut to 8 words.
    static func cleanTitle(_ reply: String) -> String {
        var line = reply.split(separator: "\n").first.map(String.init) ?? ""
        for prefix in ["title:", "**title:**", "#"] where line.lowercased().hasPrefix(prefix) {
            line = String(line.dropFirst(prefix.count))
        }
        line = line.trimmingCharacters(in: CharacterSet(charactersIn: " \"'*`#.“”").union(.whitespaces))
        let words = line.split(separator: " ").prefix(maxTitleWords)
        return words.joined(separator: " ").trimmingCharacters(in: CharacterSet(charactersIn: " ,;:-."))
    }

    /// Small models sometimes answer with the instruction itself ("At most 8 words").
    static func echoesInstructions(_ title: String) -> Bool {
        let t = title.lowercased()
        return ["at most", "words", "title", "transcript", "voice note", "this note"].contains { t.contains($0) }
    }

    /// Whether a title is just the transcript's opening words.
    static func copiesOpening(_ title: String, of transcript: String) -> Bool {
        let t = Titles.words(title), opening = Titles.words(transcript).prefix(t.count)
        return t.count >= 2 && Array(opening) == t
    }
}
