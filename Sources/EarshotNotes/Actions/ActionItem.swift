import Foundation

/// Something someone said they would do, or was asked to, in a note.
public struct ActionItem: Sendable, Equatable, Codable {
    /// The task, without its owner ("Post the support job description by Friday").
    public var text: String
    /// Who will do it, as the note names them: a voice's label in the note (a person's name, or `SPEAKER_nn` while
    /// nobody named it) or a name said in the note; nil when the note does not say (the note's own author, "we").
    public var owner: String?
    /// The person `owner` is, when they are one (see `NotesLibrary.people`).
    public var person: Int?
    /// Seconds into the recording where it was said.
    public var start: Double?
    /// Marked done by the user.
    public var done: Bool

    public init(text: String, owner: String? = nil, person: Int? = nil, start: Double? = nil, done: Bool = false) {
        self.text = text
        self.owner = owner
        self.person = person
        self.start = start
        self.done = done
    }

    /// "Tom: Post the support job description by Friday", as lists and exports show it.
    public var line: String { owner.map { "\($0): \(text)" } ?? text }

    enum CodingKeys: String, CodingKey { case text, owner, person, start, done }

    /// Notes stored before items had owners kept each as a plain string ("Tom: Post …"): read as an item without one.
    public init(from decoder: any Decoder) throws {
        if let line = try? decoder.singleValueContainer().decode(String.self) {
            self.init(text: line)
            return
        }
        let c = try decoder.container(keyedBy: CodingKeys.self)
        self.init(text: try c.decode(String.self, forKey: .text), owner: try c.decodeIfPresent(String.self, forKey: .owner),
                  person: try c.decodeIfPresent(Int.self, forKey: .person), start: try c.decodeIfPresent(Double.self, forKey: .start),
                  done: try c.decodeIfPresent(Bool.self, forKey: .done) ?? false)
    }

    /// Written with every key, null where unknown, so clients see one shape.
    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(text, forKey: .text)
        try c.encode(owner, forKey: .owner)
        try c.encode(person, forKey: .person)
        try c.encode(start, forKey: .start)
        try c.encode(done, forKey: .done)
    }
}
