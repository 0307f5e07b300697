// Saves a voice note, lets the background work transcribe, title and summarise it, then searches the
// notes by their words and by meaning.
// usage: search-notes RECORDING QUERY [NOTES-FOLDER]
import EarshotNotes
import Foundation

let arguments = Array(CommandLine.arguments.dropFirst())
let (path, query) = (arguments.first ?? "memo.wav", arguments.dropFirst().first ?? "budget")
let folder = arguments.count > 2 ? URL(fileURLWithPath: arguments[2]) : NotesStore.defaultDirectory()

var options = NotesPipeline.Options()
options.languageModel = .small  // the 135M model: quick; .standard writes better summaries
let notes = try NotesLibrary(directory: folder, options: options)

let note = try await notes.add(file: path, tags: ["example"])  // saved at once
try await notes.process(note: note.id) { event in print(event) }
let ready = try await notes.note(note.id)
print("\(ready.status): \(ready.title)\n\(ready.summary)")

for hit in try await notes.search(query) {
    print("\(hit.id) \(hit.title): \(hit.snippet)")
}
