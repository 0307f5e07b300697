import EarshotCore
import Foundation

/// An enrolled person: their centroid d-vector, the head trained on the device to tell them from others,
/// their window embeddings (so later enrolments can use them as "others"), and how they were enrolled.
public struct VoiceProfile: Sendable, Codable, Equatable {
    public static let format = "earshot.voice-profile"
    public static let currentVersion = 1
    /// The reference design's acceptance threshold on the head's probability.
    public static let defaultThreshold: Float = 0.80

    public var format = Self.format
    public var version = Self.currentVersion
    public var name: String
    public var created: String
    public var encoder: String
    public var encoderHash: String
    public var centroid: [Float]
    /// Classes: 0 = someone else, 1 = this person.
    public var head: ClassifierHead
    public var threshold: Float
    public var windows: [[Float]]
    public var clips: Int
    public var speechSeconds: Double
    public var backgroundWindows: Int
    /// Seconds the head took to train (absent in profiles written before it was recorded).
    public var trainingSeconds: Double?
    /// The enrolment speech as the diarizer hears voices: its CAM++ vectors averaged. What names this person's voice in
    /// a conversation (`Diarizer`); absent in profiles enrolled before it was kept (those are named by the head).
    public var voiceprint: [Float]?
}

extension VoiceProfile {
    /// What makes a decoded profile unusable, or nil: its name is its file's, its head fits the speaker
    /// network and has two classes, its vectors have the network's size, and every number is finite and in
    /// range (a damaged profile must be refused, not crash or accept the wrong person).
    func problem(fileName: String) -> String? {
        guard name.precomposedStringWithCanonicalMapping == fileName.precomposedStringWithCanonicalMapping else {
            return "the profile is named '\(name)' but its file is '\(fileName)'"
        }
        guard threshold > 0, threshold < 1 else { return "its threshold \(threshold) is not a probability between 0 and 1" }
        guard centroid.count == SpeakerEncoder.dimension, centroid.allSatisfy(\.isFinite) else {
            return "its centroid is not \(SpeakerEncoder.dimension) finite numbers"
        }
        guard !windows.isEmpty, windows.allSatisfy({ $0.count == SpeakerEncoder.dimension && $0.allSatisfy(\.isFinite) }) else {
            return "its speaker vectors are not each \(SpeakerEncoder.dimension) finite numbers"
        }
        guard clips > 0, speechSeconds.isFinite, speechSeconds > 0 else { return "it records \(clips) clips and \(speechSeconds) s of speech" }
        if let problem = head.problem(inputSize: SpeakerEncoder.dimension, classes: 2) { return "damaged head: \(problem)" }
        if let voiceprint, voiceprint.count != DiarizationEncoder.dimension || !voiceprint.allSatisfy(\.isFinite) {
            return "its voiceprint is not \(DiarizationEncoder.dimension) finite numbers"
        }
        return nil
    }
}

public enum VoiceError: Error, LocalizedError, Equatable {
    case tooFewClips(given: Int, needed: Int)
    case notEnoughSpeech(path: String, seconds: Double, needed: Double)
    case unknownProfile(String, known: [String])
    case badProfile(path: String, problem: String)
    case badName(String)
    case noBackground(path: String)
    case noProfiles

    public var errorDescription: String? {
        switch self {
        case let .tooFewClips(given, needed):
            return "enrolment needs at least \(needed) clips (5 recommended, about 10 s of speech each); got \(given)"
        case let .notEnoughSpeech(path, seconds, needed):
            return String(format: "%@: only %.2f s of speech found; at least %.1f s is needed (about 10 s per clip is recommended)",
                          path, seconds, needed)
        case let .unknownProfile(name, known):
            return "no voice profile named '\(ShownText.echoed(name))'" + (known.isEmpty ? " (nobody is enrolled yet)" : "; enrolled: \(known.joined(separator: ", "))")
        case let .badProfile(path, problem): return "\(path): \(problem)"
        case let .badName(name):
            return "'\(ShownText.echoed(name))' is not a usable name: use up to 64 letters, digits, spaces (not at either end), '.', '_' or '-', "
                + "not starting with '.'"
        case .noProfiles: return "no voices enrolled yet"
        case let .noBackground(path): return "no background speakers in \(path)"
        }
    }

    public var recoverySuggestion: String? {
        switch self {
        case .badProfile: return "remove the profile and enrol the person again"
        case .noBackground: return "`\(ModelStore.installCommand)` installs background speakers; or give a folder of other people's recordings"
        default: return nil
        }
    }
}

/// Profiles as JSON files under `EARSHOT_HOME/voice/profiles`, written atomically.
public struct VoiceProfileStore: Sendable {
    public let directory: URL
    /// The build of the speaker network profiles must have been enrolled with (`SpeakerEncoder.modelHash`); nil
    /// checks none. `VoiceID` and `Diarizer` set it to the installed one: a profile enrolled on another build holds
    /// vectors this one does not make, and its head would score them wrongly, so it is refused like a damaged one.
    public var encoderHash: String?

