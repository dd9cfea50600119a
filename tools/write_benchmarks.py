#!/usr/bin/env python3
"""Writes docs/benchmarks.md: one section per benchmark of benchmarks/, each with the question it
answers, the command, and a table generated from the benchmark's `--json` output between
`<!-- bench:NAME:begin -->` and `<!-- bench:NAME:end -->`, stamped with the commit, the date and
the machine. No figure in that page is typed by hand.

  tools/write_benchmarks.py [--run NAMES | --run here] [--tables NAMES] [--note TEXT]
                            [--bin build/default/bin] [--data ../shared/data] [--out build/bench-runs]
                            [--doc docs/benchmarks.md] [--manifest FILE] [--model-run RUN]
                            [--umls-dir DIR] [--model DIR] [--baseline-bin DIR]

  --run NAMES    runs these benchmarks (comma-separated; `here`: every one that fits a small
                 machine, see HERE below) with --json, keeps each one's record in OUT/NAME.json
                 and its human output in OUT/NAME.log, and replaces their tables in the page;
  --tables NAMES rewrites these tables from the records already in OUT (no run);
  --note TEXT    a sentence stamped on the tables this call writes (e.g. what else ran on the
                 machine meanwhile);
  --manifest, --model-run, --umls-dir, --model: the inputs of the benchmarks that need a trained
                 run or generated UMLS-size data (model_linking, sparse_scale, dense_scale,
                 link_speed; ui_stall on another project than NCBI Disease + MEDIC);
  A section with "script" runs a Python benchmark of benchmarks/ (with this Python) instead of a
  built executable: link_speed and link_memory spawn linkscope-cli as a user runs it.
  --baseline-bin DIR  startup: an earlier build's bin folder (its linkscope-cli and linkscope run
                 beside this build's, for old and new figures in one table);
  without --run or --tables, the page is written again from this script's sections and the
  tables the page already holds: a table is only ever replaced by a run of its own benchmark.

Run it under the build lock on a shared machine, so that no compile runs beside a benchmark:
  flock /tmp/linkscope-build.lock tools/write_benchmarks.py --run sparse_ncbi

A section whose benchmark was never run through this script says so and gives the command. The
history of earlier figures stays in git: each section keeps at most five past findings, each with
the commit that holds it (`git show COMMIT:docs/benchmarks.md`).
"""
import argparse
import json
import os
import platform
import re
import resource
import subprocess
import sys
import textwrap
import time
from datetime import datetime, timezone
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
MAX_FINDINGS = 5

