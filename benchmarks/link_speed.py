#!/usr/bin/env python3
"""How fast `linkscope-cli link` links, run as a user runs it (the command on PATH or --cli):

  - NCBI Disease test + MEDIC (the shared data): mentions per second and per CPU-second ("per
    core") of link --method sparse, and of link --run RUN when a trained run is given. The
    linker's set-up (KB, dictionary, index, model) is timed apart: the same command on the
    corpus' first document, whose time is subtracted from the whole run's.
  - UMLS size (--umls-dir, the folder benchmarks/generate_umls_medmentions.py wrote): link
    --method sparse on the MedMentions-size test split against the UMLS-size KB, its wall time
    and peak memory against the target (3 minutes, 8 GB), with the sparse index loaded from disk:
    `linkscope-cli index --kb ... --sparse-index FILE` builds and saves it first (timed apart:
    "indexSeconds", "indexBytes"), and link --index FILE maps it. With --no-index, or when index
    fails ("indexFromDisk": false, with the reason index gave), link builds its own.

Each run's peak resident memory is the child's ru_maxrss (wait4), its CPU time the child's user +
system time. Exits 0 with --json whatever the figures are (the record says whether each target
was met); 1 when a run fails.

  benchmarks/link_speed.py --cli build/default/bin/linkscope-cli --work /tmp/link-speed --json
  benchmarks/link_speed.py --cli ... --work ... --run RUN_DIR --umls-dir /tmp/umls-mm
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import threading
import time
from pathlib import Path

UMLS_SECONDS_TARGET = 180.0
UMLS_BYTES_TARGET = 8 * 1000 ** 3


def run_measured(command: list[str]) -> dict:
    """Runs a command with its own resource usage (wait4 on its pid)."""
    start = time.monotonic()
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    # Reads both pipes to their end without reaping the child, then reaps it with wait4.
    chunks = {"out": [], "err": []}

    def drain(stream, into):
        for block in iter(lambda: stream.read(65536), b""):
            into.append(block)

    readers = [threading.Thread(target=drain, args=(process.stdout, chunks["out"])),
               threading.Thread(target=drain, args=(process.stderr, chunks["err"]))]
    for reader in readers:
        reader.start()
    for reader in readers:
        reader.join()
    _, status, usage = os.wait4(process.pid, 0)
    process.returncode = os.waitstatus_to_exitcode(status)
    seconds = time.monotonic() - start
    stdout = b"".join(chunks["out"]).decode(errors="replace")
    stderr = b"".join(chunks["err"]).decode(errors="replace")
    if process.returncode != 0:
        raise SystemExit(f"failed ({process.returncode}): {' '.join(command)}\n{stderr[-2000:]}")
    return {"seconds": round(seconds, 2), "cpuSeconds": round(usage.ru_utime + usage.ru_stime, 2),
            "peakRssKiB": usage.ru_maxrss, "stdout": stdout, "stderr": stderr}


def mentions_of(stdout: str) -> int:
    return int(stdout.split(" mentions", 1)[0].strip().splitlines()[-1])


def first_document(corpus: Path, out: Path) -> Path:
    """The PubTator corpus' first document (up to its first blank line after a title)."""
    lines = []
    with corpus.open(encoding="utf-8") as source:
        for line in source:
            if not line.strip():
                if lines:
                    break
                continue
            lines.append(line)
    out.write_text("".join(lines) + "\n", encoding="utf-8")
    return out


def throughput(cli: str, corpus: Path, kb: Path, linker: list[str], work: Path, name: str) -> dict:
    """The whole run and the one-document run of the same linker: set-up and linking rate."""
    whole = run_measured([cli, "link", "--corpus", str(corpus), "--kb", str(kb), *linker,
                          "--out", str(work / f"{name}.pubtator")])
    setup = run_measured([cli, "link", "--corpus", str(first_document(corpus, work / "first.pubtator")),
                          "--kb", str(kb), *linker, "--out", str(work / f"{name}-first.pubtator")])
    mentions = mentions_of(whole["stdout"])
    linking_seconds = max(whole["seconds"] - setup["seconds"], 1e-3)
    linking_cpu = max(whole["cpuSeconds"] - setup["cpuSeconds"], 1e-3)
    return {"mentions": mentions, "seconds": whole["seconds"], "setupSeconds": setup["seconds"],
            "cpuSeconds": whole["cpuSeconds"], "peakRssKiB": whole["peakRssKiB"],
            "mentionsPerSecond": round(mentions / linking_seconds, 1),
            "mentionsPerCpuSecond": round(mentions / linking_cpu, 1),
            "mentionsPerSecondWithSetup": round(mentions / whole["seconds"], 1)}


