import EarshotCore
import Foundation

/// Every note's text embedding in one matrix, for nearest-neighbour search by dot product (vectors are
/// unit length). Loaded from the store once and reloaded only when the set of embedded notes changes.
final class SemanticIndex: @unchecked Sendable {
    private var ids: [Int] = []
    private var matrix = Matrix(rows: 0, columns: 0)
    private var signature: [SQLValue] = []

    static func blob(_ vector: [Float]) -> Data { vector.withUnsafeBytes { Data($0) } }

    static func vector(_ data: Data) -> [Float] {
        data.withUnsafeBytes { Array($0.bindMemory(to: Float.self)) }
    }

    func refresh(_ db: SQLiteDatabase) throws {
        let now = try db.query("SELECT count(*), max(id), total(length(embedding)) FROM notes WHERE embedding IS NOT NULL").first ?? []
        guard now != signature else { return }
        var ids: [Int] = [], vectors: [Float] = [], dimension = 0
        for row in try db.query("SELECT id, embedding FROM notes WHERE embedding IS NOT NULL") {
            guard let id = row[0].int, let data = row[1].data, !data.isEmpty else { continue }
            let v = Self.vector(data)
            if dimension == 0 { dimension = v.count }
            guard v.count == dimension else { continue }
            ids.append(id)
            vectors += v
        }
        (self.ids, matrix, signature) = (ids, Matrix(rows: ids.count, columns: dimension, values: vectors), now)
    }

    /// Notes by cosine to `query`, best first: one matrix-vector product (BLAS), then a partial selection.
    func nearest(_ query: [Float], limit: Int) -> [(id: Int, cosine: Float)] {
        guard matrix.columns == query.count, !ids.isEmpty, limit > 0 else { return [] }
        let scores = matrix.multiplied(by: Matrix(rows: query.count, columns: 1, values: query)).values
        var top: [(index: Int, score: Float)] = []  // best first, at most `limit`
        for (i, s) in scores.enumerated() where top.count < limit || s > top[top.count - 1].score {
            let at = top.firstIndex { s > $0.score } ?? top.count
            top.insert((i, s), at: at)
            if top.count > limit { top.removeLast() }
        }
        return top.map { (ids[$0.index], $0.score) }
    }
}
