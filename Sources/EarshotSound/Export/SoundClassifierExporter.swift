import EarshotCore
import Foundation

/// Writes a trained sound classifier as one standalone ONNX model: its frozen network and the trained head
/// in one graph. A recording's result is the mean over its windows, as `earshot sound classify` does.
///
/// YAMNet features — input `log_mel`: float32 [1, 1, 96, 64], one 0.975 s window as YAMNet's front-end
/// computes it (16 kHz; 25 ms periodic Hann frames every 10 ms; |FFT 512|; 64 HTK mel bands 125–7500 Hz;
/// ln(mel + 0.001)).
///
/// Speaker features — input `mel_window`: float32 [n, 80, 40], the n encoder windows (80 log-mel frames
/// every 40) inside one analysis window (librosa melspectrogram: n_fft 512, periodic Hamming window of 400,
/// hop 160, no centring, power 2, 40 Slaney mel bands 0–8000 Hz; then log10(S + 1e-10)), computed from the whole
/// recording as Earshot does: the samples first scaled so that the 90th percentile of their 512-sample frames' RMS
/// is 0.1 (gain kept within 0.01–100), and each mel band's noise floor removed (P = 10^x: P' = max(P − f,
/// 0.1·P) with f the band's 10th-percentile P over the recording, then log10(P' + 1e-10); recordings under 10
/// frames are left as they are). Earshot weighs a recording's windows by their speech (silero VAD's mean frame
/// probability) where an equal mean is the simplest use of this graph.
///
/// Output `probabilities`: float32 [1, labels], the head's softmax; labels are in the `labels` metadata (JSON).
public enum SoundClassifierExporter {
    public static func export(_ model: SoundClassifierModel, embedder: any WindowEmbedder, store: ModelStore = ModelStore(),
                              to path: String) throws {
        try model.checkCompatible(with: embedder, path: path)
        var g = ONNXGraphBuilder()
        let base: Data
        let embedding: String
        let probe: [String: Tensor]
        switch embedder {
        case let yamnet as SoundEmbedder:
            base = try Data(contentsOf: URL(fileURLWithPath: try store.file("models/yamnet/yamnet.onnx", of: "YAMNet")))
            g.input(yamnet.info.input, .float, shape: yamnet.info.inputShape)  // the float network's own input: log_mel
            g.metadata("earshot_input", "log_mel float32 [1,1,96,64]: YAMNet log-mel patch, ln(mel + 0.001), 0.975 s at 16 kHz")
            embedding = yamnet.info.embedding
            probe = [yamnet.info.input: Tensor(shape: yamnet.info.inputShape, floats: [Float](repeating: -6.9, count: yamnet.info.inputShape.reduce(1, *)))]
        case let speaker as SpeakerWindowEmbedder:
            base = try Data(contentsOf: URL(fileURLWithPath: speaker.encoder.modelPath))
            g.input("mel_window", .float, shape: [-1, SpeakerEncoder.windowFrames, speaker.encoder.frontEnd.settings.melBands])
            g.metadata("earshot_input", "mel_window float32 [n,80,40]: the log10 mel windows of 0.8 s every 0.4 s inside one "
                       + "analysis window, 16 kHz; the recording first scaled so that the 90th percentile of its 512-sample frames' "
                       + "RMS is 0.1 (gain 0.01-100), then each band's 10th-percentile power P10 over the recording taken out: "
                       + "log10(max(P - P10, 0.1 P) + 1e-10) (recordings under 10 frames as they are)")
            // each encoder window normalised, averaged over the analysis window, normalised again
            let mean = g.node("ReduceMean", [g.l2Normalised("embedding", axis: 1)], ints: ["axes": [0]], int: ["keepdims": 1])
            embedding = g.l2Normalised(mean, axis: 1)
            let bands = speaker.encoder.frontEnd.settings.melBands
            probe = ["mel_window": Tensor(shape: [1, SpeakerEncoder.windowFrames, bands],
                                          floats: [Float](repeating: -10, count: SpeakerEncoder.windowFrames * bands))]
        default:
            throw SoundError.badModel(path: path, problem: "no exporter for \(embedder.features.rawValue) features")
        }
        let head = model.head
        g.int64s("earshot_flat_shape", [1, Int64(head.inputSize)])
        let x = g.classifierHead(head, input: g.node("Reshape", [embedding, "earshot_flat_shape"]))
        g.node("Softmax", [x], output: "probabilities", int: ["axis": -1])
        g.output("probabilities", .float, shape: [1, model.labels.count])
        g.metadata("labels", String(decoding: try JSONEncoder().encode(model.labels), as: UTF8.self))
        g.metadata("earshot_embedding_model", model.embeddingModel)
        g.metadata("earshot_features", model.features.rawValue)
        try CheckedExport.write(try g.apply(to: base), to: path, probe: probe, output: "probabilities", count: model.labels.count)
    }
}