# Each benchmark: the question it answers, how this script runs it ({bin}, {data}, {source} are
# filled in), the environment it needs, whether it fits a 2-core development machine in a few
# minutes ("here"), what to say when it does not, the lists of its JSON left out of the page
# (still in OUT/NAME.json), and at most five past findings with their commits.
SECTIONS = [
    {
        "name": "ui_stall",
        "title": "GUI event-loop stalls",
        "question": "Does the GUI thread ever stop answering for more than 100 ms while a project "
                    "opens (KB indexed, sparse ranker built, every mention's proposal ranked) and "
                    "while a training runs? A 5 ms timer ticks on the GUI thread; a gap between "
                    "two ticks is time the user waited. The target: no stall over 100 ms. Without "
                    "--manifest it opens NCBI Disease (train, dev, test) with MEDIC from the shared "
                    "data; `--manifest` opens any project, e.g. the UMLS + MedMentions-size one of "
                    "benchmarks/generate_umls_medmentions.py (not run on this machine: "
                    "`tools/write_benchmarks.py --run ui_stall --manifest FILE` on one with 16 GB). "
                    "The same window on a team project: ui_stall_team.",
        "args": [],
        "env": {"QT_QPA_PLATFORM": "offscreen"},
        "here": True,
        "findings": [
            ("8f7579c", "first measured: opening NCBI Disease + MEDIC stalled 209 to 277 ms, training 105.5 ms"),
            ("ba7c7c9", "after painting stopped waiting on the global thread pool (each job on its own pool): "
                        "every phase under 100 ms on NCBI Disease + MEDIC"),
            ("c575827", "UMLS + MedMentions size: window at 31 s, a 3.7 s stall traced to the raw file view"),
            ("3425cef", "stalls over 100 ms at UMLS size came with the real-time probe late by as much: "
                        "the VM's CPUs did not run (see page_fault_stall)"),
            ("7834175", "UMLS + MedMentions size on a fresh 2-core machine: window at 10 to 12 s, "
                        "longest stall 57.8 ms, peak 7.0 GiB; all of the GUI targets met there"),
        ],
    },
    {
        "name": "sparse_ncbi",
        "title": "Sparse retrieval on NCBI Disease",
        "question": "How fast and how accurate is the sparse (character 1-2 gram TF-IDF) half of "
                    "BioSyn's NCBI Disease test evaluation, on BioSyn's own preprocessed test set? "
                    "benchmarks/sklearn_sparse.py runs the same pipeline with scikit-learn.",
        "args": [],
        "here": True,
        "findings": [
            ("913b2a9", "build + search 33x faster than scikit-learn (0.178 s against 5.80 s on 2 threads); "
                        "both give Acc@1 0.8771 and Acc@5 0.9052 with the same model"),
            ("913b2a9", "tiles of 1,024 names with dense columns for the most common terms made the "
                        "exact search fast; the search stays bit-exact against brute force"),
        ],
    },
    {
        "name": "sparse_dump",
        "title": "TF-IDF model against scikit-learn",
        "question": "Is Linkscope's TF-IDF model the one scikit-learn fits? sparse_dump writes the "
                    "model of a list of names as JSON (its output is always JSON; --json changes "
                    "nothing) and benchmarks/sklearn_tfidf_check.py compares it term by term with "
                    "scikit-learn's. It has no figures table: the check passes or names the first "
                    "difference.",
        "command": "/usr/bin/python3 benchmarks/sklearn_tfidf_check.py --dump build/default/bin/sparse_dump",
        "here": False,
        "not_run": "a check rather than a measurement (and scikit-learn is not installed here); run the "
                   "command above by hand",
        "findings": [
            ("913b2a9", "identical vocabularies and analyzed terms for nine analyzer settings; largest "
                        "weight difference 2.9e-8 (float rounding)"),
        ],
    },
    {
        "name": "startup",
        "title": "Starting a command",
        "question": "What does starting each command cost, as whole processes: wall time, CPU time, "
                    "peak memory and the shared libraries loaded, for `linkscope-cli --version`, "
                    "`stats` on the demo project, the sparse `eval` on NCBI Disease test (and its "
                    "scikit-learn peer, benchmarks/sklearn_sparse.py, in the same run), `encode` with "
                    "a compact encoder (a command that needs LibTorch), and the GUI's first paint on "
                    "the demo project? With --baseline-bin an earlier build's programs run beside, "
                    "alternating. The targets: --version at most 50 ms, stats at most 100 ms, the "
                    "sparse eval at least 20x the peer, the window painted within 1 s, commands "
                    "that need LibTorch no slower than before.",
        "args": ["--data", "{data}"],
        "here": True,
        "summary": "What a start costs (every figure is in the tables above, from this run). `linkscope-cli` "
                   "maps only the engine, libstdc++, ICU (its data file mapped, not read), SQLite, pugixml, "
                   "zlib and the C library: what is left of its start is the dynamic loader mapping and "
                   "relocating them. The baseline rows are a build with LibTorch linked into every program "
                   "(commit df77269): most of their CPU time before main is LibTorch's static initialisers "
                   "registering its operators. LibTorch, FAISS and OpenMP load only in linkscope-cli-dense. "
                   "OpenBLAS loads at the first inner product (as it loads it relocates its kernel tables "
                   "and starts its thread pool), and libpq with its TLS, Kerberos and LDAP libraries at the "
                   "first PostgreSQL call, so that a command that uses neither pays for neither. `eval`, "
                   "`link`, `index` and `encode` start twice: they restart themselves with huge pages "
                   "(util/huge_pages.h), which costs the light program little (the images column). "
                   "`encode` runs three images (the light program, its restart, then linkscope-cli-dense "
                   "with LibTorch) and is still faster than the baseline, which loads LibTorch in both of "
                   "its starts. The GUI paints its window without the dense module. The sparse eval's "
                   "search adds the frequent terms' columns eight names at a time with AVX2, each score "
                   "the same float as the scalar loop's; its start is a small part of its time, the rest "
                   "is its work (reading MEDIC and the corpora, the TF-IDF fit, the search). Fit and search "
                   "run on both cores, so its wall time is below its CPU time: on a machine busy with other "
                   "work the wall time grows towards the CPU time, and its ratio to the peer falls towards "
                   "the ratio of the two cpu_ms figures, which is the margin to read against the 20x "
                   "target. The peer's time includes importing scikit-learn and extracting BioSyn's "
                   "archive.",
        "findings": [],
    },
    {
        "name": "kb_search",
        "title": "Entity search as the curator types",
        "question": "How long does the GUI's entity search take on MEDIC for every prefix a curator "
                    "types? It runs on the GUI thread at each key press, so each search must stay far "
                    "below 100 ms.",
        "args": ["--kb", "{data}/medic/medic_06Jul2012.txt"],
        "here": True,
        "skip": ["prefixes"],
        # Of the per-length rows, the page shows the one over every search.
        "rows": {"by_length": lambda row: row.get("length") == "all"},
        "findings": [
            ("8a0f5d8", "MEDIC: median search 0.022 ms, slowest 6.9 ms of 2,750 on a loaded machine"),
            ("7f2c137", "UMLS size: substring queries read 3-gram postings instead of a scan; "
                        "160-220 ms became at most 20 ms on 8.4 M names"),
        ],
    },
    {
        "name": "review_queue",
        "title": "Review queue and reach preview",
        "question": "On NCBI Disease + MEDIC with the sparse ranker, how long do the whole review "
                    "queue (F8, the Worth reviewing filter) and the Candidates dock's reach preview "
                    "per candidate take on the GUI thread?",
        "args": [],
        "env": {"QT_QPA_PLATFORM": "offscreen"},
        "here": True,
        "findings": [
            ("38c9621", "whole queue median 11 ms, reach preview per candidate 1.2 ms (p99 17 and 5.5 ms "
                        "under load)"),
            ("e5f0e6b", "with a trained run the preview lists the mentions whose proposal the decision's "
                        "kNN key would change"),
        ],
    },
    {
        "name": "knn_datastore",
        "title": "kNN datastore",
        "question": "At the size a curator's project reaches (100,000 keys of 14,000 entities, 256 and "
                    "768 dimensions), how long do adding a key, removing one (undo), searching, a "
                    "batch of 256 queries and saving + loading the store take?",
        "args": [],
        "here": True,
        "findings": [
            ("1bbf80c", "first measured: add and remove in microseconds, one search about 10 ms at 256 "
                        "dimensions on a loaded machine"),
            ("56a8fc9", "a batch of 256 queries scored by matrix products: 8-10x faster per query than "
                        "one call each, with the same answers"),
        ],
    },
    {
        "name": "feedback_latency",
        "title": "A curator's decision through the feedback loop",
        "question": "How long does a curator's decision take to change the next prediction, end to "
                    "end through curation::FeedbackLoop, with 100,000 datastore keys? The budget: "
                    "well under 50 ms.",
        "args": [],
        "here": True,
        "findings": [
            ("1bbf80c", "record in microseconds, the next predict 17 ms median at 100,000 keys on a "
                        "loaded machine: under the 50 ms budget"),
            ("2dfefa3", "the first prediction after prepare() was far slower than the next ones; the "
                        "benchmark names its slowest predict (see page_fault_stall)"),
        ],
    },
    {
        "name": "page_fault_stall",
        "title": "Page faults and unmaps against another CPU",
        "question": "Does one thread's page faulting and unmapping of a large block stall the other "
                    "CPUs of the machine (a real-time probe pinned to another CPU wakes late), with "
                    "4 KiB pages and with transparent huge pages?",
        "args": [],
        "here": True,
        "findings": [
            ("2dfefa3", "on the development VM a worker's 4 KiB page faults and unmaps stalled the other "
                        "CPU; with huge pages those pauses went away"),
            ("7834175", "a fresh 2-core machine showed no such pauses with 4 KiB pages either"),
        ],
    },
    {
        "name": "kb_memory",
        "title": "KB memory at UMLS size",
        "question": "How much memory and time does a knowledge base of UMLS size (3.5 M concepts, "
                    "8 M names, generated) cost to load through the UMLS loader and to expand "
                    "homonyms in?",
        "args": [],
        "here": True,
        "findings": [
            ("cd29db2", "1.1 GiB peak while loading, 0.8 GiB once loaded, 1.3 GiB with the normalized "
                        "homonym expansion; under 20 s on 2 cores"),
            ("de341ae", "the loader's reserve from the file's size: load 17.1 s to 14.9 s, peak unchanged"),
        ],
    },
    {
        "name": "string_pool_intern",
        "title": "The string pool at UMLS shape",
        "question": "How long does the string pool's part of loading UMLS take: 8 M rows' CUIs looked "
                    "up and interned, their names interned and looked up again? "
                    "benchmarks/string_pool_ab.sh builds it against two commits' pools.",
        "args": [],
        "here": True,
        "findings": [
            ("a23b14f", "tag bytes: lookups a quarter to a third faster; reserved first, 8 M names "
                        "intern in 1.73 s instead of 6.15 s"),
        ],
    },
    {
        "name": "dense_faiss",
        "title": "Dense retrieval with FAISS",
        "question": "What build time, memory, query throughput and recall against exact search do "
                    "the flat, HNSW and IVF-PQ indexes give on Gaussian-mixture vectors, and how "
                    "long does loading a saved index take? At NCBI/BC5CDR dictionary size (73,000 "
                    "names) and a UMLS subset (1,000,000 names).",
        "args": [],
        "here": False,
        "not_run": "its HNSW build over 73,000 names of 768 dimensions alone holds 2 cores far longer "
                   "than a few minutes; run it on a machine with more cores: tools/write_benchmarks.py "
                   "--run dense_faiss (or by hand, without HNSW: build/default/bin/dense_faiss --rows "
                   "73000 --kinds flat,ivf-pq)",
        "findings": [
            ("03d1d76", "first measured at 73,000 and 1,000,000 names in 768 and 128 dimensions"),
            ("ec728c1", "loading a saved index after the FAISS payload walk timed per index"),
        ],
    },
    {
        "name": "encode_speed",
        "title": "Encoding speed on the CPU",
        "question": "How many names a second does TextEncoder encode on the CPU, with the compact "
                    "encoder and with a BERT-base-sized model?",
        "args": [],
        "here": True,
        "findings": [
            ("03d1d76", "compact encoder about 1,500 names/s, BERT-base size 40 names/s on 2 shared "
                        "cores: pretrained checkpoints are meant for the GPU"),
        ],
    },
    {
        "name": "checkpoint_load",
        "title": "Loading a downloaded checkpoint",
        "question": "How long does loading a BERT-base-size checkpoint take from model.safetensors "
                    "and from its pytorch_model.bin twins (torch's zip and legacy formats, read by "
                    "the restricted unpickler)? The target: a .bin loads at least as fast as its "
                    "safetensors twin. The benchmark writes the three files itself (random weights) "
                    "and checks that each gives the same vector.",
        "args": [],
        "here": True,
        "findings": [],
    },
    {
        "name": "model_linking",
        "title": "Linking a project with a trained run",
        "question": "What does the GUI's Link with a Trained Run build on its worker (stage by "
                    "stage, peak memory), and what does each decision then cost on the GUI thread: "
                    "ranking a mention, feeding the key, re-ranking the mentions it reaches, undo?",
        "command": "build/default/bin/model_linking MANIFEST RUN --decisions 300 --json",
        "here": False,
        "not_run": "it needs a trained run (linkscope-cli train, e.g. the triplet preset's short "
                   "schedule; see docs/results.md); then run: tools/write_benchmarks.py --run "
                   "model_linking --manifest MANIFEST --model-run RUN",
        "findings": [
            ("ba7c7c9", "NCBI Disease + MEDIC with a triplet run: the worker's build 24.6 s, peak 562 MB"),
            ("a3b0e16", "kept neighbour lists at MedMentions size: 300 decisions and 150 undos in seconds "
                        "(unfinished after 56 min before)"),
            ("749f1c6", "sieve mode keeps each mention's nearest names: a turn of 24 reached mentions "
                        "328 ms to at most 7 ms"),
        ],
    },
    {
        "name": "sparse_scale",
        "title": "Sparse linking at UMLS size",
        "question": "With a UMLS-size KB and a MedMentions-size corpus (generated), what do the "
                    "approximate sparse search's time, memory and recall@64 against exact search come "
                    "to?",
        "command": "python3 benchmarks/generate_umls_medmentions.py --out /tmp/umls-mm && "
                   "build/default/bin/sparse_scale --dir /tmp/umls-mm --json",
        "here": False,
        "not_run": "UMLS size: the generated data takes about 4 GB of disk and the run several GB of "
                   "memory and minutes on many cores; run: tools/write_benchmarks.py --run sparse_scale "
                   "--umls-dir /tmp/umls-mm",
        "findings": [
            ("6c4e0fc", "approximate search keeps 0.996 of exact recall@64; eval 5 min 33 s, 7.6 GiB"),
            ("77215c7", "after the two-pass TF-IDF fit: eval 2 min 36 s, 6.27 GB on 2 cores"),
            ("ccea19b", "16-bit row ids: approximate index 2.94 GiB, eval peak 5.76 GB in 2 min 7 s"),
        ],
    },
    {
        "name": "dense_scale",
        "title": "Dense candidates at UMLS size",
        "question": "Encoding every name of a UMLS-size dictionary into the IVF-fp16 index chunk by "
                    "chunk: build time, memory, and recall@64 against exact search per probe count.",
        "command": "build/default/bin/dense_scale --dir /tmp/umls-mm --model RUN/model --json",
        "here": False,
        "not_run": "UMLS size on a GPU (every name encoded); tools/gpu_check.sh runs it on a GPU "
                   "machine; run: tools/write_benchmarks.py --run dense_scale --umls-dir /tmp/umls-mm "
                   "--model MODEL_DIR",
        "findings": [
            ("4553782", "a million generated names: index 0.49 GiB, recall@64 0.94 at 64 probes, "
                        "0.97 at 128"),
            ("c546a96", "all 5,333,170 names on an H200: encoded and built in 111.7 s, index 2.62 GiB"),
        ],
    },
    {
        "name": "link_speed",
        "title": "Linking a corpus with linkscope-cli link",
        "question": "How many mentions a second does `linkscope-cli link` write, run as a user runs "
                    "it? On NCBI Disease test + MEDIC: mentions per second and per CPU-second of the "
                    "sparse linker (and of a trained run with --model-run), the set-up timed apart. "
                    "At UMLS size (--umls-dir, generate_umls_medmentions.py's full-size output): "
                    "link --method sparse on the MedMentions-size test split, wall time and peak "
                    "memory against the target of 3 minutes and 8 GB on 2 cores, with the sparse "
                    "index built once by `linkscope-cli index` (timed apart) and loaded from disk.",
        "script": ["benchmarks/link_speed.py", "--cli", "{bin}/linkscope-cli", "--work", "{out}/link_speed",
                   "--data", "{data}"],
        "here": True,
        "findings": [],
    },
    {
        "name": "link_memory",
        "title": "Peak memory of link on 1x and 10x a corpus",
        "question": "Does `linkscope-cli link` stream its input? Its peak resident memory on a "
                    "generated corpus (a 1 % UMLS-size KB, 400 documents) and on the same corpus "
                    "ten times over; the target: at most 10 % more on the tenfold corpus.",
        "script": ["benchmarks/link_memory.py", "--cli", "{bin}/linkscope-cli", "--work", "{out}/link_memory"],
        "here": True,
        "findings": [],
    },
    {
        "name": "team_curation",
        "title": "A team curating on one PostgreSQL server",
        "question": "How many decisions a second does one PostgreSQL server on this machine take from "
                    "a team, and how soon does another client read each one? 8 and 32 simulated "
                    "curators (`linkscope-cli simulate-curation --curator`, one process and one login "
                    "each) decide NCBI Disease dev at one decision a second each through claims, "
                    "ranked by the sparse ranker over MEDIC, against a server the benchmark starts "
                    "(Unix socket, fsync on). Sustained decisions per second while every curator "
                    "decides; commit latency in the curators; from a decision to another client "
                    "reading it through LISTEN (the benchmark's own client, and the worst p99 of the "
                    "curators reading each other); from a decision to the other curators' review "
                    "queues re-ranked with it (reranked: pooled from the committer's record() "
                    "returning, a lower bound; curators_worst_reranked_p99_ms from the decision's "
                    "timestamp, an upper bound). The target: commit to re-ranked on every other "
                    "client, p99 at most 1 s.",
        "args": ["--data", "{data}"],
        "here": True,
        "findings": [],
    },
    {
        "name": "ui_stall_team",
        "binary": "ui_stall",
        "title": "GUI event-loop stalls while a team writes",
        "question": "Does the GUI thread stop answering for more than 100 ms while other curators "
                    "write to the team project it has open? ui_stall with `--team-curators 8`: it "
                    "starts a PostgreSQL server (Unix socket, fsync on), opens NCBI Disease (train, "
                    "dev) with MEDIC there as a curator's login, links with the trained run given by "
                    "--model-run (the sparse ranker without one), starts 8 simulated curators "
                    "(linkscope-cli simulate-curation --curator, one process and one login each) at "
                    "one decision a second each, and measures the stalls over 30 s of their decisions "
                    "arriving, entering the kNN datastore and re-ranking the mentions they reach. The "
                    "target: no stall over 100 ms.",
        "args": ["--team-curators", "8"],
        "command": "QT_QPA_PLATFORM=offscreen build/default/bin/ui_stall --team-curators 8 [--run RUN] --json",
        "env": {"QT_QPA_PLATFORM": "offscreen"},
        "here": True,
        "findings": [],
    },
]
BY_NAME = {section["name"]: section for section in SECTIONS}
HERE = [section["name"] for section in SECTIONS if section["here"]]


