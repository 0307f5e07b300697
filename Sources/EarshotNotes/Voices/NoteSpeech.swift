import EarshotCore
import EarshotSpeech
import Foundation

/// What one voice of a note says, cut from its recording as enrolment clips: the note's segments labelled with
/// that voice, joined and split into 3–5 clips of equal length (enrolment wants several; a voice heard in one
/// long stretch still gives them).
enum NoteSpeech {
    /// Less is refused (enrolment itself needs 1 s; a voice from a few words is weak, but the user asked for it).
    static let minimumSeconds = 2.0
    static let secondsPerClip = 4.0
    /// Enough for a profile (5 clips of 10 s is what enrolment does best with); a long note gives no more.
    static let maximumSeconds = 50.0

    /// Writes the clips as WAV files into `directory`; returns their paths.
    static func clips(of speaker: String, in note: Note, to directory: URL) throws -> [String] {
        let spans = note.segments.filter { $0.speaker == speaker }.map { ($0.start, $0.end) }
        guard !spans.isEmpty else {
            throw NotesError.unknownSpeaker(note: note.id, speaker: speaker, speakers: note.speakers)
        }
        let audio = try AudioFileLoader().load(path: note.audioPath)
        let rate = Double(audio.sampleRate)
        var speech: [Float] = []
        for (start, end) in spans where Double(speech.count) < maximumSeconds * rate {
            let a = max(0, min(audio.samples.count, Int(start * rate))), b = max(a, min(audio.samples.count, Int(end * rate)))
            speech += audio.samples[a..<min(b, a + Int(maximumSeconds * rate) - speech.count)]
        }
        let seconds = Double(speech.count) / rate
        guard seconds >= minimumSeconds else { throw NotesError.tooLittleSpeech(note: note.id, speaker: speaker, seconds: seconds) }
        let count = max(3, min(5, Int(seconds / secondsPerClip)))
        let length = speech.count / count
        return try (0..<count).map { i in
            let url = directory.appendingPathComponent("\(note.id)-\(i + 1).wav")
            try WAVWriter.pcm16(Array(speech[(i * length)..<((i + 1) * length)]), sampleRate: audio.sampleRate).write(to: url)
            return url.path
        }
    }
}
