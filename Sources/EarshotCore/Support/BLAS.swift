internal import CBLAS

/// OpenBLAS shares a product between as many threads as the machine has cores, and how it splits the work
/// changes the order of the sums: Whisper's front-end then gives slightly other features, and a transcript can
/// change ("EG" for "Eg" on a LibriSpeech clip, with OPENBLAS_NUM_THREADS=1 against 2 on a 2-core machine). So
/// Earshot runs OpenBLAS on one thread everywhere, in every process (its products are small: the front-end's DFT
/// of a 30 s window is ~10 ms on one core); the parallel work is ONNX Runtime's and Earshot's own.
public enum BLAS {
    /// Called before every product; the first call sets OpenBLAS to one thread for the whole process.
    @inline(__always) public static func useOneThread() { _ = once }

    private static let once: Void = { openblas_set_num_threads(1) }()
}