def begin_marker(name):
    return f"<!-- bench:{name}:begin -->"


def end_marker(name):
    return f"<!-- bench:{name}:end -->"


def git(*args):
    return subprocess.run(["git", *args], cwd=ROOT, capture_output=True, text=True).stdout.strip()


def machine():
    """Cores, memory, CPU model and the build type, as this machine reports them."""
    model = platform.processor() or platform.machine()
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                model = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    memory_gib = None
    try:
        for line in Path("/proc/meminfo").read_text().splitlines():
            if line.startswith("MemTotal:"):
                memory_gib = int(line.split()[1]) / 1024 / 1024
    except OSError:
        pass
    build_type = None
    cache = ROOT / "build" / "default" / "CMakeCache.txt"
    if cache.exists():
        match = re.search(r"^CMAKE_BUILD_TYPE:\w+=(.*)$", cache.read_text(), re.MULTILINE)
        build_type = match.group(1) if match else None
    return {"cores": os.cpu_count(), "memory_gib": memory_gib, "cpu": model, "build_type": build_type,
            "system": f"{platform.system()} {platform.release()}"}


def command_of(section, args):
    """The command line this script runs for a section, or None when it takes options it lacks."""
    binary = str(Path(args.bin) / section.get("binary", section["name"]))
    values = {"data": args.data}
    if section["name"] == "model_linking":
        if not (args.manifest and args.model_run):
            return None
        return [binary, args.manifest, args.model_run, "--json"]
    if section["name"] == "sparse_scale":
        return [binary, "--dir", args.umls_dir, "--json"] if args.umls_dir else None
    if section["name"] == "dense_scale":
        return [binary, "--dir", args.umls_dir, "--model", args.model, "--json"] \
            if args.umls_dir and args.model else None
    if "script" in section:
        # A Python benchmark: it spawns linkscope-cli itself, as a user runs it.
        values = {"bin": args.bin, "data": args.data, "out": args.out}
        command = [sys.executable, str(ROOT / section["script"][0])]
        command += [item.format(**values) for item in section["script"][1:]]
        if section["name"] == "link_speed":
            command += ["--umls-dir", args.umls_dir] if args.umls_dir else []
            command += ["--run", args.model_run] if args.model_run else []
        return command + ["--json"]
    if "args" not in section:
        return None
    command = [binary]
    if section["name"] == "startup" and args.baseline_bin:
        baseline = Path(args.baseline_bin)
        command += ["--baseline-cli", str(baseline / "linkscope-cli"), "--baseline-gui", str(baseline / "linkscope")]
    if section["name"] == "ui_stall" and args.manifest:
        command += ["--manifest", args.manifest]
    if section["name"] == "ui_stall_team" and args.model_run:
        command += ["--run", args.model_run]
    for item in section["args"]:
        command.append(item.format(**values))
    return command + ["--json"]


