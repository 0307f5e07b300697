import EarshotCore
import Foundation

// The command tree: a thin layer over the library modules.
let root = Command(
    name: "earshot",
    abstract: "On-device audio intelligence: transcribe speech, classify sounds, recognise voices and keep voice notes, offline on the CPU.",
    examples: [
        "earshot demo",
        "earshot transcribe meeting.m4a --format srt --output subs/",
        "arecord -q -t raw -f S16_LE -r 16000 -c 1 - | earshot listen -",
    ],
    subcommands: [TranscribeCommand.command, DiarizeCommand.command, ListenCommand.command, SoundCommand.command, VoiceCommand.command, NotesCommand.command, PeopleCommand.command,
                  ServeCommand.command, BatchCommand.command, ModelsCommand.command, DoctorCommand.command, ScoreCommand.command,
                  DemoCommand.command])

let status = await CommandRunner.run(root, arguments: Array(CommandLine.arguments.dropFirst()))
exit(status)
