"""Integer weights that give the same answers on every x86 CPU, shared by the model preparation tools.

ONNX Runtime's integer kernels (MatMulInteger, DynamicQuantizeLSTM) multiply uint8 activations by the
weights. With int8 weights, its AVX2 kernels (no VNNI) add pairs of u8 x s8 products in int16 and saturate,
so one file gives different answers on AVX2 than on AVX-512/VNNI. Symmetric int8 weights w (zero point 0)
stored as uint8 w + 128 with zero point 128 are the same numbers, and the u8 x u8 kernels add in int32:
every CPU then computes exactly what VNNI computed with the int8 file.
"""
import numpy as np
from onnx import numpy_helper

# (weight input, zero-point input) of each integer op
INTEGER_WEIGHTS = {"MatMulInteger": [(1, 3)], "DynamicQuantizeLSTM": [(1, 9), (2, 11)]}


def replace_initializer(graph, name, array):
    for i in graph.initializer:
        if i.name == name:
            i.CopyFrom(numpy_helper.from_array(array, name))
            return
    graph.initializer.append(numpy_helper.from_array(array, name))


def int8_weights_as_uint8(model):
    """`model` with every symmetric int8 weight of an integer op stored as uint8 (w + 128, zero point 128).
    Returns how many tensors were rewritten; refuses weights whose zero point is not 0."""
    g = model.graph
    inits = {i.name: i for i in g.initializer}
    shifted = set()
    for n in g.node:
        for w_index, z_index in INTEGER_WEIGHTS.get(n.op_type, []):
            w_name, z_name = n.input[w_index], n.input[z_index]
            w, z = numpy_helper.to_array(inits[w_name]), numpy_helper.to_array(inits[z_name])
            if w.dtype == np.uint8:
                continue
            if w.dtype != np.int8 or np.any(z != 0):
                raise SystemExit(f"{w_name}: expected int8 weights with zero point 0, got {w.dtype} / {z}")
            for name, values in ((w_name, w), (z_name, z)):
                if name not in shifted:
                    replace_initializer(g, name, (values.astype(np.int16) + 128).astype(np.uint8))
                    shifted.add(name)
    return len(shifted) // 2
