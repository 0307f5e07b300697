import EarshotCore
import Foundation

/// Every note's text embedding in one matrix, for nearest-neighbour search by dot product (vectors are
/// unit length). Loaded from the store once and reloaded only after the database has changed.
final class SemanticIndex {
    private var ids: [Int] = []
    private var matrix = Matrix(rows: 0, columns: 0)
    private var signature: [SQLValue] = []

    static func blob(_ vector: [Float]) -> Data { vector.withUnsafeBytes { Data($0) } }

    static func vector(_ data: Data) -> [Float] {
        data.withUnsafeBytes { Array($0.bindMemory(to: Float.self)) }
    }

    func refresh(_ db: SQLiteDatabase) throws {
        // data_version moves when another connection commits, total_changes when this one writes: both
        // cost nothing, where counting the embedded notes read the whole table (10 ms on 10,000 notes)
        let now = (try db.query("PRAGMA data_version").first ?? []) + (try db.query("SELECT total_changes()").first ?? [])
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

    /// The `limit` notes nearest `query` by cosine, best first (`among`: only these notes): dot products 16 lanes at a
    /// time (BLAS would start threads that fight llama.cpp's for the 2 cores: 60 ms instead of a few), then a partial
    /// selection.
    func nearest(_ query: [Float], limit: Int, among: Set<Int>? = nil) -> [(id: Int, cosine: Float)] {
        let d = matrix.columns
        guard d == query.count, d % 16 == 0, !ids.isEmpty, limit > 0 else { return [] }
        var scores = [Float](repeating: 0, count: ids.count)
        matrix.values.withUnsafeBufferPointer { m in
            query.withUnsafeBufferPointer { q in
                let rows = UnsafeRawPointer(m.baseAddress!), lanes = UnsafeRawPointer(q.baseAddress!)
                for r in 0..<ids.count {
                    var sum = SIMD16<Float>()
                    for c in stride(from: 0, to: d, by: 16) {
                        sum += rows.loadUnaligned(fromByteOffset: (r * d + c) * 4, as: SIMD16<Float>.self)
                            * lanes.loadUnaligned(fromByteOffset: c * 4, as: SIMD16<Float>.self)
                    }
                    scores[r] = sum.sum()
                }
            }
        }
        var top: [(index: Int, score: Float)] = []  // best first, at most `limit`
        for (i, s) in scores.enumerated() where (top.count < limit || s > top[top.count - 1].score) && among?.contains(ids[i]) != false {
            let at = top.firstIndex { s > $0.score } ?? top.count
            top.insert((i, s), at: at)
            if top.count > limit { top.removeLast() }
        }
        return top.map { (ids[$0.index], $0.score) }
    }
}
