import EarshotCore
import EarshotNotes
import EarshotVoice
import Foundation

/// `earshot diarize`: who spoke when, voices named by the people enrolled with `earshot voice enroll`.
enum DiarizeCommand {
    static let command = Command(
        name: "diarize",
        abstract: "Who spoke when: speaker turns, named by enrolled voices, as RTTM, JSON or text.",
        usage: "[options] <file>... | -",
        discussion: """
        Finds the speech, gives every second of it a speaker vector (CAM++, every 0.75 s), groups the vectors by
        voice (the number of voices is found unless given) and names each voice that an enrolled profile accepts
        (scored on the enrolment network's d-vectors of its turns); the others are
        SPEAKER_01, SPEAKER_02, … in order of appearance. RTTM (the default) is what diarization scorers read:
        SPEAKER <file id> 1 <start> <duration> <NA> <NA> <speaker> <NA> <NA>. One speaker at a time: overlapping
        speech goes to the voice that dominates it. --reference scores the result against an RTTM file (DER).
        """,
        options: [
            Option(name: "format", value: "fmt", help: "rttm (default), json or txt."),
            Option(name: "json", value: nil, help: "Same as --format json."),
            Option(name: "num-speakers", value: "n", help: "The number of speakers, when known."),
            Option(name: "min-speakers", value: "n", help: "At least this many speakers."),
            Option(name: "max-speakers", value: "n", help: "At most this many speakers (default 20)."),
            Option(name: "no-names", value: nil, help: "Do not name voices by enrolled profiles."),
            Option(name: "threshold", value: "c", help: "Mean cosine under which speech is two voices (default 0.45; higher: more)."),
            Option(name: "name-threshold", value: "c", help: "Cosine of voiceprints from which an enrolled person names a voice (default 0.75; higher: fewer, surer)."),
            Option(name: "reference", value: "rttm", help: "Score against this RTTM: DER with a 0.25 s collar and none."),
            Option(name: "output", value: "dir", help: "Write <name>.<fmt> per input into this folder instead of stdout."),
            Option(name: "no-progress", value: nil, help: "Hide the progress bar shown on a terminal."),
        ],
        examples: [
            "earshot diarize meeting.m4a",
            "earshot diarize --format txt --num-speakers 3 standup.wav",
            "earshot diarize --json --no-names interview.mp3",
            "earshot diarize --reference meeting.rttm meeting.wav",
        ],
        run: run)

    static func run(_ args: ParsedArguments) async throws -> Int32 {
        var output = try DocumentOutput(args)
        let format = try DocumentOutput.format(args, default: DiarizationFormat.rttm, json: .json)
        let limit = 1...Diarizer.maxSpeakers
        var options = Diarizer.Options(numSpeakers: try args.optionalInt("num-speakers", range: limit),
                                       minSpeakers: try args.optionalInt("min-speakers", range: limit),
                                       maxSpeakers: try args.optionalInt("max-speakers", range: limit),
                                       names: !args.flag("no-names"))
        if options.names { options.voices = NotesLibrary.namedVoices() }  // people named in the notes, by voice
        if args.value("threshold") != nil { options.threshold = Float(try args.double("threshold", default: 0.45, range: 0.05...0.95)) }
        if args.value("name-threshold") != nil {
            options.namingCosine = Float(try args.double("name-threshold", default: Double(Diarizer.enrolledCosine), range: 0.05...0.99))
        }
        if options.numSpeakers != nil && (options.minSpeakers != nil || options.maxSpeakers != nil) {
            throw UsageError(message: "--num-speakers fixes the count: leave out --min-speakers and --max-speakers", path: args.path)
        }
        if let low = options.minSpeakers, let high = options.maxSpeakers, low > high {
            throw UsageError(message: "--min-speakers \(low) is more than --max-speakers \(high)", path: args.path)
        }
        let reference = try args.value("reference").map { path -> String in
            do { return try String(contentsOfFile: path, encoding: .utf8) } catch {
                throw UsageError(message: "cannot read the reference \(path): \(error.localizedDescription)", path: args.path)
            }
        }
        let diarizer = try Diarizer()
        var failures = 0
        for path in args.positionals {
            do {
                let bar = ProgressBar(label: (path as NSString).lastPathComponent, total: 1,
                                      enabled: StandardError.isTerminal && !args.flag("no-progress"), after: 1)
                let started = Date()
                let result = try diarizer.diarize(file: path, options: options) { read, total in
                    if let total, total > 0 { bar.update(min(1, read / total)) }
                }
                bar.finish()
                let elapsed = Date().timeIntervalSince(started)
                // RTTM lines name their file: several files' lines are one RTTM document, without banners
                if format == .rttm && output.folder == nil {
                    print(format.render(result), terminator: "")
                } else {
                    try output.emit(format.render(result), for: path, fileExtension: format.rawValue, isJSON: format == .json)
                }
                if let reference {
                    let turns = try DiarizationErrorRate.turns(rttm: reference, file: args.positionals.count > 1 ? DiarizationFormat.fileID(path) : nil)
                    let scored = DiarizationErrorRate(reference: turns, hypothesis: result.turns)
                    let strict = DiarizationErrorRate(reference: turns, hypothesis: result.turns, collar: 0)
                    StandardError.write(String(format: "%@: DER %.2f%% (collar 0.25 s; missed %.2f s, false alarm %.2f s, confusion %.2f s of %.2f s), %.2f%% with no collar\n",
                                               path, scored.rate * 100, scored.missed, scored.falseAlarm, scored.confusion,
                                               scored.referenceSeconds, strict.rate * 100))
                }
                if StandardError.isTerminal {
                    StandardError.write(String(format: "%@: %d speakers in %.1f s of audio, %.1f s\n",
                                               path, result.speakers.count, result.duration, elapsed))
                }
            } catch let error as LocalizedError where error is AudioError || error is DiarizationError {
                failures += 1
                CommandRunner.fail(error)
            }
        }
        output.finish()
        return failures == 0 ? 0 : 1
    }
}
