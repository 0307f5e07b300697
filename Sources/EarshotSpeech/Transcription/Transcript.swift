/// A stretch of recognised speech with its times in seconds from the start of the audio.
public struct TranscriptSegment: Sendable, Codable, Equatable {
    public var start: Double
    public var end: Double
    public var text: String

    public init(start: Double, end: Double, text: String) {
        self.start = start
        self.end = end
        self.text = text
    }
}

/// What transcription produces for one recording.
public struct Transcript: Sendable, Codable, Equatable {
    public var source: String
    public var model: String
    /// Length of the audio in seconds.
    public var duration: Double
    public var segments: [TranscriptSegment]

    public init(source: String, model: String, duration: Double, segments: [TranscriptSegment]) {
        self.source = source
        self.model = model
        self.duration = duration
        self.segments = segments
    }

    /// The whole text, segments joined by spaces.
    public var text: String { segments.map(\.text).joined(separator: " ") }
}
