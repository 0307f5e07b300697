import EarshotCore
import EarshotVoice
import Foundation

/// `earshot voice prepare`: computes the background voices' d-vectors now (setup runs it), so the first
/// enrolment does not spend half a minute on them.
enum VoicePrepareCommand {
    static let command = Command(
        name: "prepare",
        abstract: "Compute the background voices' speaker vectors that enrolment trains against (setup does this).",
        usage: "[--background folder] [--json]",
        discussion: """
        Enrolment trains each person against other people's voices. Their d-vectors are cached under
        EARSHOT_HOME/voice/cache, keyed by the recordings and the speaker network; setup computes them, and
        enrol recomputes them only when either changed. Returns at once when they are up to date.
        """,
        options: [
            Option(name: "background", value: "folder", help: "Your own background recordings (default: the ones setup installs)."),
            Option(name: "json", value: nil, help: "Print JSON."),
        ],
        examples: ["earshot voice prepare", "earshot voice prepare --background my-voices/"],
        run: run)

    static func run(_ args: ParsedArguments) async throws -> Int32 {
        let background = BackgroundSpeakers(directory: args.value("background"))
        let voices = try VoiceID(background: background)
        let bar = ProgressBar(label: "background voices", total: 1)
        let prepared = try await voices.prepare { done, total in
            bar.update(Double(done) / Double(total), detail: "\(done)/\(total) files")
        }
        bar.finish()
        if args.flag("json") {
            try JSONOutput.document(prepared)
        } else {
            print("background voices ready: \(prepared.windows) speaker vectors from \(prepared.files) recordings")
        }
        return 0
    }
}
