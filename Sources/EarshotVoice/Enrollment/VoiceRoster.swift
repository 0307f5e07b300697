import EarshotCore
import Foundation

/// Everyone enrolled in a profile store, trained against each other: each head is "this person versus
/// the background voices and every other enrolled person". Enrolling someone new also retrains the heads
/// of those enrolled before, which would otherwise never have seen the new voice and accept it
/// (FSDD, 6 speakers enrolled in turn: EER 21.7% without this, 11.2% with it; BENCHMARKS.md).
public struct VoiceRoster: Sendable {
    public let enrollment: SpeakerEnrollment
    public let store: VoiceProfileStore

    public init(enrollment: SpeakerEnrollment, store: VoiceProfileStore = VoiceProfileStore()) {
        self.enrollment = enrollment
        self.store = store
    }

    /// Enrols `name` from `clips` against `background` (window d-vectors) and everyone else, saves the
    /// profile, then retrains and saves the others. Returns the profile and how many windows it was trained against.
    @discardableResult
    public func enroll(name: String, clips: [String], background: [[Float]],
                       onEpoch: ((HeadTrainer.Epoch) -> Void)? = nil) throws -> (profile: VoiceProfile, others: Int) {
        // one enrolment at a time on a store, across processes: each reads everyone, trains and writes them back,
        // so two at once would each train without the other's voice
        try FileLock.withExclusiveLock(at: store.directory.appendingPathComponent(".enrolment.lock")) {
            try enrollLocked(name: name, clips: clips, background: background, onEpoch: onEpoch)
        }
    }

    private func enrollLocked(name: String, clips: [String], background: [[Float]],
                              onEpoch: ((HeadTrainer.Epoch) -> Void)?) throws -> (profile: VoiceProfile, others: Int) {
        let enrolled = store.loadAll().profiles.filter { $0.name != name }
        let others = background + enrolled.flatMap(\.windows)
        let profile = try enrollment.enroll(name: name, clips: clips, others: others, onEpoch: onEpoch)
        try store.save(profile)
        for old in enrolled {
            let rest = enrolled.filter { $0.name != old.name }.flatMap(\.windows) + profile.windows
            try store.save(enrollment.retrained(old, others: background + rest))
        }
        return (profile, others.count)
    }
}
