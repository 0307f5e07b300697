/// An n-dimensional array going into or coming out of a model.
public struct Tensor: Sendable, Equatable {
    public enum Storage: Sendable, Equatable {
        case float([Float])
        case uint8([UInt8])
        case int64([Int64])
    }

    public var shape: [Int]
    public var storage: Storage

    public init(shape: [Int], floats: [Float]) { self.shape = shape; storage = .float(floats) }
    public init(shape: [Int], bytes: [UInt8]) { self.shape = shape; storage = .uint8(bytes) }
    public init(shape: [Int], int64s: [Int64]) { self.shape = shape; storage = .int64(int64s) }

    public var floats: [Float] {
        switch storage {
        case let .float(v): return v
        case let .uint8(v): return v.map(Float.init)
        case let .int64(v): return v.map(Float.init)
        }
    }

    public var bytes: [UInt8]? { if case let .uint8(v) = storage { return v } else { return nil } }

    public var elementCount: Int { shape.reduce(1, *) }
}
