import Foundation

/// Rows read straight from the table leaf pages of an SQLite database file, without its b-trees: what repair
/// carries when damage to a table's interior pages (its root, say) hides rows whose own pages are intact. SQLite
/// reaches a row only through the pages above it; this reads every page that says it is a table leaf, follows each
/// cell's overflow chain, and decodes the record (the file format's "B-tree pages" and "Record format"). Pages on
/// the free list are skipped: they hold rows deleted or moved. Anything malformed is skipped, never trusted: a
/// row is taken only when every part of it decodes.
struct SQLitePageScan {
    struct Row {
        var rowid: Int64
        var values: [SQLValue]
        var page: Int
    }

    private let bytes: [UInt8]
    private let pageSize: Int
    private let usable: Int
    private var pageCount: Int { bytes.count / pageSize }

    /// nil when the file is not an SQLite database whose header can be read.
    init?(file: URL) {
        guard let data = try? Data(contentsOf: file), data.count >= 512,
              data.prefix(16) == Data("SQLite format 3\u{0}".utf8) else { return nil }
        bytes = [UInt8](data)
        let size = Int(bytes[16]) << 8 | Int(bytes[17])
        pageSize = size == 1 ? 65_536 : size
        guard pageSize >= 512, pageSize & (pageSize - 1) == 0 else { return nil }
        usable = pageSize - Int(bytes[20])
        guard usable >= 480 else { return nil }
    }

    /// Every row on every table leaf page not on the free list, in page order.
    func rows() -> [Row] {
        guard pageCount > 0 else { return [] }  // shorter than one page: no page to read whole
        let free = freePages()
        var rows: [Row] = []
        for page in 1...max(1, pageCount) where !free.contains(page) {
            rows += leafRows(page)
        }
        return rows
    }

    // MARK: pages

    private func offset(of page: Int) -> Int { (page - 1) * pageSize }

    private func u32(_ at: Int) -> Int? {
        guard at >= 0, at + 4 <= bytes.count else { return nil }
        return Int(bytes[at]) << 24 | Int(bytes[at + 1]) << 16 | Int(bytes[at + 2]) << 8 | Int(bytes[at + 3])
    }

    /// The free list's trunk and leaf pages (header offsets 32 and 36), as far as it can be followed.
    private func freePages() -> Set<Int> {
        var free = Set<Int>()
        var trunk = u32(32) ?? 0
        while trunk > 0, trunk <= pageCount, free.insert(trunk).inserted {
            let start = offset(of: trunk)
            let count = u32(start + 4) ?? 0
            guard count <= (usable - 8) / 4 else { break }
            for i in 0..<count { if let leaf = u32(start + 8 + 4 * i), leaf > 0, leaf <= pageCount { free.insert(leaf) } }
            trunk = u32(start) ?? 0
        }
        return free
    }

    /// The rows of one page when it is a table leaf (type 13); its header follows the file header on page 1.
    private func leafRows(_ page: Int) -> [Row] {
        let start = offset(of: page)
        let header = start + (page == 1 ? 100 : 0)
        guard header + 8 <= bytes.count, bytes[header] == 0x0D else { return [] }
        let cells = Int(bytes[header + 3]) << 8 | Int(bytes[header + 4])
        guard cells <= usable / 4 else { return [] }
        var rows: [Row] = []
        for i in 0..<cells {
            let pointer = header + 8 + 2 * i
            guard pointer + 2 <= start + pageSize else { break }
            let cell = start + (Int(bytes[pointer]) << 8 | Int(bytes[pointer + 1]))
            guard cell > header + 8, cell < start + usable, let row = self.cell(at: cell, page: page) else { continue }
            rows.append(row)
        }
        return rows
    }

    /// A table leaf cell: payload size, rowid, the payload's first part on the page, then its overflow chain.
    private func cell(at position: Int, page: Int) -> Row? {
        var at = position
        guard let size = varint(&at), size >= 0, size < Int64(1 << 30), let rowid = varint(&at) else { return nil }
        let total = Int(size)
        let maxLocal = usable - 35, minLocal = (usable - 12) * 32 / 255 - 23
        var local = total
        if total > maxLocal {
            local = minLocal + (total - minLocal) % (usable - 4)
            if local > maxLocal { local = minLocal }
        }
        let pageEnd = offset(of: page) + usable
        guard at + local <= pageEnd else { return nil }
        var payload = Array(bytes[at..<at + local])
        if local < total {
            guard var next = u32(at + local) else { return nil }
            var visited = Set<Int>()
            while payload.count < total {
                guard next > 0, next <= pageCount, visited.insert(next).inserted else { return nil }
                let start = offset(of: next)
                let take = min(usable - 4, total - payload.count)
                guard start + 4 + take <= bytes.count else { return nil }
                payload += bytes[start + 4..<start + 4 + take]
                next = u32(start) ?? 0
            }
        }
        guard let values = Self.record(payload) else { return nil }
        return Row(rowid: rowid, values: values, page: page)
    }

    /// A record's values, or nil when its header and body do not agree.
    static func record(_ payload: [UInt8]) -> [SQLValue]? {
        var at = 0
        guard let headerSize = varint(payload, &at), headerSize >= 1, Int(headerSize) <= payload.count else { return nil }
        var types: [Int64] = []
        while at < Int(headerSize) {
            guard let type = varint(payload, &at), type >= 0 else { return nil }
            types.append(type)
        }
        guard at == Int(headerSize) else { return nil }
        var body = Int(headerSize)
        var values: [SQLValue] = []
        for type in types {
            let length: Int
            switch type {
            case 0, 8, 9: length = 0
            case 1, 2, 3, 4: length = Int(type)
            case 5: length = 6
            case 6, 7: length = 8
            case 10, 11: return nil  // reserved
            default: length = Int((type - (type % 2 == 0 ? 12 : 13)) / 2)
            }
            guard length >= 0, body + length <= payload.count else { return nil }
            let field = payload[body..<body + length]
            switch type {
            case 0: values.append(.null)
            case 8: values.append(.integer(0))
            case 9: values.append(.integer(1))
            case 1...6:
                var value = Int64(Int8(bitPattern: field.first!))  // sign from the first byte, big-endian after
                for byte in field.dropFirst() { value = value << 8 | Int64(byte) }
                values.append(.integer(value))
            case 7:
                let bits = field.reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
                values.append(.real(Double(bitPattern: bits)))
            default:
                if type % 2 == 0 {
                    values.append(.blob(Data(field)))
                } else {
                    guard let text = String(bytes: field, encoding: .utf8) else { return nil }
                    values.append(.text(text))
                }
            }
            body += length
        }
        return values
    }

    // MARK: varints (1 to 9 bytes, big-endian, 7 bits a byte but all 8 in the ninth)

    private func varint(_ at: inout Int) -> Int64? { Self.varint(bytes, &at) }

    static func varint(_ bytes: [UInt8], _ at: inout Int) -> Int64? {
        var value: UInt64 = 0
        for i in 0..<9 {
            guard at < bytes.count else { return nil }
            let byte = bytes[at]
            at += 1
            if i == 8 { return Int64(bitPattern: value << 8 | UInt64(byte)) }
            value = value << 7 | UInt64(byte & 0x7F)
            if byte & 0x80 == 0 { return Int64(bitPattern: value) }
        }
        return nil
    }
}
