import EarshotCore
import Foundation

/// Writes an enrolled person's model as one standalone ONNX inference model: the frozen speaker network
/// and the trained head in one graph.
///
/// Input `mel_window`: float32 [n, 80, 40], n windows of 80 log-mel frames taken every 40 frames from
/// 16 kHz speech (librosa melspectrogram: n_fft 512, periodic Hamming window of 400, hop 160, no centring,
/// power 2, 40 Slaney mel bands 0–8000 Hz; then log10(S + 1e-10)).
/// Output `probability`: float32 [1], the mean over windows of the head's probability that the speech is
/// this person; accept at the `threshold` metadata (0.80 by default).
public enum VoiceProfileExporter {
    public static func export(_ profile: VoiceProfile, encoder: SpeakerEncoder, to path: String) throws {
        let base = try Data(contentsOf: URL(fileURLWithPath: encoder.modelPath))
        var g = ONNXGraphBuilder()
        g.input("mel_window", .float, shape: [-1, SpeakerEncoder.windowFrames, 40])
        let head = profile.head
        // L2-normalise each window's vector, as the encoder's recipe does
        let x = g.classifierHead(head, input: g.l2Normalised("embedding", axis: 1))
        let probabilities = g.node("Softmax", [x], int: ["axis": -1])  // [n, 2]
        let mean = g.node("ReduceMean", [probabilities], ints: ["axes": [0]], int: ["keepdims": 0])  // [2]
        g.int64s("earshot_one", [1])
        g.int64s("earshot_two", [2])
        g.node("Slice", [mean, "earshot_one", "earshot_two"], output: "probability")
        g.output("probability", .float, shape: [1])
        g.metadata("name", profile.name)
        g.metadata("threshold", String(profile.threshold))
        g.metadata("earshot_input", "mel_window float32 [n,80,40]: log10 mel windows of 0.8 s every 0.4 s at 16 kHz")
        let probe = Tensor(shape: [1, SpeakerEncoder.windowFrames, 40], floats: [Float](repeating: -10, count: SpeakerEncoder.windowFrames * 40))
        try CheckedExport.write(try g.apply(to: base), to: path, probe: ["mel_window": probe], output: "probability", count: 1)
    }
}
