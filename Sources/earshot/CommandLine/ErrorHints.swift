import EarshotCore
import EarshotNotes
import EarshotServer
import EarshotVoice
import Foundation

/// What to do next after a library error: the CLI's own commands where it knows one, otherwise the
/// library's recovery suggestion. Library errors never name CLI commands; this is where they are named.
enum ErrorHints {
    static func hint(for error: Error) -> String? {
        if case AudioSourceError.noMicrophone = error {
            return "pipe audio in instead, e.g.: arecord -q -t raw -f S16_LE -r 16000 -c 1 - | earshot listen -"
        }
        if case NotesError.unknownNote = error { return "earshot notes list shows the ids" }
        if case ServerError.cannotListen = error { return "choose a free port with --port (0 picks one), or an address of this machine with --host" }
        if case NotesError.needsRepair = error {
            return "run `earshot notes repair` to rebuild the notes from the recordings (a damaged database is kept aside)"
        }
        if let error = error as? VoiceError {
            switch error {
            case let .unknownProfile(_, known) where known.isEmpty: return "enrol someone first: earshot voice enroll NAME FILE..."
            case .noProfiles: return "enrol someone first: earshot voice enroll NAME FILE..."
            case .unknownProfile: return "earshot voice list shows who is enrolled"
            case let .badProfile(path, _):
                let name = ((path as NSString).lastPathComponent as NSString).deletingPathExtension
                return "remove it with `earshot voice remove \(name)` and enrol again"
            case .noBackground: return "run `\(ModelStore.installCommand)` in the Earshot source folder, or pass --background DIR"
            default: break
            }
        }
        return (error as? LocalizedError)?.recoverySuggestion
    }

    /// The error's sentence and, when there is one, what to do about it.
    static func message(for error: Error) -> String {
        [error.localizedDescription, hint(for: error)].compactMap { $0 }.joined(separator: "; ")
    }
}
