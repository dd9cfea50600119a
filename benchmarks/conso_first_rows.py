#!/usr/bin/env python3
"""What the UMLS loader's reserve estimate (core/kb/umls_reserve.h) sees in an MRCONSO.RRF: its
first 4,096 rows' bytes a row, kept rows (default filters: LAT=ENG, SUPPRESS=N, a non-empty STR)
and distinct concepts among them, against the whole file's bytes a row.

  benchmarks/conso_first_rows.py /tmp/umls-mm/MRCONSO.RRF
"""
import os
import sys

SAMPLE = 4096


def main(path: str) -> None:
    rows = sample_bytes = kept = 0
    concepts = set()
    total_rows = 0
    with open(path, "rb") as file:
        for line in file:
            total_rows += 1
            if total_rows > SAMPLE:
                continue
            rows += 1
            sample_bytes += len(line)
            fields = line.rstrip(b"\r\n").split(b"|")
            if len(fields) > 16 and fields[1] == b"ENG" and fields[16] == b"N" and fields[14].strip():
                kept += 1
                concepts.add(fields[0])
    size = os.path.getsize(path)
    print(f"first {rows} rows: {sample_bytes / rows:.1f} bytes a row, {kept} kept, {len(concepts)} concepts among them")
    print(f"whole file: {total_rows} rows, {size / total_rows:.1f} bytes a row")


if __name__ == "__main__":
    main(sys.argv[1])
