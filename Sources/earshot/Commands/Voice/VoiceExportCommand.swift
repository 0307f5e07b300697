import EarshotCore
import EarshotVoice
import Foundation

enum VoiceExportCommand {
    static let command = Command(
        name: "export",
        abstract: "Write an enrolled person's model as one standalone ONNX model (speaker network + trained head).",
        usage: "<name> -o <name.onnx>",
        discussion: """
        Input 'mel_window': float32 [n,80,40], n windows of 80 log-mel frames every 40 frames of 16 kHz speech
        (n_fft 512, periodic Hamming window 400, hop 160, no centring, power spectrum, 40 Slaney mel bands
        0–8000 Hz, log10(S + 1e-10)). Output 'probability': float32 [1]; accept at the 'threshold' metadata.
        """,
        options: [Option(name: "output", value: "file", help: "Where to write the ONNX model.", short: "o")],
        examples: ["earshot voice export alice -o alice.onnx"],
        run: run)

    static func run(_ args: ParsedArguments) async throws -> Int32 {
        guard args.positionals.count == 1, let output = args.value("output") else {
            throw UsageError(message: "give a name and -o NAME.onnx", path: args.path)
        }
        let profile = try await VoiceID().export(args.positionals[0], to: output)
        print("wrote \(output): input mel_window [n,80,40], output probability [1], threshold \(profile.threshold)")
        return 0
    }
}
