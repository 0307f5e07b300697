import EarshotCore
import Foundation

/// How every command prints `--json`: the library result's own JSON encoding (`EarshotJSON`), as a document
/// (pretty) or one event per line, unbuffered.
enum JSONOutput {
    static func document<T: Encodable>(_ value: T) throws {
        print(try EarshotJSON.text(value))
    }

    /// One compact line, written at once (live events must not wait in a pipe buffer).
    static func event<T: Encodable>(_ value: T) throws {
        StandardOutput.write(try EarshotJSON.text(value, pretty: false) + "\n")
    }

    /// A file a command could not use, in a list of results.
    struct Failure: Encodable {
        let source: String
        let error: String
    }

    /// Results for several inputs, some of which may have failed; a single input's result alone.
    enum Each<T: Encodable>: Encodable {
        case result(T)
        case failure(Failure)

        func encode(to encoder: Encoder) throws {
            switch self {
            case let .result(value): try value.encode(to: encoder)
            case let .failure(failure): try failure.encode(to: encoder)
            }
        }
    }

    static func documents<T: Encodable>(_ items: [Each<T>], single: Bool) throws {
        if single, items.count == 1 { try document(items[0]) } else { try document(items) }
    }
}
