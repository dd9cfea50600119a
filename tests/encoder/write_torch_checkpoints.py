#!/usr/bin/env python3
"""Writes torch.save twins of a safetensors checkpoint, with torch itself (Debian's
python3-torch), for test_torch_checkpoint: the reference the C++ reader is compared with is
written by torch, not by our code.

usage: write_torch_checkpoints.py SOURCE_DIR OUT_DIR

SOURCE_DIR holds config.json, vocab.txt and an F32 model.safetensors. For each dtype (f32,
f16, bf16) OUT_DIR gets safe-DTYPE (model.safetensors in that dtype, the twin), zip-DTYPE
(torch.save, torch >= 1.6 format) and legacy-DTYPE (_use_new_zipfile_serialization=False);
zip-sharded holds pytorch_model.bin.index.json and two shards. The .bin state dicts hold what
real checkpoints hold: the "bert." prefix, a tied head sharing the word embeddings' storage, a
tensor viewing a larger storage at an offset, and a transposed (non-contiguous) weight.
"""
import json
import os
import shutil
import struct
import sys

import torch

DTYPES = {"f32": (torch.float32, "F32"), "f16": (torch.float16, "F16"), "bf16": (torch.bfloat16, "BF16")}


def read_safetensors(path):
    with open(path, "rb") as f:
        blob = f.read()
    (length,) = struct.unpack("<Q", blob[:8])
    header = json.loads(blob[8 : 8 + length])
    data = blob[8 + length :]
    tensors = {}
    for name, entry in header.items():
        if name == "__metadata__":
            continue
        assert entry["dtype"] == "F32", entry
        begin, end = entry["data_offsets"]
        flat = torch.frombuffer(bytearray(data[begin:end]), dtype=torch.float32) if end > begin else torch.zeros(0)
        tensors[name] = flat.reshape(entry["shape"]).clone()
    return tensors


def tensor_bytes(tensor):
    tensor = tensor.contiguous()
    if tensor.dtype == torch.bfloat16:
        return tensor.view(torch.int16).numpy().tobytes()
    return tensor.numpy().tobytes()


def write_safetensors(path, tensors, dtype_name):
    header, chunks, offset = {}, [], 0
    for name in sorted(tensors):
        raw = tensor_bytes(tensors[name])
        header[name] = {"dtype": dtype_name, "shape": list(tensors[name].shape), "data_offsets": [offset, offset + len(raw)]}
        chunks.append(raw)
        offset += len(raw)
    header["__metadata__"] = {"format": "pt"}
    text = json.dumps(header).encode()
    text += b" " * ((8 - len(text) % 8) % 8)
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(text)) + text + b"".join(chunks))


def as_checkpoint(tensors):
    """The state dict as a BertForMaskedLM checkpoint would hold it."""
    state = {"bert." + name: tensor for name, tensor in tensors.items()}
    words = state["bert.embeddings.word_embeddings.weight"]
    state["cls.predictions.decoder.weight"] = words  # tied: the same storage as the embeddings
    norm = state["bert.embeddings.LayerNorm.weight"]
    flat = torch.zeros(17 + norm.numel() + 5, dtype=norm.dtype)
    flat[17 : 17 + norm.numel()] = norm.reshape(-1)
    state["bert.embeddings.LayerNorm.weight"] = flat[17 : 17 + norm.numel()].view(norm.shape)  # offset view
    query = "bert.encoder.layer.0.attention.self.query.weight"
    state[query] = state[query].t().contiguous().t()  # same values, column-major strides
    assert not state[query].is_contiguous()
    return state


def copy_folder(source, target):
    os.makedirs(target, exist_ok=True)
    for name in os.listdir(source):
        if name.endswith(".json") or name.endswith(".txt"):
            shutil.copy(os.path.join(source, name), os.path.join(target, name))


def main():
    source, out = sys.argv[1], sys.argv[2]
    tensors = read_safetensors(os.path.join(source, "model.safetensors"))
    for key, (dtype, dtype_name) in DTYPES.items():
        converted = {name: tensor.to(dtype) for name, tensor in tensors.items()}
        copy_folder(source, os.path.join(out, "safe-" + key))
        write_safetensors(os.path.join(out, "safe-" + key, "model.safetensors"), converted, dtype_name)
        state = as_checkpoint(converted)
        copy_folder(source, os.path.join(out, "zip-" + key))
        torch.save(state, os.path.join(out, "zip-" + key, "pytorch_model.bin"))
        copy_folder(source, os.path.join(out, "legacy-" + key))
        torch.save(state, os.path.join(out, "legacy-" + key, "pytorch_model.bin"), _use_new_zipfile_serialization=False)

    state = as_checkpoint(tensors)
    names = sorted(state)
    halves = [names[: len(names) // 2], names[len(names) // 2 :]]
    sharded = os.path.join(out, "zip-sharded")
    copy_folder(source, sharded)
    weight_map = {}
    for index, half in enumerate(halves):
        shard = "pytorch_model-%05d-of-00002.bin" % (index + 1)
        torch.save({name: state[name] for name in half}, os.path.join(sharded, shard))
        weight_map.update({name: shard for name in half})
    with open(os.path.join(sharded, "pytorch_model.bin.index.json"), "w") as f:
        json.dump({"metadata": {}, "weight_map": weight_map}, f)

    # BioSyn's sparse_weight.pt: one tensor, saved on its own.
    torch.save(torch.tensor([0.3125]), os.path.join(out, "sparse_weight.pt"))
    torch.save(torch.tensor([0.3125]), os.path.join(out, "sparse_weight_legacy.pt"), _use_new_zipfile_serialization=False)


if __name__ == "__main__":
    main()