def test_split(umls: Path, out: Path) -> Path:
    """The documents of the generated corpus whose PMIDs the test list names, as PubTator."""
    if out.exists():
        return out
    pmids = set((umls / "corpus_pubtator_pmids_test.txt").read_text().split())
    corpus = umls / "corpus_pubtator.txt"
    with corpus.open(encoding="utf-8") as source, out.open("w", encoding="utf-8") as sink:
        keep, wrote = False, False
        for line in source:
            if not line.strip():
                continue
            pmid = line.split("|", 1)[0].split("\t", 1)[0]
            if "|t|" in line[:40]:
                keep = pmid in pmids
                if keep and wrote:
                    sink.write("\n")
                wrote = wrote or keep
            if keep:
                sink.write(line)
    return out


def umls_size(cli: str, umls: Path, work: Path, try_index: bool) -> dict:
    corpus = test_split(umls, work / "umls_test.pubtator")
    kb = umls / "MRCONSO.RRF"
    index = work / "umls.sparse"
    built = None
    index_seconds = None
    if try_index:
        start = time.monotonic()
        built = subprocess.run([cli, "index", "--kb", str(kb), "--kb-format", "umls", "--sparse-index", str(index)],
                               capture_output=True, text=True)
        index_seconds = round(time.monotonic() - start, 2)
    from_disk = built is not None and built.returncode == 0 and index.exists()
    command = [cli, "link", "--corpus", str(corpus), "--kb", str(kb), "--kb-format", "umls", "--method", "sparse",
               "--out", str(work / "umls_linked.pubtator")]
    if from_disk:
        command += ["--index", str(index)]
    result = run_measured(command)
    peak_bytes = result["peakRssKiB"] * 1024
    record = {"mentions": mentions_of(result["stdout"]), "seconds": result["seconds"],
              "cpuSeconds": result["cpuSeconds"], "peakRssKiB": result["peakRssKiB"],
              "indexFromDisk": from_disk,
              "withinTarget": result["seconds"] <= UMLS_SECONDS_TARGET and peak_bytes <= UMLS_BYTES_TARGET}
    if from_disk:
        record["indexSeconds"] = index_seconds
        record["indexBytes"] = index.stat().st_size
    if built is None:
        record["indexNotSaved"] = "not attempted (--no-index): link built its own index"
    elif not from_disk:
        record["indexNotSaved"] = (built.stderr.strip().splitlines() or ["index failed"])[-1][-300:]
    return record


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--cli", default="linkscope-cli", help="the linkscope-cli executable (default: on PATH)")
    parser.add_argument("--work", required=True, type=Path, help="folder for outputs (kept)")
    parser.add_argument("--data", type=Path, default=Path(os.environ.get("LINKSCOPE_DATA_DIR", "../shared/data")),
                        help="the shared data folder (LINKSCOPE_DATA_DIR)")
    parser.add_argument("--run", help="a trained run (linkscope-cli train --out) to time as well")
    parser.add_argument("--umls-dir", type=Path, help="generate_umls_medmentions.py's folder (full size)")
    parser.add_argument("--no-index", action="store_true",
                        help="UMLS size: do not build and save the index first; link builds its own")
    parser.add_argument("--json", action="store_true", help="print the figures as JSON")
    args = parser.parse_args()

    args.work.mkdir(parents=True, exist_ok=True)
    report: dict = {}
    corpus = args.data / "ncbi-disease" / "NCBItestset_corpus.txt"
    kb = args.data / "medic" / "medic_06Jul2012.txt"
    if corpus.exists() and kb.exists():
        report["ncbiSparse"] = throughput(args.cli, corpus, kb, ["--method", "sparse"], args.work, "ncbi_sparse")
        if args.run:
            report["ncbiRun"] = throughput(args.cli, corpus, kb, ["--run", args.run], args.work, "ncbi_run")
        else:
            report["ncbiRun"] = "not measured: no trained run given (--run RUN_DIR)"
    else:
        print(f"skipped NCBI Disease + MEDIC: {corpus} or {kb} is absent", file=sys.stderr)
        report["ncbiSparse"] = "skipped: the shared data is absent"
    if args.umls_dir:
        report["umlsSize"] = umls_size(args.cli, args.umls_dir, args.work, not args.no_index)
    if args.json:
        print(json.dumps({"benchmark": "link_speed", "parameters": {"cores": os.cpu_count(), "cli": args.cli},
                          "figures": report}, indent=2))
    else:
        for key, value in report.items():
            print(f"{key}: {json.dumps(value)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
