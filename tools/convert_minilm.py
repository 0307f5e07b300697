#!/usr/bin/env python3
"""all-MiniLM-L6-v2 (safetensors + vocab.txt) -> GGUF for llama.cpp's BERT embeddings, with numpy and the
gguf-py package vendored in the pinned llama-cpp-python sdist (so metadata keys match the libllama built
from the same tree). No torch. usage: convert_minilm.py MODEL_DIR GGUF_PY_DIR OUT.gguf

Weights stay float32 (the model is 91 MB; f16 saves little and moves cosines by ~1e-3). Pooling is mean,
as in sentence-transformers' 1_Pooling/config.json; the caller L2-normalises."""
import json
import struct
import sys
from pathlib import Path

import numpy as np


def safetensors(path):
    with open(path, "rb") as f:
        n = struct.unpack("<Q", f.read(8))[0]
        header = json.loads(f.read(n))
        base = 8 + n
    data = np.memmap(path, dtype=np.uint8, mode="r")
    dtypes = {"F32": np.float32, "F16": np.float16, "I64": np.int64}
    for name, meta in header.items():
        if name == "__metadata__":
            continue
        start, end = meta["data_offsets"]
        yield name, np.frombuffer(data[base + start:base + end], dtype=dtypes[meta["dtype"]]).reshape(meta["shape"])


def main():
    model, gguf_py, out = Path(sys.argv[1]), sys.argv[2], sys.argv[3]
    sys.path.insert(0, gguf_py)
    import gguf

    config = json.loads((model / "config.json").read_text())
    pooling = json.loads((model / "1_Pooling" / "config.json").read_text())
    assert pooling["pooling_mode_mean_tokens"], "expected mean pooling"
    blocks = config["num_hidden_layers"]
    writer = gguf.GGUFWriter(out, "bert")
    writer.add_name("all-MiniLM-L6-v2")
    writer.add_block_count(blocks)
    writer.add_context_length(config["max_position_embeddings"])
    writer.add_embedding_length(config["hidden_size"])
    writer.add_feed_forward_length(config["intermediate_size"])
    writer.add_head_count(config["num_attention_heads"])
    writer.add_layer_norm_eps(config["layer_norm_eps"])
    writer.add_causal_attention(False)
    writer.add_pooling_type(gguf.PoolingType.MEAN)
    writer.add_file_type(gguf.LlamaFileType.ALL_F32)

    # WordPiece vocabulary in llama.cpp's "phantom space" form: word starts get U+2581, "##" pieces lose it
    vocab = (model / "vocab.txt").read_text(encoding="utf-8").split("\n")
    if vocab and vocab[-1] == "":
        vocab.pop()
    special = {"[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"}
    tokens, types = [], []
    for tok in vocab:
        if tok in special or (tok.startswith("[unused") and tok.endswith("]")):
            tokens.append(tok)
            types.append(gguf.TokenType.CONTROL)
        else:
            tokens.append(tok[2:] if tok.startswith("##") else "\u2581" + tok)
            types.append(gguf.TokenType.NORMAL)
    writer.add_token_type_count(config.get("type_vocab_size", 1))
    writer.add_tokenizer_model("bert")
    writer.add_tokenizer_pre("default")
    writer.add_token_list(tokens)
    writer.add_token_types(types)
    ids = {t: i for i, t in enumerate(vocab)}
    writer.add_unk_token_id(ids["[UNK]"])
    writer.add_sep_token_id(ids["[SEP]"])
    writer.add_pad_token_id(ids["[PAD]"])
    writer.add_bos_token_id(ids["[CLS]"])  # llama.cpp's BERT vocabulary: CLS is BOS, SEP ends the text
    writer.add_eos_token_id(ids["[SEP]"])
    writer.add_mask_token_id(ids["[MASK]"])
    writer.add_add_bos_token(True)
    writer.add_add_sep_token(True)

    names = gguf.get_tensor_name_map(gguf.MODEL_ARCH.BERT, blocks)
    for name, array in safetensors(model / "model.safetensors"):
        if name in ("embeddings.position_ids",) or name.startswith("pooler."):
            continue
        new = names.get_name(name, try_suffixes=(".weight", ".bias"))
        if new is None:
            raise SystemExit(f"unmapped tensor {name}")
        writer.add_tensor(new, np.ascontiguousarray(array, dtype=np.float32))
    writer.write_header_to_file()
    writer.write_kv_data_to_file()
    writer.write_tensors_to_file()
    writer.close()


if __name__ == "__main__":
    main()
