import Foundation

/// Trains a `ClassifierHead` with AdamW on class-weighted cross-entropy, with early stopping on a
/// validation set when one is given. The one training loop of the project (sound and voice heads).
public struct HeadTrainer: Sendable {
    public struct Options: Sendable, Codable, Equatable {
        public var hidden: Int? = nil
        public var learningRate: Float = 1e-3
        public var weightDecay: Float = 1e-2
        /// Largest mini-batch; small sets use smaller ones so every epoch takes several steps.
        public var batchSize = 64
        /// Every step sees the whole set instead. For a linear head on a few thousand rows this converges to
        /// the regularised optimum; mini-batches with a handful of heavily weighted positives (5 enrolment
        /// windows among 1,000 others) leave it noisy (FSDD speaker EER 21% vs 9%, BENCHMARKS.md).
        public var fullBatch = false
        public var maxEpochs = 100
        /// Stop when validation loss has not improved for this many epochs (and keep the best weights).
        public var patience = 10
        /// Weight each class by the inverse of its frequency, so rare classes count as much.
        public var balanceClasses = true
        public var seed: UInt64 = 42
        public init() {}

        /// Options are stored in model files: a field added later takes its default when an older file lacks it.
        public init(from decoder: Decoder) throws {
            let c = try decoder.container(keyedBy: CodingKeys.self)
            let d = Options()
            hidden = try c.decodeIfPresent(Int.self, forKey: .hidden) ?? d.hidden
            learningRate = try c.decodeIfPresent(Float.self, forKey: .learningRate) ?? d.learningRate
            weightDecay = try c.decodeIfPresent(Float.self, forKey: .weightDecay) ?? d.weightDecay
            batchSize = try c.decodeIfPresent(Int.self, forKey: .batchSize) ?? d.batchSize
            fullBatch = try c.decodeIfPresent(Bool.self, forKey: .fullBatch) ?? d.fullBatch
            maxEpochs = try c.decodeIfPresent(Int.self, forKey: .maxEpochs) ?? d.maxEpochs
            patience = try c.decodeIfPresent(Int.self, forKey: .patience) ?? d.patience
            balanceClasses = try c.decodeIfPresent(Bool.self, forKey: .balanceClasses) ?? d.balanceClasses
            seed = try c.decodeIfPresent(UInt64.self, forKey: .seed) ?? d.seed
        }
    }

    public struct Epoch: Sendable, Codable, Equatable {
        public var epoch: Int
        public var trainLoss: Float
        public var trainAccuracy: Float
        public var validationLoss: Float?
        public var validationAccuracy: Float?
    }

    public var options: Options
    public init(options: Options = Options()) { self.options = options }

    /// - Parameters:
    ///   - x: one row per example; y: class index per row.
    ///   - onEpoch: progress after each epoch.
    public func train(x: Matrix, y: [Int], classes: Int, validation: (x: Matrix, y: [Int])? = nil,
                      onEpoch: ((Epoch) -> Void)? = nil) -> (head: ClassifierHead, history: [Epoch]) {
        let (mean, std) = Self.meanAndStd(x)
        var head = ClassifierHead(inputSize: x.columns, classes: classes, hidden: options.hidden, mean: mean, std: std,
                                  seed: options.seed)
        var counts = [Float](repeating: 0, count: classes)
        for label in y { counts[label] += 1 }
        let classWeights = options.balanceClasses
            ? counts.map { $0 > 0 ? Float(y.count) / (Float(classes) * $0) : 0 } : [Float](repeating: 1, count: classes)
        var optimizer = AdamW(shapes: head.layers.flatMap { [$0.weights.values.count, $0.bias.count] },
                              learningRate: options.learningRate, weightDecay: options.weightDecay)
        // mean and scale are fixed from here on: the sets are standardised once
        let x = head.standardise(x)
        let validation = validation.map { (x: head.standardise($0.x), y: $0.y) }
        var rng = SplitMix64(seed: options.seed &+ 1)
        var order = Array(0..<x.rows)
        let batchSize = options.fullBatch ? max(1, x.rows) : max(4, min(options.batchSize, x.rows / 8))
        var history: [Epoch] = []
        var best = (loss: Float.infinity, head: head)
        var sinceBest = 0
        for epoch in 1...options.maxEpochs {
            order.shuffle(using: &rng)
            for start in stride(from: 0, to: order.count, by: batchSize) {
                let batch = Array(order[start..<min(order.count, start + batchSize)])
                let grads = Self.gradients(head, x.rows(batch), batch.map { y[$0] }, classWeights)
                var params = head.layers.flatMap { [$0.weights.values, $0.bias] }
                optimizer.step(&params, grads, decayMask: head.layers.flatMap { _ in [true, false] })
                for i in head.layers.indices {
                    head.layers[i].weights.values = params[2 * i]
                    head.layers[i].bias = params[2 * i + 1]
                }
            }
            let (trainLoss, trainAccuracy) = Self.evaluate(head, standardised: x, y, classWeights)
            var record = Epoch(epoch: epoch, trainLoss: trainLoss, trainAccuracy: trainAccuracy)
            if let validation {
                let (loss, accuracy) = Self.evaluate(head, standardised: validation.x, validation.y, nil)
                record.validationLoss = loss
                record.validationAccuracy = accuracy
                if loss < best.loss - 1e-4 { best = (loss, head); sinceBest = 0 } else { sinceBest += 1 }
            }
            history.append(record)
            onEpoch?(record)
            if validation != nil && sinceBest >= options.patience { break }
        }
        return (validation != nil ? best.head : head, history)
    }

