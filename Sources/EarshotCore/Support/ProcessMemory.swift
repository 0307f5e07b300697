import Foundation

/// This process's memory, for long jobs that must not grow with their input.
public enum ProcessMemory {
    /// Gives the C heap's free pages back to the system (glibc's `malloc_trim`), between pieces of a long
    /// job. ONNX Runtime's tensors of every size leave freed holes across glibc's per-thread heaps; over two
    /// hours of audio those holes, not live data, made a transcription's resident size creep (tiny.en: by
    /// about 100 MB, measured). Looked up at run time, so a C library without it (musl) skips the step.
    /// A few milliseconds.
    public static func releaseFreeHeap() { _ = trim?(0) }

    private static let trim: (@convention(c) (Int) -> Int32)? =
        dlsym(UnsafeMutableRawPointer(bitPattern: 0), "malloc_trim").map { unsafeBitCast($0, to: (@convention(c) (Int) -> Int32).self) }
}
