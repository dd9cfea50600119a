#!/usr/bin/env python3
"""Validate a safetensors file by the format's specification, independently of Linkscope's C++
reader, and list what it holds.

There is no transformers on the build machines; this reader, written from the specification
(https://github.com/huggingface/safetensors) with the standard library alone, is the stand-in
check that files our writer produces are what other readers expect.

Usage: check_safetensors.py FILE

Prints, tab-separated, one line per metadata entry and per tensor (in file order):
    metadata <key> <value>
    tensor <name> <dtype> [<d0>, <d1>, ...] [sum=<repr of the float64 sum, F32 tensors only>]
Exit status 0 for a valid file, 1 with "FILE: error: ..." on stderr for an invalid one, 2 for
a usage error.
"""
import json
import struct
import sys

MAX_HEADER_BYTES = 100_000_000
DTYPE_SIZES = {"F64": 8, "F32": 4, "F16": 2, "BF16": 2, "I64": 8, "I32": 4, "I16": 2, "I8": 1, "U8": 1, "BOOL": 1}


class Invalid(Exception):
    pass


def reject_duplicates(pairs):
    seen = {}
    for key, value in pairs:
        if key in seen:
            raise Invalid(f"the header has the key {key!r} twice")
        seen[key] = value
    return seen


def reject_constant(name):
    raise Invalid(f"the header contains {name}, which is not JSON")


def is_count(value):
    # bool is a subclass of int in Python; true/false are not sizes.
    return isinstance(value, int) and not isinstance(value, bool) and value >= 0


def parse_header(data):
    if len(data) < 8:
        raise Invalid(f"file of {len(data)} bytes is shorter than the 8-byte header length")
    (length,) = struct.unpack("<Q", data[:8])
    if length > len(data) - 8:
        raise Invalid(f"header length {length} goes beyond the end of the file ({len(data)} bytes)")
    if length > MAX_HEADER_BYTES:
        raise Invalid(f"header length {length} is above {MAX_HEADER_BYTES}")
    raw = data[8:8 + length]
    if not raw.startswith(b"{"):
        raise Invalid("the header does not start with '{'")
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as error:
        raise Invalid(f"the header is not UTF-8: {error}") from None
    try:
        header = json.loads(text, object_pairs_hook=reject_duplicates, parse_constant=reject_constant)
    except json.JSONDecodeError as error:
        raise Invalid(f"the header is not valid JSON: {error}") from None
    if not isinstance(header, dict):
        raise Invalid("the header is not a JSON object")
    return header, 8 + length


def check(data):
    """Returns (metadata dict, [(name, dtype, shape, begin, end)] in file order); raises Invalid."""
    header, data_start = parse_header(data)
    data_size = len(data) - data_start
    metadata = header.pop("__metadata__", {})
    if not isinstance(metadata, dict) or not all(isinstance(v, str) for v in metadata.values()):
        raise Invalid("__metadata__ must be an object of strings")
    tensors = []
    for name, info in header.items():
        if not isinstance(info, dict):
            raise Invalid(f"tensor {name!r}: entry is not an object")
        dtype, shape, offsets = info.get("dtype"), info.get("shape"), info.get("data_offsets")
        if dtype not in DTYPE_SIZES:
            raise Invalid(f"tensor {name!r}: unknown dtype {dtype!r}")
        if not isinstance(shape, list) or not all(is_count(d) for d in shape):
            raise Invalid(f"tensor {name!r}: shape {shape!r} is not a list of non-negative integers")
        if not isinstance(offsets, list) or len(offsets) != 2 or not all(is_count(o) for o in offsets):
            raise Invalid(f"tensor {name!r}: data_offsets {offsets!r} is not [begin, end]")
        begin, end = offsets
        count = 1
        for dimension in shape:
            count *= dimension  # Python integers do not overflow: compare against 64 bits below
        size = count * DTYPE_SIZES[dtype]
        if size >= 2 ** 64:
            raise Invalid(f"tensor {name!r}: shape {shape} overflows 64 bits")
        if begin > end:
            raise Invalid(f"tensor {name!r}: data_offsets {offsets} are reversed")
        if end - begin != size:
            raise Invalid(f"tensor {name!r}: data_offsets span {end - begin} bytes, shape and dtype need {size}")
        tensors.append((name, dtype, shape, begin, end))
    tensors.sort(key=lambda t: (t[3], t[4], t[0]))
    position = 0
    for name, _, _, begin, end in tensors:
        if begin != position:
            raise Invalid(f"tensor {name!r} begins at {begin}, expected {position} (overlap or hole)")
        position = end
    if position != data_size:
        raise Invalid(f"tensors cover {position} bytes of a data section of {data_size}")
    return metadata, tensors, data_start


def main(argv):
    if len(argv) != 2:
        print("usage: check_safetensors.py FILE", file=sys.stderr)
        return 2
    path = argv[1]
    try:
        with open(path, "rb") as file:
            data = file.read()
        metadata, tensors, data_start = check(data)
    except OSError as error:
        print(f"{path}: error: {error}", file=sys.stderr)
        return 1
    except Invalid as error:
        print(f"{path}: error: {error}", file=sys.stderr)
        return 1
    for key in sorted(metadata):
        print(f"metadata\t{key}\t{metadata[key]}")
    for name, dtype, shape, begin, end in tensors:
        fields = ["tensor", name, dtype, "[" + ", ".join(str(d) for d in shape) + "]"]
        if dtype == "F32":
            total = 0.0
            for (value,) in struct.iter_unpack("<f", data[data_start + begin:data_start + end]):
                total += value  # in file order, in float64: the C++ side sums the same way
            fields.append(f"sum={total!r}")
        print("\t".join(fields))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
