import Foundation

/// Extends an existing ONNX model with new nodes, weights, inputs and outputs, replacing its inputs and
/// outputs: how a trained head is appended to the frozen embedding network for export.
public struct ONNXGraphBuilder {
    public enum ElementType: Int { case float = 1, uint8 = 2, int64 = 7 }

    private var nodes = ProtobufWriter()
    private var firstNodes = ProtobufWriter()  // nodes that feed the base graph: they must precede it
    private var initializers = ProtobufWriter()
    private var inputs = ProtobufWriter()
    private var outputs = ProtobufWriter()
    private var metadata = ProtobufWriter()
    private var count = 0

    public init() {}

    /// Adds a node; returns its output name (`name` or a fresh one).
    @discardableResult
    public mutating func node(_ op: String, _ inputs: [String], output: String? = nil, beforeBase: Bool = false,
                              ints: [String: [Int]] = [:], int: [String: Int] = [:]) -> String {
        count += 1
        let out = output ?? "earshot_\(op.lowercased())_\(count)"
        let nodeName = "earshot_node_\(count)"
        func write(_ w: inout ProtobufWriter) { w.message(1) { n in
            for i in inputs { n.string(1, i) }
            n.string(2, out)
            n.string(3, nodeName)
            n.string(4, op)
            for (name, values) in ints.sorted(by: { $0.key < $1.key }) {
                n.message(5) { a in a.string(1, name); for v in values { a.int(8, v) }; a.int(20, 7) }
            }
            for (name, value) in int.sorted(by: { $0.key < $1.key }) {
                n.message(5) { a in a.string(1, name); a.int(3, value); a.int(20, 2) }
            }
        } }
        if beforeBase { write(&firstNodes) } else { write(&nodes) }
        return out
    }

    /// Appends a trained `ClassifierHead` (standardise, layers, ReLU between) to `input` [n, features];
    /// returns the name of its logits [n, classes].
    public mutating func classifierHead(_ head: ClassifierHead, input: String) -> String {
        weight("earshot_mean", shape: [head.inputSize], values: head.mean)
        weight("earshot_scale", shape: [head.inputSize], values: head.scale)
        var x = node("Mul", [node("Sub", [input, "earshot_mean"]), "earshot_scale"])
        for (i, layer) in head.layers.enumerated() {
            weight("earshot_w\(i)", shape: [layer.weights.rows, layer.weights.columns], values: layer.weights.values)
            weight("earshot_b\(i)", shape: [layer.bias.count], values: layer.bias)
            x = node("Add", [node("MatMul", [x, "earshot_w\(i)"]), "earshot_b\(i)"])
            if i < head.layers.count - 1 { x = node("Relu", [x]) }
        }
        return x
    }

    /// `x` divided by its L2 norm along `axis` (+1e-12), as the speaker encoder's recipe normalises vectors.
    public mutating func l2Normalised(_ x: String, axis: Int) -> String {
        let norm = node("ReduceL2", [x], ints: ["axes": [axis]], int: ["keepdims": 1])
        let epsilon = "\(norm)_epsilon"
        scalar(epsilon, 1e-12)
        return node("Div", [x, node("Add", [norm, epsilon])])
    }

    /// A float weight tensor.
    public mutating func weight(_ name: String, shape: [Int], values: [Float]) {
        initializers.message(5) { t in
            for d in shape { t.int(1, d) }
            t.int(2, ElementType.float.rawValue)
            t.string(8, name)
            t.bytes(9, values.withUnsafeBufferPointer { Data(buffer: $0) })  // little-endian raw data
        }
    }

    public mutating func int64s(_ name: String, _ values: [Int64]) {
        initializers.message(5) { t in
            t.int(1, values.count)
            t.int(2, ElementType.int64.rawValue)
            t.string(8, name)
            t.bytes(9, values.withUnsafeBufferPointer { Data(buffer: $0) })
        }
    }

    public mutating func scalar(_ name: String, _ value: Float) {
        initializers.message(5) { t in t.int(2, ElementType.float.rawValue); t.string(8, name); t.bytes(9, withUnsafeBytes(of: value) { Data($0) }) }
    }

    public mutating func input(_ name: String, _ type: ElementType, shape: [Int]) { valueInfo(&inputs, 11, name, type, shape) }
    public mutating func output(_ name: String, _ type: ElementType, shape: [Int]) { valueInfo(&outputs, 12, name, type, shape) }

    public mutating func metadata(_ key: String, _ value: String) {
        metadata.message(14) { e in e.string(1, key); e.string(2, value) }
    }

    private func valueInfo(_ w: inout ProtobufWriter, _ field: Int, _ name: String, _ type: ElementType, _ shape: [Int]) {
        w.message(field) { v in
            v.string(1, name)
            v.message(2) { t in t.message(1) { tt in
                tt.int(1, type.rawValue)
                tt.message(2) { s in for d in shape { s.message(1) { dim in dim.int(1, d) } } }
            } }
        }
    }

    /// The base model with its graph's inputs and outputs replaced by ours and our nodes and weights added.
    public func apply(to model: Data) throws -> Data {
        guard let fields = ProtobufField.fields(of: model), let graphField = fields.first(where: { $0.number == 7 }),
              let graph = graphField.payload, let graphFields = ProtobufField.fields(of: graph) else {
            throw ONNXRuntimeError.failed(code: 0, message: "not an ONNX model", during: "read the base model for export")
        }
        var newGraph = ProtobufWriter()
        newGraph.raw(firstNodes.data)
        for f in graphFields where f.number != 11 && f.number != 12 { newGraph.raw(f.bytes) }
        newGraph.raw(nodes.data)
        newGraph.raw(initializers.data)
        newGraph.raw(inputs.data)
        newGraph.raw(outputs.data)
        var out = ProtobufWriter()
        for f in fields {
            if f.number == 7 { out.bytes(7, newGraph.data) } else { out.raw(f.bytes) }
        }
        out.raw(metadata.data)
        return out.data
    }
}
