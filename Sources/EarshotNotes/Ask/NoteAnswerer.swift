import EarshotLanguage
import Foundation

/// An answer to a question about the notes, and what it rests on.
public struct Answer: Sendable, Equatable, Codable {
    public var question: String
    /// The answer, each claim followed by the numbers of its citations ("[1]", "[1][2]"); when the notes do not
    /// say, a sentence saying so.
    public var answer: String
    /// Whether the notes answer it: false when the model said they do not, or cited nothing it was given.
    public var answered: Bool
    /// What the answer cites, in the order of its numbers: each a passage the model was given.
    public var citations: [Passage]
    /// The passages the model was given, closest first: where to look when the notes do not say.
    public var passages: [Passage]
    /// The model's reply as it wrote it, before the checks (nil when no model was asked: nothing came close).
    public var reply: String?
}

/// Answers a question from numbered passages with a local language model, and checks the answer in code: every
/// claim must cite a passage it was given, by its number, and share a word with it; a reply that cites none of them
/// is not an answer. The reply follows a grammar (claims each closed by citations, or the one sentence that says
/// the notes do not say), so a citation is always where the check looks for it.
struct NoteAnswerer {
    let model: any ChatModel

    static let abstention = "The notes do not say."
    /// The most passages a question is answered from: enough for an answer spread over two or three moments, few
    /// enough that the prompt (about 80 tokens each) is read in a second or two.
    static let passageCount = 5

    /// The same for every question, so that a model that has read it once reads only what follows (see
    /// `LanguageModel.promptCuts`). It gives the model no way to say "I don't know": the default model, offered one,
    /// took it for a fifth of the questions its passages answered word for word (bench/ask.py). Whether an answer
    /// stands is decided in code instead (`read`).
    static let system = """
    You answer questions about a person's voice notes from numbered passages of their transcripts. Each passage says \
    which note it is from, when the note was recorded, when in it the words were said and who said them. The person \
    asking made the notes: "I" in the question is them, and so is "I" in a passage that names no speaker.

    Answer from the passage that says it, in one short sentence with the passage's words, and end the sentence with \
    that passage's number in brackets, like [2]. Say who did or will do something when the passage says it.
    """

    static func request(_ question: String, passages: [Passage], now: Date) -> ReplyRequest {
        let numbered = passages.enumerated().map { i, p in "[\(i + 1)] " + label(p) + ": \"" + p.text + "\"" }.joined(separator: "\n")
        let user = "Today is \(day(now)).\n\nPassages:\n\(numbered)\n\nQuestion: \(question)\nAnswer it from the passages, with their numbers."
        return ReplyRequest([.init("system", system), .init("user", user)], maxTokens: 120, grammar: grammar(passages: passages.count))
    }

    /// How a passage is introduced: its note, the day it was recorded, the moment and the voice.
    static func label(_ p: Passage) -> String {
        let title = p.title.isEmpty ? "" : " \"\(p.title)\""
        let who = p.speaker.map { $0.hasPrefix("SPEAKER_") ? ", an unnamed voice (\($0)) said" : ", \($0) said" } ?? ""
        return "note \(p.note)\(title), recorded \(day(p.created)), at \(NotesExporter.durationText(p.start))\(who)"
    }

    static func day(_ date: Date) -> String { dayFormatter.string(from: date) }

    private static let dayFormatter: DateFormatter = {
        let f = DateFormatter()
        f.locale = Locale(identifier: "en_GB")
        f.dateFormat = "EEEE d MMMM yyyy"
        return f
    }()

