import Foundation

/// Writes to standard error (Swift 6 forbids touching the C `stderr` global).
public enum StandardError {
    public static func write(_ text: String) {
        FileHandle.standardError.write(Data(text.utf8))
    }

    public static var isTerminal: Bool { isatty(2) == 1 }
}

/// Writes straight to standard output, unbuffered: live lines must not wait in a pipe buffer.
public enum StandardOutput {
    public static func write(_ text: String) {
        FileHandle.standardOutput.write(Data(text.utf8))
    }
}
