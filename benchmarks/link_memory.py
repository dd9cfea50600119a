#!/usr/bin/env python3
"""Peak memory of `linkscope-cli link` on 1x and 10x a generated corpus: link streams its input,
so its peak should be the KB's, the dictionary's and the index's, plus one chunk, whatever the
corpus' size (the target: at most 10 % more on the tenfold corpus).

The KB and the corpus come from generate_umls_medmentions.py (seeded: the same bytes every run);
the tenfold corpus is the corpus written ten times, each copy's PMIDs given a distinct prefix so
that no document is a repeat. Each run's peak resident memory is the child's ru_maxrss (wait4).

  benchmarks/link_memory.py --cli build/default/bin/linkscope-cli --work /tmp/link-memory --json
  benchmarks/link_memory.py --cli ... --work ... --scale 0.01 --documents 400 --chunk-bytes 1048576

Exits 1 when the peak grew by more than the target, except with --json (the record says it).
"""
from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent


def generate(work: Path, scale: float, documents: int) -> Path:
    data = work / "generated"
    if not (data / "MRCONSO.RRF").exists():
        subprocess.run([sys.executable, str(HERE / "generate_umls_medmentions.py"), "--out", str(data),
                        "--scale", str(scale), "--documents", str(documents)], check=True,
                       stdout=subprocess.DEVNULL)
    return data


def tenfold(corpus: Path, out: Path) -> None:
    """The corpus ten times, copy k's PMIDs prefixed with "k" so that every document is new."""
    text = corpus.read_text(encoding="utf-8")
    line_start = re.compile(r"^(?=[^\n])", re.MULTILINE)
    with out.open("w", encoding="utf-8") as sink:
        for copy in range(10):
            if copy:
                sink.write("\n")
            sink.write(line_start.sub(f"{copy}", text.strip("\n")) + "\n")


def run_link(cli: str, kb: Path, corpus: Path, out: Path, chunk_bytes: int) -> dict:
    command = [cli, "link", "--corpus", str(corpus), "--kb", str(kb), "--kb-format", "umls", "--method", "sparse",
               "--chunk-bytes", str(chunk_bytes), "--out", str(out)]
    start = time.monotonic()
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    stdout = process.stdout.read().decode()
    _, status, usage = os.wait4(process.pid, 0)
    seconds = time.monotonic() - start
    if os.waitstatus_to_exitcode(status) != 0:
        raise SystemExit(f"link failed on {corpus}: {' '.join(command)}")
    mentions = int(stdout.split(" mentions", 1)[0])
    return {"inputBytes": corpus.stat().st_size, "mentions": mentions, "peakRssKiB": usage.ru_maxrss,
            "seconds": round(seconds, 1)}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--cli", required=True, help="the linkscope-cli executable")
    parser.add_argument("--work", required=True, type=Path, help="folder for the generated files (kept)")
    parser.add_argument("--scale", type=float, default=0.01, help="KB size, fraction of UMLS (generator's --scale)")
    parser.add_argument("--documents", type=int, default=400, help="documents of the 1x corpus")
    parser.add_argument("--chunk-bytes", type=int, default=1 << 20, help="link --chunk-bytes (below the 1x corpus)")
    parser.add_argument("--json", action="store_true", help="print the figures as JSON")
    args = parser.parse_args()

    args.work.mkdir(parents=True, exist_ok=True)
    data = generate(args.work, args.scale, args.documents)
    one = data / "corpus_pubtator.txt"
    ten = args.work / "corpus_tenfold.txt"
    if not ten.exists():
        tenfold(one, ten)
    kb = data / "MRCONSO.RRF"
    results = {"1x": run_link(args.cli, kb, one, args.work / "linked_1x.txt", args.chunk_bytes),
               "10x": run_link(args.cli, kb, ten, args.work / "linked_10x.txt", args.chunk_bytes)}
    if results["10x"]["mentions"] != 10 * results["1x"]["mentions"]:
        raise SystemExit("the tenfold corpus does not hold ten times the mentions")
    growth = results["10x"]["peakRssKiB"] / results["1x"]["peakRssKiB"] - 1.0
    report = {"benchmark": "link_memory",
              "parameters": {"scale": args.scale, "documents": args.documents, "chunkBytes": args.chunk_bytes},
              "figures": {**results, "peakGrowth": round(growth, 4), "withinTarget": growth <= 0.10}}
    if args.json:
        print(json.dumps(report, indent=2))
        return 0  # the record says whether the target was met
    else:
        for name in ("1x", "10x"):
            r = results[name]
            print(f"{name}: {r['inputBytes']} bytes, {r['mentions']} mentions, peak {r['peakRssKiB'] / 1024:.0f} MiB, "
                  f"{r['seconds']} s")
        print(f"peak growth {growth * 100:.1f} % (target: at most 10 %)")
    return 0 if growth <= 0.10 else 1


if __name__ == "__main__":
    sys.exit(main())
