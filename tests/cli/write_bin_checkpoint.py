#!/usr/bin/env python3
"""Writes a pytorch_model.bin with torch itself (Debian's python3-torch), for test_cli_model_check:
the file `model check` reads is one torch wrote, not our code.

usage: write_bin_checkpoint.py SPEC.json OUT_FILE zip|legacy f32|f16|bf16

SPEC.json is an object {tensor name: shape}; each tensor gets small random values (LayerNorm
weights 1), in that dtype, saved as an OrderedDict state dict in the zip format (torch >= 1.6)
or the legacy one.
"""
import collections
import json
import sys

import torch


def main():
    spec_file, out_file, fmt, dtype_name = sys.argv[1:5]
    dtype = {"f32": torch.float32, "f16": torch.float16, "bf16": torch.bfloat16}[dtype_name]
    with open(spec_file) as f:
        spec = json.load(f)
    torch.manual_seed(7)
    state = collections.OrderedDict()
    for name, shape in spec.items():
        if name.endswith("LayerNorm.weight"):
            state[name] = torch.ones(shape, dtype=dtype)
        else:
            state[name] = (torch.randn(shape) * 0.05).to(dtype)
    torch.save(state, out_file, _use_new_zipfile_serialization=(fmt == "zip"))


if __name__ == "__main__":
    main()
