import Foundation

/// Someone heard in the notes: every voice the notes store has linked to one person, named or not yet.
/// Naming a person names them in every note they are heard in, past and future.
public struct Person: Sendable, Equatable, Codable {
    public var id: Int
    /// Nil until someone names them (the pages and CLI then say `Voice ID`).
    public var name: String?
    /// The notes they are heard in, oldest first.
    public var notes: [Int]
    /// Seconds they speak over all their notes.
    public var seconds: Double
    /// When the newest note they are heard in was made.
    public var lastHeard: Date?
    /// Each voice of theirs: which note, under which label its segments carry, for how long.
    public var appearances: [Appearance]

    public struct Appearance: Sendable, Equatable, Codable {
        public var note: Int
        /// The note's speaker label for this voice: the person's name once named, else `SPEAKER_nn`.
        public var label: String
        public var seconds: Double
    }

    /// The name, or what to call them until they have one.
    public var displayName: String { name ?? "Voice \(id)" }

    private enum CodingKeys: String, CodingKey {
        case id, name, notes, seconds, appearances
        case lastHeard = "last_heard"
    }

    public func encode(to encoder: Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(id, forKey: .id)
        try c.encode(name, forKey: .name)  // null, not absent, while unnamed
        try c.encode(notes, forKey: .notes)
        try c.encode(seconds, forKey: .seconds)
        try c.encode(lastHeard, forKey: .lastHeard)
        try c.encode(appearances, forKey: .appearances)
    }
}