def busy_cpu_seconds():
    """CPU time this machine's processes and kernel have spent since boot (/proc/stat, all cores:
    user, nice, system, irq, softirq; not idle, iowait, or the steal of a virtual machine's host)."""
    fields = [int(value) for value in Path("/proc/stat").read_text().split("\n", 1)[0].split()[1:]]
    user, nice, system, _idle, _iowait, irq, softirq = fields[:7]
    return (user + nice + system + irq + softirq) / os.sysconf("SC_CLK_TCK")


def children_cpu_seconds():
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def run_one(section, args, out):
    """Runs one benchmark with --json; writes OUT/NAME.json (its output and the stamp) and
    OUT/NAME.log (its human output); returns the record."""
    command = command_of(section, args)
    if command is None:
        sys.exit(f"{section['name']}: {section.get('not_run', 'no command')}")
    env = dict(os.environ, LINKSCOPE_DATA_DIR=str(Path(args.data).resolve()), **section.get("env", {}))
    with open("/proc/loadavg") as handle:
        load_before = float(handle.read().split()[0])
    log = out / (section["name"] + ".log")
    print("+ " + " ".join(command), flush=True)
    started, busy, own = time.monotonic(), busy_cpu_seconds(), children_cpu_seconds()
    with open(log, "w") as errors:
        result = subprocess.run(command, cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=errors, text=True)
    seconds = time.monotonic() - started
    # What the rest of the machine did meanwhile: its busy CPU time less the benchmark's own.
    own = children_cpu_seconds() - own
    others = max(0.0, busy_cpu_seconds() - busy - own)
    if result.returncode != 0:
        print(f"{section['name']} failed with status {result.returncode}; its output is in {log}", flush=True)
        return None
    record = {
        "output": json.loads(result.stdout),
        "command": [str(Path(part).relative_to(ROOT)) if part.startswith(str(ROOT) + "/") else part
                    for part in command],
        "environment": section.get("env", {}),
        "seconds": seconds,
        "commit": git("rev-parse", "--short", "HEAD"),
        "benchmarks_changed": bool(git("status", "--porcelain", "--", "benchmarks", "core", "ui")),
        "date": datetime.now(timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
        "machine": machine(),
        "load_average_before": load_before,
        "cpu_seconds": own,
        "other_cpu_seconds": others,
        "note": args.note,
    }
    (out / (section["name"] + ".json")).write_text(json.dumps(record, indent=2) + "\n")
    return record


def cell(value):
    """A figure as the tables print it: integers with separators, floats to four significant
    digits (no exponent below 1e-4 is needed for these figures), booleans as yes/no."""
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, int):
        return f"{value:,}"
    if isinstance(value, float):
        if value != value:
            return "-"
        if abs(value) >= 1000:
            return f"{value:,.0f}"
        if abs(value) >= 100:
            return f"{value:.1f}"
        return f"{value:.4g}"
    if value is None:
        return "-"
    if isinstance(value, (list, dict)):
        return json.dumps(value)
    return str(value).replace("|", "\\|").replace("\n", " ")


