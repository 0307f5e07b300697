/// `--jobs`: how many input files a command works on at once (`earshot transcribe`, `earshot batch`), each lane on
/// its share of the threads with its own copy of Whisper (`Transcriber.lanes`). By default one file per thread, as
/// one window's decoding cannot keep two threads busy; never more lanes than files.
enum FilesAtOnce {
    static func count(_ args: ParsedArguments, threads: Int, files: Int) throws -> Int {
        max(1, min(try args.optionalInt("jobs", range: 1...64) ?? threads, files))
    }
}
