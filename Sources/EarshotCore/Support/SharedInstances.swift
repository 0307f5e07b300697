import Foundation

/// One instance per key for the whole process, made on first use: models are loaded once and shared by
/// every caller that asks for the same configuration. Safe to call from any thread (a lock guards the table;
/// two first calls for one key wait for the same load instead of loading twice). With a `capacity`, the least
/// recently used instance is dropped when another would pass it (callers still holding it keep it alive).
public final class SharedInstances<Key: Hashable & Sendable, Value: Sendable>: Sendable {
    private struct Entry { var value: Value; var used: UInt64 }
    private let table = Locked<(entries: [Key: Entry], clock: UInt64)>(([:], 0))
    private let capacity: Int

    public init(capacity: Int = .max) { self.capacity = max(1, capacity) }

    public func instance(for key: Key, make: () throws -> Value) rethrows -> Value {
        try table.withLock { table in
            table.clock += 1
            if let existing = table.entries[key] {
                table.entries[key]?.used = table.clock
                return existing.value
            }
            let made = try make()
            if table.entries.count >= capacity, let oldest = table.entries.min(by: { $0.value.used < $1.value.used })?.key {
                table.entries[oldest] = nil
            }
            table.entries[key] = Entry(value: made, used: table.clock)
            return made
        }
    }

    /// How many instances are kept now.
    public var count: Int { table.withLock { $0.entries.count } }
}

/// A value guarded by a lock, for state shared between threads.
public final class Locked<Value>: @unchecked Sendable {
    // @unchecked: every access to `value` goes through `lock`.
    private let lock = NSLock()
    private var value: Value

    public init(_ value: Value) { self.value = value }

    public func withLock<Result>(_ body: (inout Value) throws -> Result) rethrows -> Result {
        lock.lock()
        defer { lock.unlock() }
        return try body(&value)
    }
}
