"""Integer MatMul inputs quantised with a scale per row (per audio frame) instead of one per tensor.

quantize_dynamic's graphs quantise a MatMul's float input at run time with DynamicQuantizeLinear: one scale and
zero point for the whole tensor. Whisper base's encoder feeds its feed-forward blocks' second MatMul the GELU's
output, where a few values of a few frames reach 66-193 while the median channel stays under 0.8 (layers 3-5), so
one scale for all 1,500 frames rounds 98-99% of the values to zero, and base read lone words worse than its float
weights do. CTranslate2 (faster-whisper) scales each row on its own. Here a chosen MatMulInteger's input is
quantised the same way:

    scale_r = max |x_r| / 127,   q_r = round(x_r / scale_r) + 128   (uint8, 1..255; QuantizeLinear per axis)

and the product's float scale becomes scale_r x the weight's scale, a column that broadcasts over the output.
The weights, their pair-safe order (integer_weights.py) and the MatMulInteger itself are untouched: the inputs
are still uint8 with one zero point (128), so every CPU still adds the same integers.

The float scale product is written as Div(row scale, 1 / weight scale) rather than a Mul: ONNX Runtime fuses
MatMulInteger -> Cast -> Mul(a_scale x b_scale) into MatMulIntegerToFloat, whose a_scale must be a scalar, and
took the column of row scales for one (its output was noise).
"""
import re

import numpy as np
from onnx import helper, numpy_helper, TensorProto

from integer_weights import replace_initializer


def row_scaled_inputs(model, weight_pattern):
    """Quantises per row the inputs of the MatMulIntegers whose weight name matches `weight_pattern` (each such
    input must feed only such MatMuls). Returns how many inputs were changed."""
    g = model.graph
    inits = {i.name: i for i in g.initializer}
    readers = {}
    for n in g.node:
        for name in n.input:
            readers.setdefault(name, []).append(n)

    def weights_reading(value):
        """The weights of the MatMulIntegers that read `value` (through the pair-safe reordering's Split/Concat), and
        the other nodes that read it."""
        found, others, todo = [], [], [value]
        while todo:
            for n in readers.get(todo.pop(), []):
                if n.op_type == "MatMulInteger":
                    found.append(n.input[1])
                elif n.op_type in ("Split", "Concat"):
                    todo.extend(n.output)
                else:
                    others.append(n)
        return found, others

    replace_initializer(g, "row_scale_zero_point", np.array(128, np.uint8))
    replace_initializer(g, "row_scale_floor", np.array(1e-12, np.float32))
    replace_initializer(g, "row_scale_per_step", np.array(1 / 127, np.float32))
    replace_initializer(g, "row_scale_flat", np.array([-1], np.int64))
    changed, replaced = 0, set()
    for quantise in [n for n in g.node if n.op_type == "DynamicQuantizeLinear"]:
        weights, others = weights_reading(quantise.output[0])
        if not weights or not all(re.search(weight_pattern, w) for w in weights):
            continue
        if others:
            raise SystemExit(f"{quantise.output[0]}: also read by {others[0].op_type} {others[0].name}, not only by integer MatMuls")
        x, (quantised, scale, zero_point) = quantise.input[0], quantise.output
        k = {tuple(inits[w].dims)[0] for w in weights}
        if len(k) != 1:
            raise SystemExit(f"{x}: read by weights of different depths {k}")
        p = quantised + "_rows"
        replace_initializer(g, p + "_2d", np.array([-1, k.pop()], np.int64))
        for mul in [n for n in readers.get(scale, []) if n.op_type == "Mul"]:
            weight_scale = [name for name in mul.input if name != scale][0]
            inverse = weight_scale + "_inverse"
            replace_initializer(g, inverse, (1 / numpy_helper.to_array(inits[weight_scale])).astype(np.float32))
            replaced.add(weight_scale)
            mul.op_type = "Div"
            del mul.input[:]
            mul.input.extend([scale, inverse])
        nodes = [
            helper.make_node("ReduceMax", [x], [p + "_max"], axes=[-1], keepdims=1),
            helper.make_node("ReduceMin", [x], [p + "_min"], axes=[-1], keepdims=1),
            helper.make_node("Neg", [p + "_min"], [p + "_minus_min"]),
            helper.make_node("Max", [p + "_max", p + "_minus_min", "row_scale_floor"], [p + "_magnitude"]),
            helper.make_node("Mul", [p + "_magnitude", "row_scale_per_step"], [scale]),
            helper.make_node("Reshape", [scale, "row_scale_flat"], [p + "_scales"]),
            helper.make_node("Shape", [p + "_scales"], [p + "_count"]),
            helper.make_node("ConstantOfShape", [p + "_count"], [p + "_zero_points"],
                             value=helper.make_tensor("zero_point", TensorProto.UINT8, [1], [128])),
            helper.make_node("Shape", [x], [p + "_shape"]),
            helper.make_node("Reshape", [x, p + "_2d"], [p + "_x"]),
            helper.make_node("QuantizeLinear", [p + "_x", p + "_scales", p + "_zero_points"], [p + "_q"], axis=0),
            helper.make_node("Reshape", [p + "_q", p + "_shape"], [quantised]),
            helper.make_node("Identity", ["row_scale_zero_point"], [zero_point]),
        ]
        at = list(g.node).index(quantise)
        g.node.remove(quantise)
        for offset, node in enumerate(nodes):
            g.node.insert(at + offset, node)
        changed += 1
    # the weight scales the Divs replaced with their inverses, where nothing else reads them
    read = {name for n in g.node for name in n.input}
    for unused in [i for i in g.initializer if i.name in replaced and i.name not in read]:
        g.initializer.remove(unused)
    return changed
