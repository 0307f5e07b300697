import EarshotCore
import Foundation

/// Which person each voice of a new note is. Precision first: two people wrongly made one would carry one
/// name into the other's notes, while one person left as two is fixed by naming (or merging) them, so a voice joins
/// a person only when it is clearly theirs; otherwise it becomes a new, unnamed person.
enum VoiceLinking {
    /// The mean cosine of a voice's voiceprint to a person's voiceprints at or above which it is that person
    /// (CAM++ voice centroids of one recording each; BENCHMARKS.md "People").
    static let sameVoice: Float = 0.75
    /// A voice heard for less than this is too little to compare reliably: it is a person of its own, and its
    /// voiceprint does not speak for the person it joins later by name.
    static let minimumSeconds = 3.0

    /// A person already known, with the voiceprints of their voices long enough to compare.
    struct Known {
        var person: Int
        var name: String?
        var voiceprints: [[Float]]
    }

    /// A voice of the new note: its label, talk time, voiceprint, and whether the label is an enrolled person's name.
    struct Heard {
        var label: String
        var seconds: Double
        var voiceprint: [Float]?
        var enrolled: Bool
    }

    /// For each heard voice, the person it is (an index into `known`), or nil for a new person. A voice an enrolled
    /// profile named is the person of that name; each other voice long enough joins the person its voiceprint is
    /// closest to when that is at least `threshold`, the closest pairs first, each person taking at most one voice
    /// of the note (the diarizer already judged two voices of one recording to be two people).
    static func link(_ heard: [Heard], to known: [Known], threshold: Float = sameVoice) -> [Int?] {
        var result = [Int?](repeating: nil, count: heard.count)
        var taken = Set<Int>()
        for (v, voice) in heard.enumerated() where voice.enrolled {
            if let k = known.firstIndex(where: { $0.name == voice.label }), !taken.contains(k) {
                result[v] = k
                taken.insert(k)
            }
        }
        var pairs: [(voice: Int, known: Int, score: Float)] = []
        for (v, voice) in heard.enumerated() where !voice.enrolled && voice.seconds >= minimumSeconds {
            guard let print = voice.voiceprint else { continue }
            for (k, person) in known.enumerated() where !person.voiceprints.isEmpty {
                let score = person.voiceprints.map { SpeakerEncoder.cosine(print, $0) }.reduce(0, +) / Float(person.voiceprints.count)
                if score >= threshold { pairs.append((v, k, score)) }
            }
        }
        for pair in pairs.sorted(by: { $0.score > $1.score }) where result[pair.voice] == nil && !taken.contains(pair.known) {
            result[pair.voice] = pair.known
            taken.insert(pair.known)
        }
        return result
    }
}