def flatten(prefix, value, into):
    if isinstance(value, dict):
        for key, item in value.items():
            flatten(f"{prefix}.{key}" if prefix else key, item, into)
    else:
        into[prefix] = value


def render_block(section, record):
    """The lines between a section's markers: the stamp, the parameters, the tables."""
    output, where = record["output"], record["machine"]
    memory = f"{where['memory_gib']:.1f} GiB" if where.get("memory_gib") else "unknown memory"
    changed = " (with uncommitted changes in benchmarks/, core/ or ui/)" if record.get("benchmarks_changed") else ""
    environment = " ".join(f"{k}={v}" for k, v in record.get("environment", {}).items())
    command = (environment + " " if environment else "") + " ".join(record["command"])
    stamp = [
        f"Run by tools/write_benchmarks.py on commit `{record['commit']}`{changed}, {record['date']}, "
        f"in {record['seconds']:.0f} s: `{command}`.",
        f"Machine: {where['cores']} cores, {where['cpu']}, {memory}, {where.get('system', '')}, "
        f"{where.get('build_type') or 'unknown'} build; load average {record['load_average_before']:.2f} "
        f"before the run; the benchmark used {record['cpu_seconds']:.0f} CPU-seconds and other processes "
        f"{record['other_cpu_seconds']:.0f} of the {record['seconds'] * where['cores']:.0f} the cores had "
        "meanwhile." + (f" {record['note']}" if record.get("note") else ""),
    ]
    parameters = {}
    flatten("", output.get("parameters", {}), parameters)
    if parameters:
        shown = [f"{key} {cell(value)}" for key, value in parameters.items() if value not in ("", None)]
        stamp.append("Parameters: " + ", ".join(shown) + ".")
    lines = []
    for paragraph in stamp:
        if paragraph:
            lines += textwrap.wrap(paragraph, 100, break_on_hyphens=False, break_long_words=False)
        lines.append("")
    scalars, tables = {}, {}
    for key, value in output.get("figures", {}).items():
        if isinstance(value, list) and (not value or isinstance(value[0], dict)):
            if key not in section.get("skip", []):
                tables[key] = value
        else:
            flatten(key, value, scalars)
    if scalars:
        lines += ["| figure | value |", "| --- | ---: |"]
        lines += [f"| {key} | {cell(value)} |" for key, value in scalars.items()]
        lines.append("")
    for key, rows in tables.items():
        keep = section.get("rows", {}).get(key)
        if keep:
            shown = [row for row in rows if keep(row)]
            lines.append(f"{key} ({len(shown)} of {len(rows)} rows; all of them in the run's JSON):")
            rows = shown
        else:
            lines.append(f"{key}:")
        lines.append("")
        if not rows:
            lines += ["(none)", ""]
            continue
        columns = []
        for row in rows:
            for column in row:
                if column not in columns:
                    columns.append(column)
        lines.append("| " + " | ".join(columns) + " |")
        lines.append("| " + " | ".join("---:" if isinstance(rows[0].get(c), (int, float)) and
                                        not isinstance(rows[0].get(c), bool) else "---" for c in columns) + " |")
        for row in rows:
            lines.append("| " + " | ".join(cell(row.get(column)) for column in columns) + " |")
        lines.append("")
    left_out = [key for key in section.get("skip", []) if key in output.get("figures", {})]
    if left_out:
        lines += [f"Left out here, in the run's JSON: {', '.join(left_out)}.", ""]
    return lines[:-1] if lines and lines[-1] == "" else lines