    /// A claim: its words, then its passage numbers ("Tom will get the quotes [1][2].").
    private static let claimPattern = try! NSRegularExpression(pattern: #"([^\[\]]+?)\s*((?:\[\d+\])+)\.?"#)

    /// GBNF: one to three claims, each some words and then one to three passage numbers.
    static func grammar(passages: Int) -> String {
        let digit = "[1-\(max(1, min(9, passages)))]"
        return """
        root ::= claim ( " " claim ){0,2}
        claim ::= [^\\[\\]\\n"]{2,240} " "? cite cite? cite? "."?
        cite ::= "[" \(digit) "]"
        """
    }

    /// The reply read and checked against the passages it was given and the question: a claim's citation stands when
    /// its number is one it was given, and that passage
    /// - holds at least half the claim's content words (`supports`),
    /// - holds every person the claim names (`people`: everyone's name, lower case), as words or as its speaker,
    /// - and holds at least half the question's content words: a passage about something else that shares a word with
    ///   the claim ("How much did the new coffee machine cost?" answered from "they are replacing the coffee machine").
    /// An answer with no citation standing is no answer: the notes do not say.
    static func read(_ reply: String, question: String, passages: [Passage], people: Set<String> = []) -> Answer {
        let unanswered = Answer(question: question, answer: abstention, answered: false, citations: [], passages: passages, reply: reply)
        let asked = Set(PassageRetrieval.stems(question)).subtracting(askingWords)
        var cited: [Passage] = [], sentences: [String] = []
        for match in claimPattern.matches(in: reply, range: NSRange(reply.startIndex..., in: reply)) {
            let said = String(reply[Range(match.range(at: 1), in: reply)!]).trimmingCharacters(in: .whitespaces)
            let numbers = String(reply[Range(match.range(at: 2), in: reply)!]).split(whereSeparator: { "[]".contains($0) }).compactMap { Int($0) }
            let named = Set(Titles.words(said)).intersection(people)
            var marks = ""
            for n in numbers where passages.indices.contains(n - 1) {
                let passage = passages[n - 1], holds = Set(PassageRetrieval.stems(Self.said(passage)))
                let speakers = Set(Titles.words(Self.said(passage)))
                guard supports(passage, said), named.isSubset(of: speakers), 2 * asked.intersection(holds).count >= asked.count else { continue }
                let index = cited.firstIndex(of: passage) ?? { cited.append(passage); return cited.count - 1 }()
                if !marks.contains("[\(index + 1)]") { marks += "[\(index + 1)]" }
            }
            let sentence = said.hasSuffix(".") || said.hasSuffix("?") || said.hasSuffix("!") ? said : said + "."
            sentences.append(marks.isEmpty ? sentence : sentence + " " + marks)
        }
        guard !cited.isEmpty else { return unanswered }
        return Answer(question: question, answer: sentences.joined(separator: " "), answered: true, citations: cited, passages: passages, reply: reply)
    }

    /// Whether a claim can rest on a passage: at least half its content words (names, numbers, things, each by its
    /// stem) are the passage's or its speaker's, or it has none to check ("Yes."). A small model answering "Who will
    /// fix the checkout errors?" with "Tom will fix the checkout errors [2]" cited Tom's passage about a price list:
    /// one word of four in common.
    static func supports(_ passage: Passage, _ claim: String) -> Bool {
        let words = Set(PassageRetrieval.stems(claim))
        guard !words.isEmpty else { return true }
        return 2 * words.intersection(PassageRetrieval.stems(said(passage))).count >= words.count
    }

    /// What a passage says, with what the model was told of it: its words, its speaker, its note's title and the day
    /// (an answer may say "recorded on Monday"), but none of the label's numbers: read as the passage's, they let
    /// "Sam's birthday is on January 7, 2026" stand on a passage recorded on Friday 4 December 2026.
    static func said(_ passage: Passage) -> String { passage.text + " " + label(passage).filter { !$0.isNumber } }

    /// Words a question asks with rather than about ("What was said about travel costs four days ago?" is about
    /// travel costs): left out when a passage must hold half the question's words.
    static let askingWords = Set(["said", "say", "tell", "told", "talk", "talked", "discuss", "discussed", "mention", "mentioned",
                                  "decide", "decided", "note", "noted", "record", "recorded", "happen", "happened", "much", "many",
                                  "ago", "day", "days", "week", "month", "year", "today", "yesterday", "promise", "promised",
                                  "came", "come", "standup", "meeting"].map(PassageRetrieval.stem))

    /// Answers from `passages` (closest first), telling `onText` the reply as it is written.
    /// `people`: everyone's name, lower case (see `read`).
    func answer(_ question: String, passages: [Passage], people: Set<String>, now: Date = Date(), onText: @escaping (String) -> Void) throws -> Answer {
        let given = Array(passages.prefix(Self.passageCount))
        let reply = try model.reply(to: Self.request(question, passages: given, now: now), onText: onText)
        return Self.read(reply.trimmingCharacters(in: .whitespacesAndNewlines), question: question, passages: given, people: people)
    }
}
