import EarshotCore
import EarshotVoice
import Foundation

/// `earshot voice ...`: enrol people by training on the device, then verify and identify them.
enum VoiceCommand {
    static let command = Command(
        name: "voice",
        abstract: "Recognise a voice: enrol a person from a few clips, verify or identify speakers, export the model.",
        examples: [
            "earshot voice enroll alice a1.wav a2.wav a3.wav a4.wav a5.wav",
            "earshot voice enroll bob --record 5",
            "earshot voice verify alice unknown.wav",
            "earshot voice identify unknown.wav",
            "earshot voice list",
            "earshot voice export alice -o alice.onnx",
        ],
        subcommands: [VoiceEnrollCommand.command, VoiceVerifyCommand.command, VoiceIdentifyCommand.command,
                      VoiceListCommand.command, VoiceRemoveCommand.command, VoiceExportCommand.command, VoicePrepareCommand.command])

}

enum VoiceVerifyCommand {
    static let command = Command(
        name: "verify",
        abstract: "Is this recording the enrolled person? Accepted when the trained head's probability ≥ threshold.",
        usage: "<name> <file> [--threshold p] [--json]",
        discussion: "Exit code 0 when accepted, 3 when rejected, so scripts can act on the answer.",
        options: [
            Option(name: "threshold", value: "p", help: "Probability needed to accept (default: the profile's, 0.80)."),
            Option(name: "json", value: nil, help: "Print JSON."),
        ],
        examples: ["earshot voice verify alice door-camera.wav"],
        run: run)

    static func run(_ args: ParsedArguments) async throws -> Int32 {
        guard args.positionals.count == 2 else { throw UsageError(message: "give a name and a recording", path: args.path) }
        var threshold: Float?
        if let t = args.value("threshold") {
            guard let v = Float(t), v > 0, v < 1 else { throw UsageError(message: "--threshold must be between 0 and 1", path: args.path) }
            threshold = v
        }
        let score = try await VoiceID().verify(args.positionals[0], file: args.positionals[1], threshold: threshold)
        if args.flag("json") {
            try JSONOutput.document(score)
        } else {
            print(String(format: "%@: %@ (probability %.3f, threshold %.2f; cosine to enrolment %.3f)",
                         score.name, score.accepted ? "accepted" : "rejected", score.probability, score.threshold, score.cosine))
        }
        return score.accepted ? 0 : 3
    }
}

enum VoiceIdentifyCommand {
    static let command = Command(
        name: "identify",
        abstract: "Who is speaking? Enrolled speakers ranked by probability, or 'unknown'.",
        usage: "<file>... [--json]",
        options: [Option(name: "json", value: nil, help: "Print JSON.")],
        examples: ["earshot voice identify meeting-clip.wav"],
        run: run)

    static func run(_ args: ParsedArguments) async throws -> Int32 {
        guard !args.positionals.isEmpty else { throw UsageError(message: "give at least one recording", path: args.path) }
        let voices = try VoiceID()
        let (profiles, damaged) = await voices.enrolled()
        for d in damaged { StandardError.write("warning: voice profile '\(d)' is damaged and was skipped\n") }
        guard !profiles.isEmpty else { throw VoiceError.noProfiles }
        var documents: [JSONOutput.Each<VoiceID.Identification>] = []
        var failures = 0
        for path in args.positionals {
            do {
                let identification = try await voices.identify(file: path)
                documents.append(.result(identification))
                if !args.flag("json") {
                    print((args.positionals.count > 1 ? "\(path): " : "") + (identification.speaker ?? "unknown"))
                    for s in identification.ranking {
                        print("  " + s.name.padding(toLength: max(20, s.name.count + 1), withPad: " ", startingAt: 0)
                              + String(format: "probability %.3f  cosine %.3f", s.probability, s.cosine))
                    }
                }
            } catch let error as LocalizedError where error is AudioError || error is VoiceError {
                failures += 1
                CommandRunner.fail(error)
                documents.append(.failure(JSONOutput.Failure(source: path, error: error.localizedDescription)))
            }
        }
        if args.flag("json") { try JSONOutput.documents(documents, single: args.positionals.count == 1) }
        return failures == 0 ? 0 : 1
    }
}

enum VoiceListCommand {
    static let command = Command(
        name: "list", abstract: "List enrolled voice profiles.", usage: "[--json]",
        options: [Option(name: "json", value: nil, help: "Print JSON.")], examples: ["earshot voice list"], run: run)

    static func run(_ args: ParsedArguments) async throws -> Int32 {
        let listing = VoiceProfileStore().listing()
        let (profiles, damaged) = (listing.profiles, listing.damaged)
        if args.flag("json") {
            try JSONOutput.document(listing)
        } else {
            if profiles.isEmpty && damaged.isEmpty { print("no voices enrolled (earshot voice enroll NAME FILE...)") }
            for p in profiles { print(String(format: "%@  (%d clips, %.0f s of speech, %@)", p.name, p.clips, p.speechSeconds, p.created)) }
            for d in damaged { print("\(d)  (damaged: remove it and enrol again)") }
        }
        return 0
    }
}

enum VoiceRemoveCommand {
    static let command = Command(
        name: "remove", abstract: "Delete an enrolled voice profile.", usage: "<name>",
        examples: ["earshot voice remove alice"], run: run)

    static func run(_ args: ParsedArguments) async throws -> Int32 {
        guard args.positionals.count == 1 else { throw UsageError(message: "give the name to remove", path: args.path) }
        try VoiceProfileStore().remove(args.positionals[0])
        print("removed \(args.positionals[0])")
        return 0
    }
}
