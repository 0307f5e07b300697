import Foundation

/// Containers libsndfile cannot open (m4a/AAC, webm, mp4, ...) through the ffmpeg command, when installed.
/// ffmpeg only decodes (to float WAV on a pipe); downmixing and resampling stay ours, as for every format.
public struct FFmpegDecoder: Sendable {
    public init() {}

    public static var executable: String? { findExecutable("ffmpeg") }

    public func decode(path: String, displayName: String) throws -> DecodedAudio {
        guard let ffmpeg = Self.executable else {
            throw AudioError.missingTool(path: displayName, tool: "ffmpeg", install: "sudo apt-get install ffmpeg")
        }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: ffmpeg)
        process.arguments = ["-nostdin", "-hide_banner", "-v", "error", "-i", path,
                             "-vn", "-f", "wav", "-c:a", "pcm_f32le", "-"]
        let out = Pipe(), err = Pipe()
        process.standardOutput = out
        process.standardError = err
        process.standardInput = FileHandle.nullDevice
        do { try process.run() } catch {
            throw AudioError.unreadable(path: displayName, reason: "could not start ffmpeg: \(error.localizedDescription)")
        }
        // stderr is drained concurrently so a chatty ffmpeg cannot block on a full pipe
        let errData = Locked<Data?>(nil)
        let errReader = Thread { let read = err.fileHandleForReading.readDataToEndOfFile(); errData.withLock { $0 = read } }
        errReader.start()
        let data = out.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        while errData.withLock({ $0 == nil }) { usleep(1000) }
        guard process.terminationStatus == 0 else {
            let message = String(decoding: errData.withLock { $0 } ?? Data(), as: UTF8.self)
                .split(separator: "\n").last.map(String.init) ?? "ffmpeg exit code \(process.terminationStatus)"
            throw AudioError.notAudio(path: displayName, detail: message.replacingOccurrences(of: path + ": ", with: ""))
        }
        return try WAVDecoder().decode(data, path: displayName)
    }
}

/// Looks a command up on PATH.
public func findExecutable(_ name: String) -> String? {
    let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/local/bin:/usr/bin:/bin"
    for dir in path.split(separator: ":") {
        let candidate = "\(dir)/\(name)"
        if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
    }
    return nil
}
