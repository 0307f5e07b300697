internal import CBLAS

/// A dense row-major Float matrix: the unit of the training math, multiplied with OpenBLAS.
public struct Matrix: Sendable, Equatable, Codable {
    public var rows: Int
    public var columns: Int
    public var values: [Float]

    public init(rows: Int, columns: Int, values: [Float]? = nil) {
        self.rows = rows
        self.columns = columns
        self.values = values ?? [Float](repeating: 0, count: rows * columns)
        precondition(self.values.count == rows * columns, "matrix of \(rows)×\(columns) needs \(rows * columns) values")
    }

    private enum CodingKeys: String, CodingKey { case rows, columns, values }

    /// Decoding refuses a matrix whose values do not fill it (a damaged file), instead of failing later.
    public init(from decoder: Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        let rows = try c.decode(Int.self, forKey: .rows), columns = try c.decode(Int.self, forKey: .columns)
        let values = try c.decode([Float].self, forKey: .values)
        guard rows >= 0, columns >= 0, rows.multipliedReportingOverflow(by: columns) == (values.count, false) else {
            throw DecodingError.dataCorruptedError(forKey: .values, in: c,
                                                   debugDescription: "a \(rows)×\(columns) matrix with \(values.count) values")
        }
        self.init(rows: rows, columns: columns, values: values)
    }

    public init(stacking rowVectors: [[Float]]) {
        self.init(rows: rowVectors.count, columns: rowVectors.first?.count ?? 0, values: rowVectors.flatMap { $0 })
    }

    public subscript(r: Int, c: Int) -> Float {
        get { values[r * columns + c] }
        set { values[r * columns + c] = newValue }
    }

    public func row(_ r: Int) -> ArraySlice<Float> { values[(r * columns)..<((r + 1) * columns)] }

    /// The rows at `indices`, in that order.
    public func rows(_ indices: [Int]) -> Matrix {
        var out = [Float]()
        out.reserveCapacity(indices.count * columns)
        for i in indices { out += row(i) }
        return Matrix(rows: indices.count, columns: columns, values: out)
    }

    /// self (m×k) · other (k×n), optionally transposing either operand.
    public func multiplied(by other: Matrix, transposeSelf: Bool = false, transposeOther: Bool = false) -> Matrix {
        let m = transposeSelf ? columns : rows, k = transposeSelf ? rows : columns
        let n = transposeOther ? other.rows : other.columns
        precondition(k == (transposeOther ? other.columns : other.rows), "inner dimensions differ")
        var out = Matrix(rows: m, columns: n)
        guard m > 0, n > 0, k > 0 else { return out }
        BLAS.useOneThread()
        values.withUnsafeBufferPointer { a in
            other.values.withUnsafeBufferPointer { b in
                out.values.withUnsafeMutableBufferPointer { c in
                    cblas_sgemm(CblasRowMajor, transposeSelf ? CblasTrans : CblasNoTrans,
                                transposeOther ? CblasTrans : CblasNoTrans, Int32(m), Int32(n), Int32(k), 1,
                                a.baseAddress, Int32(columns), b.baseAddress, Int32(other.columns), 0,
                                c.baseAddress, Int32(n))
                }
            }
        }
        return out
    }

    /// Adds `vector` to every row.
    public mutating func addRowVector(_ vector: [Float]) {
        for r in 0..<rows { for c in 0..<columns { values[r * columns + c] += vector[c] } }
    }

    /// Column sums.
    public func columnSums() -> [Float] {
        var sums = [Float](repeating: 0, count: columns)
        for r in 0..<rows { for c in 0..<columns { sums[c] += values[r * columns + c] } }
        return sums
    }
}
