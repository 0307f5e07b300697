import Foundation

/// The one JSON form of Earshot's results, shared by the library, the CLI's `--json` and the HTTP API:
/// keys as each type's coding keys say (snake_case), sorted; dates in ISO 8601; slashes unescaped.
public enum EarshotJSON {
    public static func encoder(pretty: Bool = true) -> JSONEncoder {
        let encoder = JSONEncoder()
        encoder.outputFormatting = pretty ? [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes] : [.sortedKeys, .withoutEscapingSlashes]
        encoder.dateEncodingStrategy = .iso8601
        return encoder
    }

    public static func decoder() -> JSONDecoder {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        return decoder
    }

    /// `value` as JSON text (pretty: indented over lines; otherwise one line).
    public static func text<T: Encodable>(_ value: T, pretty: Bool = true) throws -> String {
        String(decoding: try encoder(pretty: pretty).encode(value), as: UTF8.self)
    }
}
