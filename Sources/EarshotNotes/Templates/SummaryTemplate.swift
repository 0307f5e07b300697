import Foundation

/// How a note's summary is laid out: the one- or two-sentence summary every note gets, then the template's sections,
/// each a few short points the model finds in the note under that heading ("Decisions", "Key points"). A point is kept
/// only when the note says it (`NoteWriter.supported`); a section left with none is left out, so a template the model
/// cannot follow for a note gives the plain summary, never invented text. Built-in templates cover the common kinds of
/// recording; people add their own (a name, what to look for, the headings).
public struct SummaryTemplate: Sendable, Codable, Equatable {
    public var name: String
    /// What to look for, in words: shown beside the name and given to the model with each heading.
    public var instructions: String
    /// The headings, in order; empty: the plain summary alone.
    public var sections: [String]
    public var builtIn: Bool

    enum CodingKeys: String, CodingKey {
        case name, instructions, sections
        case builtIn = "built_in"
    }

    public init(name: String, instructions: String, sections: [String], builtIn: Bool = false) {
        self.name = name
        self.instructions = instructions
        self.sections = sections
        self.builtIn = builtIn
    }

    /// The template of a note that names none: the plain summary.
    public static let memo = SummaryTemplate(name: "memo", instructions: "What the note says, in one or two sentences (ideas, reminders, anything short).",
                                             sections: [], builtIn: true)
    public static var defaultName: String { memo.name }

    public static let builtIns = [
        memo,
        SummaryTemplate(name: "meeting", instructions: "What was decided, and what was discussed without a decision; action items with their owners.",
                        sections: ["Decisions", "Discussed"], builtIn: true),
        SummaryTemplate(name: "one-to-one", instructions: "A conversation between two people: updates given, concerns raised, and what they agreed.",
                        sections: ["Updates", "Concerns", "Agreed"], builtIn: true),
        SummaryTemplate(name: "lecture", instructions: "A talk or a lesson: its key points, and the terms it explains with their meaning.",
                        sections: ["Key points", "Terms"], builtIn: true),
        SummaryTemplate(name: "call", instructions: "A phone call: why it was made, and how it ended.",
                        sections: ["Purpose", "Outcome"], builtIn: true),
    ]

    /// The question each built-in heading is asked as: the 1.5B model reads a bare "Decisions?" as a request for action
    /// items, and answers "What was decided?".
    static let questions = [
        "Decisions": "What was decided?", "Discussed": "What was discussed without a decision?",
        "Updates": "What updates were given?", "Concerns": "What concerns or problems were raised?", "Agreed": "What was agreed?",
        "Key points": "What are the key points?", "Terms": "Which terms are explained, each with its meaning?",
        "Purpose": "Why was the call made?", "Outcome": "How did the call end?",
    ]

    /// What the model is asked for a heading: a built-in heading's own question, else the heading with the instructions.
    public func question(for heading: String) -> String {
        if builtIn, let question = Self.questions[heading] { return question }
        return "What does this note say about: \(heading)? (The summary is a \(name): \(instructions))"
    }

    /// Limits on what people write, so a template fits the model's context beside a transcript.
    public static let maximumNameCharacters = 40, maximumInstructionCharacters = 400, maximumSections = 5, maximumHeadingCharacters = 40

    /// A template people wrote, checked: a name of letters, digits, spaces and dashes; instructions of at most 400
    /// characters; one to five headings (none given: one, the template's name). Throws `NotesError.badTemplate`.
    public static func custom(name: String, instructions: String, sections: [String]) throws -> SummaryTemplate {
        let name = name.trimmingCharacters(in: .whitespacesAndNewlines).precomposedStringWithCanonicalMapping
        guard !name.isEmpty, name.count <= maximumNameCharacters,
              name.unicodeScalars.allSatisfy({ CharacterSet.alphanumerics.contains($0) || $0 == " " || $0 == "-" || $0 == "_" }) else {
            throw NotesError.badTemplate("a template's name is 1–\(maximumNameCharacters) letters, digits, spaces or dashes; got '\(name)'")
        }
        let instructions = instructions.trimmingCharacters(in: .whitespacesAndNewlines).replacingOccurrences(of: "\n", with: " ")
        guard !instructions.isEmpty, instructions.count <= maximumInstructionCharacters else {
            throw NotesError.badTemplate("say in 1–\(maximumInstructionCharacters) characters what the template '\(name)' looks for")
        }
        let headings = sections.map { $0.trimmingCharacters(in: .whitespacesAndNewlines) }.filter { !$0.isEmpty }
        guard headings.count <= maximumSections,
              headings.allSatisfy({ $0.count <= maximumHeadingCharacters && !$0.contains(where: \.isNewline) }) else {
            throw NotesError.badTemplate("a template has at most \(maximumSections) headings of at most \(maximumHeadingCharacters) characters each")
        }
        return SummaryTemplate(name: name, instructions: instructions, sections: headings.isEmpty ? [name.capitalized] : headings)
    }
}
