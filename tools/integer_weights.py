"""Integer weights that give the same answers on every x86 CPU, shared by the model preparation tools.

ONNX Runtime's integer kernels (MatMulInteger, DynamicQuantizeLSTM) multiply uint8 activations by the
weights. With int8 weights, its AVX2 kernels (no VNNI) add pairs of u8 x s8 products in int16 and saturate,
so one file gives different answers on AVX2 than on AVX-512/VNNI. Symmetric int8 weights w (zero point 0)
stored as uint8 w + 128 with zero point 128 are the same numbers, and the u8 x u8 kernels add in int32:
every CPU then computes exactly what VNNI computed with the int8 file. But ONNX Runtime 1.28's u8 x u8
kernels are about 3x slower than its u8 x s8 ones on VNNI CPUs; int8_weights_pair_safe keeps the int8
weights and orders their rows so that no pair can saturate instead: the same exact sums, at u8 x s8 speed.
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


# The AVX2 and AVX-512 (no VNNI) u8 x s8 kernels add the products of K rows 2i and 2i+1 in int16 (vpmaddubsw).
# With uint8 activations (0-255) that sum cannot leave int16 unless the two weights have the same sign and
# their magnitudes add up to more than 128 (255 x 128 = 32,640). Such pairs are rare in symmetric int8 weights
# (68 of 4.1 million in Whisper tiny.en's encoder), and the order of K is free: X[:, p] W[p, :] = X W.
PAIR_LIMIT = 128


def clashes(a, b):
    """Where weights a and b (int8 arrays of one shape), added as a pair, could leave int16."""
    a, b = a.astype(np.int32), b.astype(np.int32)
    return (a * b > 0) & (np.abs(a) + np.abs(b) > PAIR_LIMIT)


def pair_clash(w, i, j):
    """Whether K rows i and j of int8 weights w [K, N] could saturate when added as a pair."""
    return bool(np.any(clashes(w[i], w[j])))


def clashing_pairs(w):
    """How many (row pair, column) places of int8 weights w [K, N], in their stored order, could saturate."""
    k = w.shape[0] // 2 * 2
    return int(np.sum(clashes(w[0:k:2], w[1:k:2])))


def pair_safe_order(w):
    """An order of w's K rows in which no pair (2i, 2i+1) can saturate; None when the given order is safe."""
    k = w.shape[0]
    order = list(range(k))
    if clashing_pairs(w) == 0:
        return None
    for i in [i for i in range(0, k - 1, 2) if pair_clash(w, i, i + 1)]:
        if not pair_clash(w, order[i], order[i + 1]):
            continue
        # trade the second row with one of another pair, so that both pairs come out safe
        for m in range(k):
            mate = m ^ 1
            if m in (i, i + 1) or mate >= k:
                continue
            if not pair_clash(w, order[i], order[m]) and not pair_clash(w, order[i + 1], order[mate]):
                order[i + 1], order[m] = order[m], order[i + 1]
                break
        else:
            raise SystemExit(f"no safe order for a {w.shape} int8 weight")
    assert clashing_pairs(w[order]) == 0
    return order


def int8_weights_pair_safe(model):
    """`model` (quantize_dynamic's QInt8 output) with the K rows of every MatMulInteger weight that could saturate
    in pairs reordered (pair_safe_order), and its quantised input put in the same order, so that u8 x s8
    kernels compute the exact sums on every CPU: VNNI and AMX add in int32, the others never saturate.
    The input is reordered as a Split into its runs of consecutive columns and a Concat of them in the new
    order: a few moved rows make a few runs, two cheap copies of a uint8 tensor, where a Gather along the last
    axis copied element by element (3 ms per MatMul in tiny.en's encoder). Returns how many weights were
    reordered."""
    from onnx import helper
    g = model.graph
    inits = {i.name: i for i in g.initializer}
    reordered = 0
    for n in list(g.node):
        if n.op_type != "MatMulInteger":
            continue
        w = numpy_helper.to_array(inits[n.input[1]])
        if w.dtype != np.int8 or np.any(numpy_helper.to_array(inits[n.input[3]]) != 0):
            raise SystemExit(f"{n.input[1]}: expected int8 weights with zero point 0")
        if sum(name == n.input[1] for node in g.node for name in node.input) != 1:
            raise SystemExit(f"{n.input[1]}: reordering a weight that several nodes read")
        order = pair_safe_order(w)
        if order is None:
            continue
        # runs of consecutive columns, in the new order
        runs = [[order[0], 1]]
        for previous, column in zip(order, order[1:]):
            if column == previous + 1:
                runs[-1][1] += 1
            else:
                runs.append([column, 1])
        prefix = f"{n.output[0]}_pair_safe"
        by_start = sorted(runs)
        sizes = numpy_helper.from_array(np.array([length for _, length in by_start], np.int64), prefix + "_sizes")
        g.initializer.append(sizes)
        parts = {start: f"{prefix}_from_{start}" for start, _ in by_start}
        split = helper.make_node("Split", [n.input[0], sizes.name], [parts[start] for start, _ in by_start], axis=-1,
                                 name=prefix + "_split")
        concat = helper.make_node("Concat", [parts[start] for start, _ in runs], [prefix + "_input"], axis=-1,
                                  name=prefix + "_concat")
        at = list(g.node).index(n)
        g.node.insert(at, concat)
        g.node.insert(at, split)
        n.input[0] = prefix + "_input"
        replace_initializer(g, n.input[1], w[order])
        reordered += 1
    return reordered
