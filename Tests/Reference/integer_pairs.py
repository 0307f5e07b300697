#!/usr/bin/env python3
"""Can an installed network's int8 weights saturate in ONNX Runtime's AVX2 kernels? (IntegerWeightsTests)

Those kernels (AVX2, and AVX-512 without VNNI) add the u8 x s8 products of K rows 2i and 2i+1 in int16; VNNI
and AMX add in int32. Weights for which no pair can leave int16 give the same sums on every CPU, which a test on
a VNNI machine could not see otherwise. For each model: its int8 and uint8 MatMulInteger and DynamicQuantizeLSTM
weights, and the pairs of int8 rows that could saturate (tools/integer_weights.py's rule). uint8 weights run in
u8 x u8 kernels that add in int32, so only their zero point is checked (128: symmetric int8 stored as uint8).

usage: integer_pairs.py MODEL.onnx...   -> JSON {path: {"int8": n, "uint8": n, "clashing_pairs": n, "bad_zero_points": n}}
"""
import json
import os
import sys

import numpy as np
import onnx
from onnx import numpy_helper

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "tools"))
from integer_weights import INTEGER_WEIGHTS, integer_weight_clashes  # noqa: E402


def check(path):
    model = onnx.load(path)
    g = model.graph
    inits = {i.name: i for i in g.initializer}
    report = {"int8": 0, "uint8": 0, "clashing_pairs": sum(integer_weight_clashes(model).values()), "bad_zero_points": 0}
    for n in g.node:
        for w_index, z_index in INTEGER_WEIGHTS.get(n.op_type, []):
            if n.input[w_index] not in inits:
                continue
            w = numpy_helper.to_array(inits[n.input[w_index]])
            has_zero = len(n.input) > z_index and n.input[z_index] in inits
            zero = numpy_helper.to_array(inits[n.input[z_index]]) if has_zero else np.zeros(1)
            kind = "uint8" if w.dtype == np.uint8 else "int8"
            report[kind] += 1
            report["bad_zero_points"] += int(np.any(zero != (128 if kind == "uint8" else 0)))
    return report


if __name__ == "__main__":
    json.dump({p: check(p) for p in sys.argv[1:]}, sys.stdout)
