internal import CBLAS

/// OpenBLAS shares a product between as many threads as the machine has cores, and how it splits the work
/// changes the order of the sums: a classifier head trained on 2 threads then differs in its last bits from one
/// trained on 1 (and when Whisper's front-end was a BLAS product, a transcript changed: "EG" for "Eg" on a
/// LibriSpeech clip, OPENBLAS_NUM_THREADS=1 against 2). So Earshot runs OpenBLAS on one thread everywhere, in every
/// process (its products are small); the parallel work is ONNX Runtime's and Earshot's own.
public enum BLAS {
    /// Called before every product; the first call sets OpenBLAS to one thread for the whole process.
    @inline(__always) public static func useOneThread() { _ = once }

    private static let once: Void = { openblas_set_num_threads(1) }()
}
