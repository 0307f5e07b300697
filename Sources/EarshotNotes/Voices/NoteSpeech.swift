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

    /// Writes the clips as WAV files into `directory`; returns their paths. `speaker` nil: every segment, the voice
    /// of a note of one voice (whose segments carry no label).
    static func clips(of speaker: String?, in note: Note, to directory: URL) throws -> [String] {
        let spans = note.segments.filter { speaker == nil || $0.speaker == speaker }.map { ($0.start, $0.end) }
        guard !spans.isEmpty else {
            throw NotesError.unknownSpeaker(note: note.id, speaker: speaker ?? "", speakers: note.speakers)
        }
        // the recording is read a block at a time and only the voice's spans kept, so a long note costs no memory
        let stream = try AudioFileStream(path: note.audioPath, sampleRate: SpeakerEncoder.sampleRate)
        let rate = Double(stream.sampleRate), most = Int(maximumSeconds * rate)
        let ranges = spans.map { Int($0.0 * rate)..<max(Int($0.0 * rate), Int($0.1 * rate)) }
        let end = ranges.map(\.upperBound).max()!
        var speech: [Float] = [], position = 0
        while speech.count < most, position < end, let block = try stream.read() {
            let here = position..<(position + block.count)
            for range in ranges where range.overlaps(here) {
                let part = range.clamped(to: here)
                speech += block[(part.lowerBound - position)..<(part.upperBound - position)].prefix(most - speech.count)
            }
            position += block.count
        }
        let seconds = Double(speech.count) / rate
        guard seconds >= minimumSeconds else { throw NotesError.tooLittleSpeech(note: note.id, speaker: speaker ?? "its voice", seconds: seconds) }
        let count = max(3, min(5, Int(seconds / secondsPerClip)))
        let length = speech.count / count
        return try (0..<count).map { i in
            let url = directory.appendingPathComponent("\(note.id)-\(i + 1).wav")
            try WAVWriter.pcm16(Array(speech[(i * length)..<((i + 1) * length)]), sampleRate: stream.sampleRate).write(to: url)
            return url.path
        }
    }
}
