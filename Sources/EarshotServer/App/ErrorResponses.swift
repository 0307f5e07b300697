import EarshotCore
import EarshotNotes
import EarshotSound
import EarshotSpeech
import EarshotVoice
import Foundation

/// Library errors as HTTP answers: what the client sent is wrong (4xx) or the server cannot do it (5xx).
/// Temporary upload paths in messages become the client's own file name.
enum ErrorResponses {
    static func response(for error: Error, uploads: [UploadedFile] = []) -> HTTPResponse {
        if let http = error as? HTTPError { return http.response }
        var message = self.message(for: error)
        for upload in uploads { message = message.replacingOccurrences(of: upload.path, with: upload.filename) }
        return .error(status(of: error), message)
    }

    /// What an error says to a client (an HTTP error's message, a library error's description).
    static func message(for error: Error) -> String {
        if let http = error as? HTTPError { return http.message }
        return (error as? LocalizedError)?.errorDescription ?? "\(error)"
    }

    static func status(of error: Error) -> Int {
        switch error {
        case is AudioError, is SpeechError, is AudioSourceError: return 400
        case let error as NotesError:
            switch error {
            case .unknownNote, .noSuchTag, .unknownPerson, .unknownAction, .unknownSegment, .unknownTemplate: return 404
            case .storage, .storeTooNew, .needsRepair: return 503
            case .notTranscribed: return 409
            default: return 400
            }
        case let error as VoiceError:
            switch error {
            case .unknownProfile, .noProfiles: return 404
            case .noBackground: return 503
            case .badProfile: return 500
            default: return 400
            }
        case let error as SoundError:
            if case .badDataset = error { return 400 }
            return 500
        case is ModelError: return 503
        default: return 500
        }
    }
}