    /// Mean (optionally class-weighted) cross-entropy and accuracy.
    public static func evaluate(_ head: ClassifierHead, _ x: Matrix, _ y: [Int], _ weights: [Float]?) -> (Float, Float) {
        evaluate(head, standardised: head.standardise(x), y, weights)
    }

    static func evaluate(_ head: ClassifierHead, standardised x: Matrix, _ y: [Int], _ weights: [Float]?) -> (Float, Float) {
        guard x.rows > 0 else { return (0, 0) }
        let p = ClassifierHead.softmax(head.activations(standardised: x).last!)
        var loss: Float = 0, total: Float = 0, correct = 0
        for r in 0..<p.rows {
            let w = weights?[y[r]] ?? 1
            loss -= w * log(max(p[r, y[r]], 1e-12))
            total += w
            let row = p.row(r)
            if row.firstIndex(of: row.max()!)! - row.startIndex == y[r] { correct += 1 }
        }
        return (loss / total, Float(correct) / Float(p.rows))
    }

    /// Gradients of the weighted mean cross-entropy for each layer's weights and bias, in order (`x` standardised).
    static func gradients(_ head: ClassifierHead, _ x: Matrix, _ y: [Int], _ classWeights: [Float]) -> [[Float]] {
        let activations = head.activations(standardised: x)
        var delta = ClassifierHead.softmax(activations.last!)
        var total: Float = 0
        for r in 0..<delta.rows { total += classWeights[y[r]] }
        for r in 0..<delta.rows {
            let w = classWeights[y[r]] / total
            delta[r, y[r]] -= 1
            for c in 0..<delta.columns { delta[r, c] *= w }
        }
        var grads: [[Float]] = []
        for i in stride(from: head.layers.count - 1, through: 0, by: -1) {
            let input = activations[i]
            grads.insert(delta.columnSums(), at: 0)
            grads.insert(input.multiplied(by: delta, transposeSelf: true).values, at: 0)
            if i > 0 {
                var back = delta.multiplied(by: head.layers[i].weights, transposeOther: true)
                for j in back.values.indices where input.values[j] <= 0 { back.values[j] = 0 }  // ReLU
                delta = back
            }
        }
        return grads
    }

    static func meanAndStd(_ x: Matrix) -> ([Float], [Float]) {
        var mean = [Float](repeating: 0, count: x.columns), sq = mean
        for r in 0..<x.rows { for c in 0..<x.columns { let v = x[r, c]; mean[c] += v; sq[c] += v * v } }
        let n = Float(max(1, x.rows))
        let m = mean.map { $0 / n }
        return (m, zip(sq, m).map { max(0, $0 / n - $1 * $1).squareRoot() })
    }
}

/// AdamW (decoupled weight decay) over a list of flat parameter arrays.
struct AdamW {
    var learningRate: Float
    var weightDecay: Float
    var beta1: Float = 0.9, beta2: Float = 0.999, epsilon: Float = 1e-8
    private var m: [[Float]], v: [[Float]]
    private var t: Float = 0

    init(shapes: [Int], learningRate: Float, weightDecay: Float) {
        self.learningRate = learningRate
        self.weightDecay = weightDecay
        m = shapes.map { [Float](repeating: 0, count: $0) }
        v = m
    }

    mutating func step(_ params: inout [[Float]], _ grads: [[Float]], decayMask: [Bool]) {
        t += 1
        let c1 = 1 - pow(beta1, t), c2 = 1 - pow(beta2, t)
        for i in params.indices {
            let decay = decayMask[i] ? weightDecay * learningRate : 0
            for j in params[i].indices {
                let g = grads[i][j]
                m[i][j] = beta1 * m[i][j] + (1 - beta1) * g
                v[i][j] = beta2 * v[i][j] + (1 - beta2) * g * g
                params[i][j] -= learningRate * (m[i][j] / c1) / ((v[i][j] / c2).squareRoot() + epsilon) + decay * params[i][j]
            }
        }
    }
}
