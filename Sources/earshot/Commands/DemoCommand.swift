import EarshotCore
import EarshotSpeech
import Foundation

/// The README's first command: speech synthesised on the spot, transcribed, scored and timed.
enum DemoCommand {
    static let passage = """
        This program listens on your own computer. It turns recordings into text without sending a single \
        word to the network. Long meetings are cut into short pieces where people pause, and every piece \
        keeps its time, so subtitles line up with the voice. The same engine can follow a live microphone \
        and show words while you are still speaking.
        """

    static let command = Command(
        name: "demo",
        abstract: "Synthesise a short English passage with espeak-ng, transcribe it, and report accuracy and speed.",
        options: SpeechOptions.recordings + [Option(name: "json", value: nil, help: "Print the transcript as JSON.")],
        examples: ["earshot demo", "earshot demo --model base"],
        run: run)

    /// Speaks each sentence separately and joins them with a second of silence, as a speaker pauses,
    /// so the recording has several segments.
    static func synthesise(_ text: String, espeak: String) throws -> AudioBuffer {
        let wav = FileManager.default.temporaryDirectory.appendingPathComponent("earshot-demo-\(getpid()).wav")
        defer { try? FileManager.default.removeItem(at: wav) }
        var samples: [Float] = []
        for sentence in text.split(separator: ".").map({ $0.trimmingCharacters(in: .whitespaces) }) where !sentence.isEmpty {
            let synth = Process()
            synth.executableURL = URL(fileURLWithPath: espeak)
            synth.arguments = ["-v", "en-us", "-s", "150", "-w", wav.path, sentence + "."]
            try synth.run()
            synth.waitUntilExit()
            samples += try AudioFileLoader().load(path: wav.path).samples + [Float](repeating: 0, count: 16_000)
        }
        return AudioBuffer(samples: samples, sampleRate: 16_000)
    }

    static func run(_ args: ParsedArguments) async throws -> Int32 {
        let speech = try SpeechOptions.read(args)
        guard let espeak = findExecutable("espeak-ng") else {
            throw AudioError.missingTool(path: "demo", tool: "espeak-ng", install: "make setup")
        }
        let audio = try synthesise(passage, espeak: espeak)
        let loadStart = Date()
        let transcriber = try Transcriber(speech)
        let loadTime = Date().timeIntervalSince(loadStart)
        let start = Date()
        let transcript = try await transcriber.transcribe(audio, source: "espeak-ng passage")
        let elapsed = Date().timeIntervalSince(start)
        if args.flag("json") {
            print(JSONTranscriptWriter().render(transcript), terminator: "")
            return 0
        }
        let wer = WordErrorRate.rate(reference: passage, hypothesis: transcript.text)
        print("Passage read by espeak-ng (\(String(format: "%.1f", audio.duration)) s), transcribed by Whisper \(speech.model.rawValue):\n")
        for s in transcript.segments {
            print(String(format: "  [%6.2f → %6.2f]  ", s.start, s.end) + s.text)
        }
        print(String(format: "\nword error rate %.1f%% against the passage (a synthetic voice is harder than a person)", wer * 100))
        print(String(format: "model load %.2f s; transcription %.2f s for %.1f s of audio = %.1f× faster than real time",
                     loadTime, elapsed, audio.duration, audio.duration / max(elapsed, 1e-6)))
        return 0
    }
}
