import EarshotCore
import EarshotNotes
import Foundation

enum NotesRepairCommand {
    static let command = Command(
        name: "repair",
        abstract: "Rebuild the notes from the stored recordings when the database is missing, empty or damaged.",
        usage: "[--json]",
        discussion: """
        The damaged database is moved aside (notes.db.damaged-DATE), never deleted. Every note it can still
        give is carried over with its id, title, summary, action items, transcript and tags (past damaged
        pages, row by row). Every other readable recording becomes a note again, dated by its file and tagged
        'recovered', with its stages queued: run `earshot notes process` to transcribe, title and summarise
        them (and to redo meaning search's index for the carried ones).
        """,
        options: [Option(name: "json", value: nil, help: "Print JSON.")],
        examples: ["earshot notes repair && earshot notes process"],
        run: run)

    static func run(_ args: ParsedArguments) async throws -> Int32 {
        let repair = try NotesLibrary.repair()
        if args.flag("json") {
            try JSONOutput.document(repair)
        } else {
            if let aside = repair.damagedDatabase { print("moved the damaged database to \(aside)") }
            print("carried \(repair.carried) note(s) over from the damaged database")
            print("recovered \(repair.recovered) note(s) from their recordings; run `earshot notes process` to transcribe them")
            for file in repair.skipped { StandardError.write("skipped \(file): not readable audio\n") }
        }
        return 0
    }
}
