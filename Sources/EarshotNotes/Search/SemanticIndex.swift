import Foundation

/// Every note's text embedding in one matrix, for nearest-neighbour search by dot product (vectors are
/// unit length). Loaded from the store once and reloaded only when the set of embedded notes changes.
final class SemanticIndex: @unchecked Sendable {
    private var ids: [Int] = []
    private var vectors: [Float] = []
    private var dimension = 0
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
        (self.ids, self.vectors, self.dimension, signature) = (ids, vectors, dimension, now)
    }

    /// Notes by cosine to `query`, best first.
    func nearest(_ query: [Float], limit: Int) -> [(id: Int, cosine: Float)] {
        guard dimension == query.count, !ids.isEmpty else { return [] }
        var scores = [Float](repeating: 0, count: ids.count)
        vectors.withUnsafeBufferPointer { m in
            for r in 0..<ids.count {
                var s: Float = 0
                let base = r * dimension
                for c in 0..<dimension { s += m[base + c] * query[c] }
                scores[r] = s
            }
        }
        return scores.indices.sorted { scores[$0] > scores[$1] }.prefix(limit).map { (ids[$0], scores[$0]) }
    }
}
