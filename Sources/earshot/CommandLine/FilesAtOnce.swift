import EarshotCore
import EarshotSpeech

/// `--jobs`: how many input files a command works on at once (`earshot transcribe`, `earshot batch`), each lane on
/// its share of the threads, all on one loaded Whisper (`Transcriber.lanes`). By default one file per thread, as
/// one window's decoding cannot keep two threads busy; never more lanes than files.
enum FilesAtOnce {
    static func count(_ args: ParsedArguments, threads: Int, files: Int) throws -> Int {
        max(1, min(try args.optionalInt("jobs", range: 1...64) ?? threads, files))
    }

    /// With one file, `--jobs` is how many of its windows are read at once (`Transcriber(windowsAtOnce:)`). By default
    /// one per thread, unless the file says it is no longer than one window: then one window on all the threads,
    /// which reads a short file sooner. Several files read one at a time (`--speakers`) read one window at a time.
    static func windows(_ args: ParsedArguments, threads: Int, files: [String]) throws -> Int {
        if let jobs = try args.optionalInt("jobs", range: 1...64) { return files.count == 1 ? jobs : 1 }
        guard files.count == 1, let file = files.first else { return 1 }
        return Transcriber.windowsAtOnce(forFile: file, threads: threads)
    }
}
