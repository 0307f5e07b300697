import Foundation

/// A small trainable classifier over frozen embeddings: standardise, optionally one hidden ReLU layer,
/// then softmax. Shared by the sound classifier and the voice enrolment.
public struct ClassifierHead: Sendable, Codable, Equatable {
    public struct Layer: Sendable, Codable, Equatable {
        /// inputs × outputs
        public var weights: Matrix
        public var bias: [Float]
    }

    public var mean: [Float]
    public var scale: [Float]  // 1 / standard deviation
    public var layers: [Layer]  // hidden layers use ReLU; the last gives logits

    public var inputSize: Int { mean.count }
    public var classCount: Int { layers.last?.bias.count ?? 0 }

    /// A fresh head with He-initialised weights (deterministic for a given seed).
    public init(inputSize: Int, classes: Int, hidden: Int?, mean: [Float], std: [Float], seed: UInt64 = 42) {
        self.mean = mean
        // A feature nearly constant in a small training set must not be blown up: its variance is floored
        // at a tenth of the average variance (the int8 embeddings have many such features).
        let floor = 0.1 * std.map { $0 * $0 }.reduce(0, +) / Float(max(1, std.count)) + 1e-12
        scale = std.map { 1 / ($0 * $0 + floor).squareRoot() }
        var rng = SplitMix64(seed: seed)
        let sizes = [inputSize] + (hidden.map { [$0] } ?? []) + [classes]
        layers = zip(sizes, sizes.dropFirst()).map { inputs, outputs in
            let sd = Float((2 / Double(inputs)).squareRoot())
            let w = (0..<(inputs * outputs)).map { _ in rng.nextGaussian() * sd * (outputs == classes ? 0.1 : 1) }
            return Layer(weights: Matrix(rows: inputs, columns: outputs, values: w), bias: [Float](repeating: 0, count: outputs))
        }
    }

    /// Standardised inputs.
    func standardise(_ x: Matrix) -> Matrix {
        var out = x
        let columns = x.columns
        mean.withUnsafeBufferPointer { mean in
            scale.withUnsafeBufferPointer { scale in
                out.values.withUnsafeMutableBufferPointer { v in
                    for r in 0..<x.rows { for c in 0..<columns { v[r * columns + c] = (v[r * columns + c] - mean[c]) * scale[c] } }
                }
            }
        }
        return out
    }

    /// Activations of every layer (the input, each hidden output after ReLU, and the logits).
    func forward(_ x: Matrix) -> [Matrix] { activations(standardised: standardise(x)) }

    /// `forward` of inputs already standardised: training standardises its set once, as mean and scale stay fixed
    /// while the layers learn (each step used to standardise the whole set again).
    func activations(standardised x: Matrix) -> [Matrix] {
        var activations = [x]
        for (i, layer) in layers.enumerated() {
            var z = activations.last!.multiplied(by: layer.weights)
            z.addRowVector(layer.bias)
            if i < layers.count - 1 { z.values = z.values.map { max(0, $0) } }
            activations.append(z)
        }
        return activations
    }

    /// Class probabilities, one row per input row.
    public func probabilities(_ x: Matrix) -> Matrix { Self.softmax(forward(x).last!) }

    public func probabilities(_ embedding: [Float]) -> [Float] {
        probabilities(Matrix(rows: 1, columns: embedding.count, values: embedding)).values
    }

    static func softmax(_ logits: Matrix) -> Matrix {
        var p = logits
        for r in 0..<p.rows {
            let base = r * p.columns
            var top = -Float.infinity
            for c in 0..<p.columns { top = max(top, p.values[base + c]) }
            var sum: Float = 0
            for c in 0..<p.columns { let e = exp(p.values[base + c] - top); p.values[base + c] = e; sum += e }
            for c in 0..<p.columns { p.values[base + c] /= sum }
        }
        return p
    }
}

/// Small deterministic random numbers for initialisation and shuffling.
public struct SplitMix64: RandomNumberGenerator, Sendable {
    private var state: UInt64
    public init(seed: UInt64) { state = seed }
    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
    /// A standard normal draw (Box–Muller).
    public mutating func nextGaussian() -> Float {
        let u1 = max(Double(next() >> 11) / Double(1 << 53), 1e-12), u2 = Double(next() >> 11) / Double(1 << 53)
        return Float((-2 * log(u1)).squareRoot() * cos(2 * .pi * u2))
    }
}

extension ClassifierHead {
    /// What is wrong with a head read from a file, or nil: every shape must chain from `inputSize` features to
    /// `classes` outputs and every number must be finite (a short layer would read out of bounds, a NaN
    /// would make every answer NaN).
    public func problem(inputSize expected: Int, classes: Int) -> String? {
        guard mean.count == expected, scale.count == expected else {
            return "its standardisation has \(mean.count) means and \(scale.count) scales for \(expected) features"
        }
        guard !layers.isEmpty else { return "it has no layers" }
        var inputs = expected
        for (i, layer) in layers.enumerated() {
            guard layer.weights.rows == inputs, layer.bias.count == layer.weights.columns, layer.weights.columns > 0 else {
                return "layer \(i + 1) is \(layer.weights.rows)×\(layer.weights.columns) with \(layer.bias.count) biases after \(inputs) inputs"
            }
            inputs = layer.weights.columns
        }
        guard inputs == classes else { return "it gives \(inputs) outputs for \(classes) classes" }
        let finite = (mean + scale).allSatisfy(\.isFinite) && layers.allSatisfy { $0.weights.values.allSatisfy(\.isFinite) && $0.bias.allSatisfy(\.isFinite) }
        guard finite else { return "it holds numbers that are not finite (NaN or infinity)" }
        // finite numbers can still overflow (3e38 × 3e38): run the head on probe inputs — the mean itself and
        // inputs three standard deviations off it — and check every activation stays finite
        let deviation = scale.map { $0 > 0 ? 3 / $0 : 0 }
        let probes = [mean, zip(mean, deviation).map(+), zip(mean, deviation).map(-), mean.indices.map { Float(($0 % 7) - 3) }]
        let input = Matrix(rows: probes.count, columns: expected, values: probes.flatMap { $0 })
        guard forward(input).allSatisfy({ $0.values.allSatisfy(\.isFinite) }) else {
            return "its numbers overflow: a probe input gives activations that are not finite"
        }
        return nil
    }
}
