#!/usr/bin/env python3
"""A quantised GGUF language model -> the same model with every weight dequantised (float16 matrices, float32 vectors),
as the float reference the tests compare the shipped model with (README.md, "Same answers on every CPU").
Dequantised by gguf-py's numpy code, not by llama.cpp's CPU kernels, so the reference does not share the kernels it
checks. usage: dequantise_gguf.py GGUF_PY_DIR IN.gguf OUT.gguf"""
import sys

import numpy as np


def main():
    gguf_py, source, target = sys.argv[1:4]
    sys.path.insert(0, gguf_py)
    import gguf
    from gguf.quants import dequantize

    reader = gguf.GGUFReader(source)
    arch = reader.fields[gguf.Keys.General.ARCHITECTURE].contents()
    writer = gguf.GGUFWriter(target, arch)
    for field in reader.fields.values():
        if field.name == gguf.Keys.General.ARCHITECTURE or field.name.startswith("GGUF."):
            continue  # written by GGUFWriter itself
        value = field.contents()
        if field.name == gguf.Keys.General.FILE_TYPE:
            value = int(gguf.LlamaFileType.MOSTLY_F16)
        kind = field.types[0]
        writer.add_key_value(field.name, value, kind, sub_type=field.types[-1] if kind == gguf.GGUFValueType.ARRAY else None)

    def as_float(tensor):
        values = dequantize(tensor.data, tensor.tensor_type)
        return values.astype(np.float16 if values.ndim == 2 else np.float32)

    # headers first (shapes and sizes), then each tensor dequantised as it is written: one in memory at a time
    for tensor in reader.tensors:
        shape = tuple(int(n) for n in reversed(tensor.shape))  # numpy order
        dtype = np.float16 if len(shape) == 2 else np.float32
        kind = gguf.GGMLQuantizationType.F16 if len(shape) == 2 else gguf.GGMLQuantizationType.F32
        writer.add_tensor_info(tensor.name, shape, np.dtype(dtype), int(np.prod(shape)) * np.dtype(dtype).itemsize, kind)
    writer.write_header_to_file()
    writer.write_kv_data_to_file()
    writer.write_ti_data_to_file()
    for tensor in reader.tensors:
        writer.write_tensor_data(as_float(tensor))
    writer.close()


if __name__ == "__main__":
    main()
