// Transcribes a recording of any length and format, then follows the same file as if it were live.
// usage: transcribe-file RECORDING
import EarshotCore
import EarshotSpeech

let path = CommandLine.arguments.dropFirst().first ?? "meeting.wav"

// One transcriber per process: every task that asks for the same configuration shares the loaded model.
// words: every word with its time (beamSize: 5 and a prompt are there too when accuracy matters more).
let transcriber = try Transcriber.shared(Transcriber.Configuration(model: .tinyEn, words: true))

let transcript = try await transcriber.transcribe(file: path) { fraction in
    print("progress \(Int(fraction * 100))%")
}
for segment in transcript.segments {
    print("[\(segment.start) → \(segment.end)] \(segment.text)")
}
for word in transcript.words {
    print("  \(String(format: "%6.2f–%6.2f", word.start, word.end))\(word.word)")
}

// Live: partial text while someone speaks, a final segment when they pause. A microphone works the same
// way (MicrophoneSource()); here the file is replayed as a stream.
for try await event in transcriber.live(try FileReplaySource(path: path, realtime: false)) {
    switch event {
    case let .partial(text, _, _): print("… \(text)")
    case let .final(segment, _): print("final: \(segment.text)")
    }
}