def not_run_block(section):
    if section["here"]:
        return ["Not yet run with tools/write_benchmarks.py; run: "
                f"`flock /tmp/linkscope-build.lock tools/write_benchmarks.py --run {section['name']}`."]
    return textwrap.wrap(f"Not run on this machine: {section['not_run']}.", 100, break_on_hyphens=False)


def existing_blocks(doc):
    """Each section's current block, from the page as it is."""
    blocks = {}
    if not doc.exists():
        return blocks
    text = doc.read_text()
    for section in SECTIONS:
        begin, end = begin_marker(section["name"]), end_marker(section["name"])
        if begin in text and end in text:
            inner = text.split(begin, 1)[1].split(end, 1)[0].strip("\n")
            if not inner.startswith(("Not yet run", "Not run on this machine")):
                blocks[section["name"]] = inner.split("\n")
    return blocks


def display_command(section, args):
    if "command" in section:
        return section["command"]
    if "script" in section:
        parts = ["python3"] + [item.replace("{bin}", "build/default/bin").replace("{data}", "../shared/data")
                               .replace("{out}", "build/bench-runs") for item in section["script"]]
        return " ".join(parts) + " --json"
    environment = " ".join(f"{k}={v}" for k, v in section.get("env", {}).items())
    parts = [f"build/default/bin/{section.get('binary', section['name'])}"] + [
        item.replace("{data}", "../shared/data").replace("{manifest}", "MANIFEST") for item in section["args"]]
    return (environment + " " if environment else "") + " ".join(parts) + " --json"


