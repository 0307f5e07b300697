import Foundation

/// The input level of a chunk of audio as a bar for a terminal line: 30 cells over 60 dB (one per 2 dB,
/// full at 0 dBFS), so speech sits mid-bar and silence shows none.
enum LevelMeter {
    static let width = 30

    static func bar(_ chunk: [Float]) -> String {
        let rms = (chunk.reduce(0) { $0 + $1 * $1 } / Float(max(1, chunk.count))).squareRoot()
        let level = min(width, Int(max(0, 20 * log10(rms + 1e-6) + 60) / 2))
        return String(repeating: "▮", count: level) + String(repeating: " ", count: width - level)
    }
}
