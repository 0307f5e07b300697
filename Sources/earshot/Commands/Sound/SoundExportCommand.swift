import EarshotCore
import EarshotSound
import Foundation

enum SoundExportCommand {
    static let command = Command(
        name: "export",
        abstract: "Write a trained classifier as one standalone ONNX model (its frozen network and the head in one graph).",
        usage: "<name.model> -o <name.onnx>",
        discussion: """
        The model file says which network it was trained on. YAMNet features: input 'log_mel' float32
        [1,1,96,64], one 0.975 s window at 16 kHz as YAMNet's front-end computes it (25 ms periodic Hann
        frames every 10 ms, |FFT 512|, 64 HTK mel bands 125–7500 Hz, ln(mel + 0.001)). Speaker features:
        input 'mel_window' float32 [n,80,40], the encoder windows (0.8 s every 0.4 s) inside one analysis
        window (periodic Hamming 400 in a 512 FFT, hop 160, power, 40 Slaney mel bands, log10(S + 1e-10)).
        Output 'probabilities': float32 [1, labels]; the labels are in the model's 'labels' metadata (JSON).
        Average the windows of a recording for its result.
        """,
        options: [Option(name: "output", value: "file", help: "Where to write the ONNX model.", short: "o")],
        examples: ["earshot sound export animals.model -o animals.onnx"],
        run: run)

    static func run(_ args: ParsedArguments) async throws -> Int32 {
        guard args.positionals.count == 1, let output = args.value("output") else {
            throw UsageError(message: "give a model and -o NAME.onnx", path: args.path)
        }
        let classifier = try SoundClassifier.load(from: args.positionals[0])
        let (model, embedder) = (classifier.model!, classifier.embedder)
        try SoundClassifierExporter.export(model, embedder: embedder, to: output)
        let input = model.features == .yamnet ? "log_mel [1,1,96,64]" : "mel_window [n,80,40]"
        print("wrote \(output): input \(input), output probabilities [1,\(model.labels.count)]")
        return 0
    }
}