def write_doc(doc, blocks, args):
    lines = [
        "# Benchmarks",
        "",
        "Written by `tools/write_benchmarks.py`; every table below comes from a benchmark's `--json`",
        "output (benchmarks/json_report.h), stamped with the commit, the date and the machine. Rerun",
        "one benchmark with `flock /tmp/linkscope-build.lock tools/write_benchmarks.py --run NAME`:",
        "its table is replaced and nothing else. `--run here` runs every benchmark that fits a 2-core",
        "machine in a few minutes. The benchmarks measure; they are not tests and ctest does not run",
        "them. Build them without sanitizers, otherwise the figures describe the sanitizers.",
        "",
        "Each section keeps at most five past findings, each with the commit that recorded it; the",
        "full notebook of earlier runs is in git (`git show 88e03ec:docs/benchmarks.md`).",
        "",
    ]
    for section in SECTIONS:
        name = section["name"]
        lines += [f"## {section['title']} (`{name}`)", ""]
        lines += textwrap.wrap(section["question"], 100, break_on_hyphens=False) + ["",
                  f"Command: `{display_command(section, args)}`", "", begin_marker(name)]
        lines += blocks.get(name) or not_run_block(section)
        lines += [end_marker(name), ""]
        if section.get("summary"):
            # What the figures above mean, written with the run that the page holds.
            lines += textwrap.wrap(section["summary"], 100, break_on_hyphens=False) + [""]
        findings = section["findings"][:MAX_FINDINGS]
        if findings:
            lines += ["Past findings:", ""]
            for commit, text in findings:
                lines += textwrap.wrap(f"- `{commit}`: {text}.", 100, subsequent_indent="  ",
                                       break_on_hyphens=False)
            lines.append("")
    doc.write_text("\n".join(lines).rstrip("\n") + "\n")
    return len(lines)


