import EarshotCore
import Foundation

/// Writes a trained sound classifier as one standalone ONNX model: YAMNet and the trained head in one graph.
///
/// Input `log_mel`: float32 [1, 1, 96, 64], one 0.975 s window as YAMNet's front-end computes it
/// (16 kHz; 25 ms periodic Hann frames every 10 ms; |FFT 512|; 64 HTK mel bands 125–7500 Hz; ln(mel + 0.001)).
/// Output `probabilities`: float32 [1, labels], the head's softmax; labels are in the `labels` metadata (JSON).
/// A recording's result is the mean over its windows, as `earshot sound classify` does.
public enum SoundClassifierExporter {
    public static func export(_ model: SoundClassifierModel, embedder: SoundEmbedder, store: ModelStore = ModelStore(),
                              to path: String) throws {
        let base = try Data(contentsOf: URL(fileURLWithPath: try store.file("models/yamnet/yamnet.onnx", of: "YAMNet")))
        let info = embedder.info
        var g = ONNXGraphBuilder()
        g.input("log_mel", .float, shape: info.input_shape)
        g.scalar("earshot_input_scale", info.input_scale)
        g.scalarByte("earshot_input_zero_point", UInt8(info.input_zero_point))
        g.node("QuantizeLinear", ["log_mel", "earshot_input_scale", "earshot_input_zero_point"], output: info.input, beforeBase: true)

        let head = model.head
        g.int64s("earshot_flat_shape", [1, Int64(head.inputSize)])
        let x = g.classifierHead(head, input: g.node("Reshape", [info.embedding, "earshot_flat_shape"]))
        g.node("Softmax", [x], output: "probabilities", int: ["axis": -1])
        g.output("probabilities", .float, shape: [1, model.labels.count])
        let labels = String(decoding: try JSONEncoder().encode(model.labels), as: UTF8.self)
        g.metadata("labels", labels)
        g.metadata("earshot_embedding_model", model.embeddingModel)
        g.metadata("earshot_input", "log_mel float32 [1,1,96,64]: YAMNet log-mel patch, ln(mel + 0.001), 0.975 s at 16 kHz")
        try g.apply(to: base).write(to: URL(fileURLWithPath: path), options: .atomic)
    }
}
