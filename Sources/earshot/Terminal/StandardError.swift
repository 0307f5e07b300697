import Foundation

/// Writes to standard error (Swift 6 forbids touching the C `stderr` global).
enum StandardError {
    static func write(_ text: String) {
        FileHandle.standardError.write(Data(text.utf8))
    }

    static var isTerminal: Bool { isatty(2) == 1 }
}

/// Writes straight to standard output, unbuffered: live lines must not wait in a pipe buffer.
enum StandardOutput {
    static func write(_ text: String) {
        FileHandle.standardOutput.write(Data(text.utf8))
    }
}