def names_of(text):
    if not text:
        return []
    names = HERE if text == "here" else [name.strip() for name in text.split(",") if name.strip()]
    unknown = [name for name in names if name not in BY_NAME]
    if unknown:
        sys.exit(f"unknown benchmark(s): {', '.join(unknown)}; known: {', '.join(BY_NAME)}")
    return names


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--run", help="benchmarks to run (comma-separated, or `here`)")
    parser.add_argument("--tables", help="benchmarks whose tables to rewrite from OUT's records")
    parser.add_argument("--note", default="", help="a sentence stamped on the tables written now")
    parser.add_argument("--bin", default=str(ROOT / "build" / "default" / "bin"))
    parser.add_argument("--data", default=os.environ.get("LINKSCOPE_DATA_DIR", str(ROOT.parent / "shared" / "data")))
    parser.add_argument("--out", default=str(ROOT / "build" / "bench-runs"))
    parser.add_argument("--doc", default=str(ROOT / "docs" / "benchmarks.md"))
    parser.add_argument("--manifest", help="ui_stall's and model_linking's project manifest "
                                           "(ui_stall without it: NCBI Disease + MEDIC from --data)")
    parser.add_argument("--model-run", help="model_linking's, link_speed's and ui_stall_team's trained run folder")
    parser.add_argument("--umls-dir", help="generate_umls_medmentions.py's output (sparse_scale, dense_scale, "
                                           "link_speed)")
    parser.add_argument("--model", help="dense_scale's encoder folder")
    parser.add_argument("--baseline-bin", help="startup: an earlier build's bin folder, measured beside this one")
    args = parser.parse_args()
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    doc = Path(args.doc)
    blocks = existing_blocks(doc)
    failed = []
    for name in names_of(args.run):
        record = run_one(BY_NAME[name], args, out)
        if record is None:
            failed.append(name)  # its table stays as it was
            continue
        blocks[name] = render_block(BY_NAME[name], record)
        write_doc(doc, blocks, args)  # after each run: a later failure keeps the tables so far
    for name in names_of(args.tables):
        record_file = out / (name + ".json")
        if not record_file.exists():
            sys.exit(f"{record_file}: no record; run --run {name} first")
        record = json.loads(record_file.read_text())
        if args.note:
            record["note"] = args.note  # a note given now replaces the one of the run
        blocks[name] = render_block(BY_NAME[name], record)
    count = write_doc(doc, blocks, args)
    print(f"wrote {doc} ({count} lines)")
    if failed:
        sys.exit(f"failed: {', '.join(failed)}")


if __name__ == "__main__":
    main()
