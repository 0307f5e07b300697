import EarshotCore
import Foundation

/// How every command prints `--json`: a document (pretty, sorted keys) or one event per line, unbuffered.
enum JSONOutput {
    static func document(_ object: Any) {
        print(text(object, [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]))
    }

    /// One compact line, written at once (live events must not wait in a pipe buffer).
    static func event(_ object: [String: Any]) {
        StandardOutput.write(text(object, [.sortedKeys, .withoutEscapingSlashes]) + "\n")
    }

    /// Numbers trimmed to `places` decimals so output stays readable and stable.
    static func rounded(_ x: Double, _ places: Int = 3) -> Double {
        let scale = pow(10, Double(places))
        return (x * scale).rounded() / scale
    }

    static func rounded(_ x: Float, _ places: Int = 4) -> Double { rounded(Double(x), places) }

    private static func text(_ object: Any, _ options: JSONSerialization.WritingOptions) -> String {
        String(decoding: (try? JSONSerialization.data(withJSONObject: object, options: options)) ?? Data(), as: UTF8.self)
    }
}
