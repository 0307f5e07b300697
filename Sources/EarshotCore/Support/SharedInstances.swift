import Foundation

/// One instance per key for the whole process, made on first use: models are loaded once and shared by
/// every caller that asks for the same configuration. Safe to call from any thread (a lock guards the table;
/// two first calls for one key wait for the same load instead of loading twice).
public final class SharedInstances<Key: Hashable & Sendable, Value: Sendable>: Sendable {
    private let table = Locked<[Key: Value]>([:])

    public init() {}

    public func instance(for key: Key, make: () throws -> Value) rethrows -> Value {
        try table.withLock { table in
            if let existing = table[key] { return existing }
            let made = try make()
            table[key] = made
            return made
        }
    }
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
