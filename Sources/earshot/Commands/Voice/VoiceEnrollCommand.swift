import EarshotCore
import EarshotVoice
import Foundation

enum VoiceEnrollCommand {
    static let command = Command(
        name: "enroll",
        abstract: "Enrol a person: train a voice profile on the device from 3 or more clips (5 recommended).",
        usage: "<name> <file>... | <name> --record n [--seconds s]",
        discussion: """
        Speech is found in each clip with the voice-activity detector (each clip needs at least 0.2 s of speech
        and all together 1 s; about 10 s per clip and 5 clips give reliable results). The frozen speaker network turns every 0.8 s
        of speech into a d-vector, and a head is trained with AdamW and cross-entropy to tell this person
        from other speakers: the background voices setup installs (KLettres recordings of ~20 speakers and
        espeak-ng voices, or --background DIR of real recordings) and everyone already enrolled; the heads
        of people enrolled earlier are retrained with the new voice among their others. The profile keeps
        the centroid too, for cosine scores.
        """,
        options: [
            Option(name: "record", value: "n", help: "Record n clips from the microphone, reading prompts."),
            Option(name: "seconds", value: "s", help: "Length of each recorded clip (default 10, 3 to 60)."),
            Option(name: "background", value: "dir", help: "Folder of other speakers' recordings to train against."),
            Option(name: "json", value: nil, help: "Print the result as JSON."),
        ],
        examples: ["earshot voice enroll alice a1.wav a2.wav a3.wav a4.wav a5.wav", "earshot voice enroll bob --record 5",
                   "earshot voice enroll dana --record 3 --seconds 15",
                   "earshot voice enroll carol c*.flac --background ~/voices/others"],
        run: run)

    static func run(_ args: ParsedArguments) async throws -> Int32 {
        guard let name = args.positionals.first else { throw UsageError(message: "give a name and clips (or --record n)", path: args.path) }
        try VoiceProfileStore.validate(name)
        var clips = Array(args.positionals.dropFirst())
        if args.value("record") != nil {
            guard clips.isEmpty else { throw UsageError(message: "give clips or --record, not both", path: args.path) }
            clips = try await record(name: name, count: try args.int("record", default: 5, range: 3...20),
                                     seconds: try args.double("seconds", default: 10, range: 3...60), voices: try VoiceID())
        } else if args.value("seconds") != nil {
            throw UsageError(message: "--seconds sets the length of the clips --record takes", path: args.path)
        }
        let voices = try VoiceID(background: args.value("background").map { BackgroundSpeakers(directory: $0) })
        let bar = ProgressBar(label: "background voices", total: 1)
        try await voices.prepare { done, total in bar.update(Double(done) / Double(total), detail: "\(done)/\(total) files") }
        bar.finish()
        let enrolled = try await voices.enroll(name, clips: clips)
        if args.flag("json") {
            try JSONOutput.document(enrolled)
        } else {
            print(String(format: "enrolled %@: %d clips, %.1f s of speech, %d windows against %d from other speakers (%.1f s)",
                         name, enrolled.clips, enrolled.speechSeconds, enrolled.windows, enrolled.otherWindows, enrolled.seconds))
            if enrolled.speechSeconds < 20 { print("tip: about 10 s of speech in each of 5 clips makes verification more reliable") }
        }
        return 0
    }

    /// Prompts, counts down and records `count` clips of `seconds` from the microphone, with a level meter;
    /// returns their paths.
    static func record(name: String, count: Int, seconds: Double, voices: VoiceID) async throws -> [String] {
        let dir = ModelStore().home.appendingPathComponent("voice/recordings/\(name)")
        var paths: [String] = []
        for i in 0..<count {
            let prompt = VoiceID.readingPrompts[i % VoiceID.readingPrompts.count]
            StandardError.write("\nClip \(i + 1) of \(count). Read aloud:\n\n    \(prompt)\n\n")
            for n in stride(from: 3, through: 1, by: -1) { StandardError.write("\(n)… "); try await Task.sleep(nanoseconds: 700_000_000) }
            StandardError.write("speak now\n")
            let clip = try await voices.recordClip(from: MicrophoneSource(), to: dir.appendingPathComponent("clip\(i + 1).wav"),
                                                  seconds: seconds) { chunk, elapsed in
                StandardError.write(String(format: "\r  %4.1f s  %@", elapsed, LevelMeter.bar(chunk)))
            }
            StandardError.write("\n")
            paths.append(clip.path)
        }
        return paths
    }
}
