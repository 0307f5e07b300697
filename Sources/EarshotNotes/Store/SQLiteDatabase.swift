internal import CSQLite
import Foundation

/// A value bound to or read from an SQL statement.
public enum SQLValue: Sendable, Equatable {
    case integer(Int64)
    case real(Double)
    case text(String)
    case blob(Data)
    case null

    public var int: Int? { if case let .integer(v) = self { return Int(v) } else { return nil } }
    public var double: Double? {
        switch self { case let .real(v): return v; case let .integer(v): return Double(v); default: return nil }
    }
    public var string: String? { if case let .text(v) = self { return v } else { return nil } }
    public var data: Data? { if case let .blob(v) = self { return v } else { return nil } }
}

/// One connection to an SQLite database in WAL mode: readers never block the writer, several processes
/// share the file, and a busy database is waited for (10 s) instead of failing. Errors carry SQLite's
/// message and code, never the statement text.
public final class SQLiteDatabase {
    public struct Failure: Error, Sendable {
        public var code: Int32
        public var message: String
        public var isDiskFull: Bool { code & 0xff == SQLITE_FULL }
        /// The file is not a database, or its pages are damaged.
        public var isCorrupt: Bool { code & 0xff == SQLITE_CORRUPT || code & 0xff == SQLITE_NOTADB }
        public var isReadOnly: Bool { code & 0xff == SQLITE_READONLY || code & 0xff == SQLITE_CANTOPEN || code & 0xff == SQLITE_PERM }
        public var isBusy: Bool { code & 0xff == SQLITE_BUSY || code & 0xff == SQLITE_LOCKED }
    }

    private let handle: OpaquePointer
    public let path: String

    public init(path: String) throws {
        var db: OpaquePointer?
        let flags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX
        let rc = sqlite3_open_v2(path, &db, flags, nil)
        guard rc == SQLITE_OK, let db else {
            let message = db.map { String(cString: sqlite3_errmsg($0)) } ?? "cannot open"
            if let db { sqlite3_close_v2(db) }
            throw Failure(code: rc, message: message)
        }
        handle = db
        self.path = path
        sqlite3_busy_timeout(db, 10_000)
        sqlite3_extended_result_codes(db, 1)
        // switching a new database to WAL needs a moment alone with it, and SQLite answers "busy" at once
        // instead of waiting when another process is doing the same (two `notes add` on a fresh store)
        try Self.retryingWhileBusy { try execute("PRAGMA journal_mode = WAL") }
        try execute("PRAGMA synchronous = NORMAL")  // with WAL: never corrupt; a power cut may lose the last commit
        try execute("PRAGMA foreign_keys = ON")
    }

    deinit { sqlite3_close_v2(handle) }

    /// Runs `body` again while it fails with "busy", for up to `seconds`.
    static func retryingWhileBusy(seconds: Double = 10, _ body: () throws -> Void) throws {
        let deadline = Date().addingTimeInterval(seconds)
        while true {
            do { return try body() } catch let error as Failure where error.isBusy && Date() < deadline {
                usleep(10_000)
            }
        }
    }

    /// Runs one or more statements without results.
    public func execute(_ sql: String) throws {
        var error: UnsafeMutablePointer<CChar>?
        let rc = sqlite3_exec(handle, sql, nil, nil, &error)
        if rc != SQLITE_OK {
            let message = error.map { String(cString: $0) } ?? String(cString: sqlite3_errmsg(handle))
            sqlite3_free(error)
            throw Failure(code: rc, message: message)
        }
    }

    /// Rows of a query; each row's values in column order.
    @discardableResult
    public func query(_ sql: String, _ values: [SQLValue] = []) throws -> [[SQLValue]] {
        var statement: OpaquePointer?
        var rc = sqlite3_prepare_v2(handle, sql, -1, &statement, nil)
        guard rc == SQLITE_OK, let statement else { throw failure(rc) }
        defer { sqlite3_finalize(statement) }
        for (i, value) in values.enumerated() { try bind(value, at: Int32(i + 1), in: statement) }
        var rows: [[SQLValue]] = []
        while true {
            rc = sqlite3_step(statement)
            if rc == SQLITE_DONE { break }
            guard rc == SQLITE_ROW else { throw failure(rc) }
            rows.append((0..<sqlite3_column_count(statement)).map { column(statement, $0) })
        }
        return rows
    }

    /// Rows changed by the last INSERT, UPDATE or DELETE.
    public var changes: Int { Int(sqlite3_changes(handle)) }
    public var lastInsertedRow: Int64 { sqlite3_last_insert_rowid(handle) }

    /// Runs `body` in a transaction: committed when it returns, rolled back when it throws. `immediate`
    /// takes the write lock at the start, so a read-then-write (claiming a job) cannot race another process.
    public func transaction<T>(immediate: Bool = true, _ body: () throws -> T) throws -> T {
        try execute(immediate ? "BEGIN IMMEDIATE" : "BEGIN")
        do {
            let result = try body()
            try execute("COMMIT")
            return result
        } catch {
            try? execute("ROLLBACK")
            throw error
        }
    }

    private func failure(_ rc: Int32) -> Failure {
        Failure(code: sqlite3_extended_errcode(handle), message: String(cString: sqlite3_errmsg(handle)))
    }

    private static let transient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)

    private func bind(_ value: SQLValue, at index: Int32, in statement: OpaquePointer) throws {
        let rc: Int32
        switch value {
        case let .integer(v): rc = sqlite3_bind_int64(statement, index, v)
        case let .real(v): rc = sqlite3_bind_double(statement, index, v)
        case let .text(v): rc = sqlite3_bind_text(statement, index, v, -1, Self.transient)
        case let .blob(v):
            rc = v.withUnsafeBytes { sqlite3_bind_blob(statement, index, $0.baseAddress, Int32($0.count), Self.transient) }
        case .null: rc = sqlite3_bind_null(statement, index)
        }
        if rc != SQLITE_OK { throw failure(rc) }
    }

    private func column(_ statement: OpaquePointer, _ i: Int32) -> SQLValue {
        switch sqlite3_column_type(statement, i) {
        case SQLITE_INTEGER: return .integer(sqlite3_column_int64(statement, i))
        case SQLITE_FLOAT: return .real(sqlite3_column_double(statement, i))
        case SQLITE_TEXT: return .text(String(cString: sqlite3_column_text(statement, i)))
        case SQLITE_BLOB:
            let n = Int(sqlite3_column_bytes(statement, i))
            guard n > 0, let p = sqlite3_column_blob(statement, i) else { return .blob(Data()) }
            return .blob(Data(bytes: p, count: n))
        default: return .null
        }
    }
}