    public init(store: ModelStore = ModelStore()) {
        directory = store.home.appendingPathComponent("voice/profiles")
    }

    /// Profiles kept in a folder of your choice.
    public init(directory: URL) {
        self.directory = directory
    }

    public static func validate(_ name: String) throws {
        let allowed = CharacterSet.alphanumerics.union(CharacterSet(charactersIn: " ._-"))
        // a person's name by the rule every door uses (`NameRule`), and a file name too: no padding, not hidden, only
        // letters, digits and a few marks, and short enough in bytes for any file system
        guard case .success = NameRule.checked(name), !name.trimmingCharacters(in: .whitespaces).isEmpty, name.trimmingCharacters(in: .whitespaces) == name,
              name.count <= 64, name.utf8.count <= 200, !name.hasPrefix("."), name.unicodeScalars.allSatisfy(allowed.contains) else {
            throw VoiceError.badName(name)
        }
    }

    /// One file per person, whichever Unicode form their name was typed in ("Zoë" composed or not).
    func path(_ name: String) -> URL { directory.appendingPathComponent(name.precomposedStringWithCanonicalMapping + ".json") }

    public func names() -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? [])
            .filter { $0.hasSuffix(".json") }.map { String($0.dropLast(5)) }.sorted()
    }

    public func load(_ name: String) throws -> VoiceProfile {
        try Self.validate(name)
        let url = path(name)
        guard let data = FileManager.default.contents(atPath: url.path) else {
            throw VoiceError.unknownProfile(name, known: names())
        }
        let profile = try VoiceProfile.validated(from: data, path: url.path, name: name)
        if let encoderHash, profile.encoderHash != encoderHash {
            throw VoiceError.badProfile(path: url.path, problem: "enrolled with another build of the speaker network (build "
                + "\(profile.encoderHash.prefix(12)); setup has since installed build \(encoderHash.prefix(12)), whose vectors differ); "
                + "enrol the person again")
        }
        return profile
    }

    /// The same store, checking profiles against `encoder`'s build.
    public func checking(against encoder: SpeakerEncoder) -> VoiceProfileStore {
        var store = self
        store.encoderHash = encoder.modelHash
        return store
    }
}

extension VoiceProfile {
    /// A profile read from a file's bytes, checked whole: refused with `VoiceError.badProfile` naming `path`
    /// unless every shape, number and name is right (see `problem(fileName:)`).
    public static func validated(from data: Data, path: String, name: String) throws -> VoiceProfile {
        do {
            let profile = try JSONDecoder().decode(VoiceProfile.self, from: data)
            guard profile.format == VoiceProfile.format, profile.version == VoiceProfile.currentVersion else {
                throw VoiceError.badProfile(path: path, problem: "not a version \(VoiceProfile.currentVersion) Earshot voice profile")
            }
            if let problem = profile.problem(fileName: name) { throw VoiceError.badProfile(path: path, problem: problem) }
            // a head trained on another speaker network's vectors would score this one's wrongly
            guard profile.encoder == SpeakerEncoder.modelIdentity else {
                throw VoiceError.badProfile(path: path, problem: "enrolled with speaker network \(profile.encoder); this Earshot uses "
                    + "\(SpeakerEncoder.modelIdentity)")
            }
            return profile
        } catch let error as VoiceError {
            throw error
        } catch {
            throw VoiceError.badProfile(path: path, problem: "damaged profile")
        }
    }
}

extension VoiceProfileStore {
    /// Who is enrolled, without the vectors: what `earshot voice list --json` prints.
    public struct Listing: Sendable, Codable, Equatable {
        public struct Entry: Sendable, Codable, Equatable {
            public var name: String
            public var created: String
            public var clips: Int
            public var speechSeconds: Double
            private enum CodingKeys: String, CodingKey { case name, created, clips, speechSeconds = "speech_seconds" }
        }
        public var profiles: [Entry]
        /// Profiles that could not be read.
        public var damaged: [String]
    }

    public func listing() -> Listing {
        let (profiles, damaged) = loadAll()
        return Listing(profiles: profiles.map { Listing.Entry(name: $0.name, created: $0.created, clips: $0.clips, speechSeconds: $0.speechSeconds) },
                       damaged: damaged)
    }

    /// Every readable profile; damaged ones are returned separately, not thrown.
    public func loadAll() -> (profiles: [VoiceProfile], damaged: [String]) {
        var profiles: [VoiceProfile] = [], damaged: [String] = []
        for name in names() {
            if let p = try? load(name) { profiles.append(p) } else { damaged.append(name) }
        }
        return (profiles, damaged)
    }

    public func save(_ profile: VoiceProfile) throws {
        try Self.validate(profile.name)
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        try encoder.encode(profile).write(to: path(profile.name), options: .atomic)
    }

    public func remove(_ name: String) throws {
        try Self.validate(name)
        guard FileManager.default.fileExists(atPath: path(name).path) else { throw VoiceError.unknownProfile(name, known: names()) }
        try FileManager.default.removeItem(at: path(name))
    }
}
