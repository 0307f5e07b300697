import Foundation

/// Containers libsndfile cannot open (m4a/AAC, webm, mp4, ...) through the ffmpeg command, when installed.
/// ffmpeg only decodes (to float WAV on a pipe, read a block at a time); downmixing and resampling stay
/// ours, as for every format.
final class FFmpegStream: BlockDecoder {
    static var executable: String? { findExecutable("ffmpeg") }

    private let process = Process()
    private let output = Pipe()
    private let errors = Locked<Data?>(nil)
    private let path: String
    private let displayName: String
    private var wav: WAVStream!

    init(path: String, displayName: String) throws {
        guard let ffmpeg = Self.executable else {
            throw AudioError.missingTool(path: displayName, tool: "ffmpeg", install: "sudo apt-get install ffmpeg")
        }
        self.path = path
        self.displayName = displayName
        process.executableURL = URL(fileURLWithPath: ffmpeg)
        process.arguments = ["-nostdin", "-hide_banner", "-v", "error", "-i", path,
                             "-vn", "-f", "wav", "-c:a", "pcm_f32le", "-"]
        let err = Pipe()
        process.standardOutput = output
        process.standardError = err
        process.standardInput = FileHandle.nullDevice
        do { try process.run() } catch {
            throw AudioError.unreadable(path: displayName, reason: "could not start ffmpeg: \(error.localizedDescription)")
        }
        // stderr is drained concurrently so a chatty ffmpeg cannot block on a full pipe
        let errors = self.errors
        Thread { let read = err.fileHandleForReading.readDataToEndOfFile(); errors.withLock { $0 = read } }.start()
        do {
            wav = try WAVDecoder().open(FileInput(descriptor: output.fileHandleForReading.fileDescriptor, name: displayName),
                                        path: displayName)
        } catch {
            try finish()  // ffmpeg's own message says more than "no RIFF header"
            throw error
        }
    }

    deinit {
        // abandoned early (an error further on): stop ffmpeg rather than leave it blocked on a full pipe
        if process.isRunning { process.terminate() }
        process.waitUntilExit()
    }

    var channels: Int { wav.channels }
    var sampleRate: Int { wav.sampleRate }
    /// ffmpeg writes no length to a pipe; the container's duration (ffprobe) stands in for progress.
    lazy var frameCount: Int? = FFprobe.duration(path).map { Int($0 * Double(wav.sampleRate)) }

    func read(frames: Int) throws -> [Float] {
        let block = try wav.read(frames: frames)
        if block.isEmpty { try finish() }
        return block
    }

    /// Waits for ffmpeg and turns a failure into the error its last line describes.
    private func finish() throws {
        try? output.fileHandleForReading.close()
        process.waitUntilExit()
        while errors.withLock({ $0 == nil }) { usleep(1000) }
        guard process.terminationStatus == 0 else {
            let message = String(decoding: errors.withLock { $0 } ?? Data(), as: UTF8.self)
                .split(separator: "\n").last.map(String.init) ?? "ffmpeg exit code \(process.terminationStatus)"
            throw AudioError.notAudio(path: displayName, detail: message.replacingOccurrences(of: path + ": ", with: ""))
        }
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
