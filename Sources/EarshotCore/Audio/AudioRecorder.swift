import Foundation

/// Records a live source into a 16 kHz WAV file. Each chunk is on disk as it arrives, so a killed process
/// still leaves its audio; a source that fails part way keeps what came before the failure.
public enum AudioRecorder {
    public static let sampleRate = 16_000

    /// What was recorded, and the error that ended the source early if one did.
    public struct Recording: Sendable {
        public var url: URL
        public var seconds: Double
        public var interruption: String?
    }

    /// Records until the source ends, `shouldStop` says so, or `maxSeconds` pass. `onChunk` sees each
    /// chunk and the seconds so far (for a level meter). Nothing recorded is an error, and leaves no file.
    public static func record(_ source: any AudioSource, to url: URL, maxSeconds: Double,
                              shouldStop: @Sendable () -> Bool = { false },
                              onChunk: (@Sendable (_ chunk: [Float], _ seconds: Double) -> Void)? = nil) async throws -> Recording {
        try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        let file = try WAVFileWriter(url: url, sampleRate: sampleRate)
        let limit = Int(maxSeconds * Double(sampleRate))
        var interruption: Error?
        do {
            for try await chunk in source.chunks(sampleRate: sampleRate) {
                try file.append(Array(chunk.prefix(max(0, limit - file.frames))))
                onChunk?(chunk, Double(file.frames) / Double(sampleRate))
                if shouldStop() || file.frames >= limit { break }
            }
        } catch {
            if file.frames == 0 { try? FileManager.default.removeItem(at: url); throw error }
            interruption = error
        }
        try file.finish()
        guard file.frames > 0 else {
            try? FileManager.default.removeItem(at: url)
            throw AudioError.noSamples(path: source.name)
        }
        return Recording(url: url, seconds: Double(file.frames) / Double(sampleRate),
                         interruption: interruption.map { ($0 as? LocalizedError)?.errorDescription ?? "\($0)" })
    }
}
