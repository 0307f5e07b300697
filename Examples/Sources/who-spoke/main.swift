// Who said what: a recording transcribed word by word, its voices found, and every segment labelled with
// the person speaking (an enrolled name, or SPEAKER_01, SPEAKER_02, ... for voices nobody enrolled).
// usage: who-spoke RECORDING [NUMBER-OF-SPEAKERS]
import EarshotSpeech
import EarshotVoice

let arguments = Array(CommandLine.arguments.dropFirst())
let path = arguments.first ?? "meeting.wav"

// Word times let a segment that changes speaker be split where it does.
let transcriber = try Transcriber.shared(Transcriber.Configuration(model: .tinyEn, words: true))
let transcript = try await transcriber.transcribe(file: path)

// The number of voices is found unless given; profiles enrolled with VoiceID (or `earshot voice enroll`)
// name the voices they accept.
var options = Diarizer.Options()
options.numSpeakers = arguments.dropFirst().first.flatMap { Int($0) }
let voices = try Diarizer().diarize(file: path, options: options)
for speaker in voices.speakers {
    print("voice \(speaker.label): \(speaker.seconds) s\(speaker.enrolled ? " (enrolled)" : "")")
}
for segment in transcript.labelled(by: voices).segments {
    print("\(segment.speaker ?? "?"): \(segment.text)")
}
