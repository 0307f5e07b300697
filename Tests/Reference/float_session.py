"""The float reference's session: onnxruntime on one thread with every graph optimisation off, so no fused
or CPU-specific kernel stands between the network's definition and its outputs."""
import onnxruntime as ort


def reference_session(path):
    options = ort.SessionOptions()
    options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_DISABLE_ALL
    options.intra_op_num_threads = 1
    return ort.InferenceSession(path, options, providers=["CPUExecutionProvider"])
