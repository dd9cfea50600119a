#!/usr/bin/env python3
"""Runs the experiments of docs/results.md that compare the starts of the five presets, records
their figures in docs/results.json and renders docs/results.md's tables from that record.

Runs, with the built linkscope-cli and the data of ../shared/data:
  1. `pretrain`: SapBERT's self-alignment of the compact encoder on MEDIC (short schedule),
     validated on NCBI Disease dev; with `--mlm`, after the masked-LM stage (models/mlm.json,
     short schedule) on the titles and abstracts of NCBI Disease's and BC5CDR's training and dev
     splits (never their test splits);
  2. the pretrained encoder alone (dense, no fine-tuning) on NCBI Disease test;
  3. every preset's short schedule from both starts (random: the compact encoder from scratch;
     pretrained: the encoder of step 1) on NCBI Disease (evaluated on test) and BC5CDR-Disease
     (evaluated on dev); the presets that read mentions in context (belhd, prototype-srn) also
     from a third start, "context": the encoder of step 1 after the context alignment
     (models/context-alignment.json) on that corpus's training mentions;
  4. on NCBI Disease, each run's linking chosen on dev among its own and kNN-BioEL's
     interpolation, then evaluated once on test.

Every step records its wall time, peak memory (of the child process) and HEAD's commit in
OUT/steps/NAME.json and is skipped when that record exists, so an interrupted reproduction goes on
where it stopped (`--fresh` starts over). `--only` limits the steps (e.g. `--only pretrain,encoder`).

Then the figures OUT holds (the runs' run.json and the evaluations' JSON reports: no figure is
typed by hand) are recorded in docs/results.json as experiment `--experiment` (default "presets"),
each row with the commit and date of its step; a row replaces the experiment's row with the same
preset, start and corpus, and the rows OUT does not hold stay (tools/results_record.py). Last,
docs/results.md's summary table and one block per experiment are rendered from the record.
`--tables` runs nothing: it records what OUT holds, if anything, and renders the document.

  tools/reproduce_results.py [--cli build/default/bin/linkscope-cli] [--data ../shared/data]
                             [--out results-runs] [--presets biosyn,triplet,...] [--starts random,pretrained,context]
                             [--only STEPS] [--mlm] [--experiment presets] [--record docs/results.json]
                             [--tables] [--fresh]
"""
import argparse
import json
import os
import resource
import shutil
import subprocess
import sys
import time
from datetime import datetime, timezone
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from results_record import (LINKING_GRID, PRESETS, STARTS, best_linking, collect, head_commit,  # noqa: E402
                            load_record, merge, read_json, save_record, write_document)

ROOT = Path(__file__).resolve().parent.parent
# The presets that read the mention in its sentence, pooled at markers: only they take the
# context-aligned start.
CONTEXT_PRESETS = ["belhd", "prototype-srn"]


def corpora(data: Path):
    """The two benchmarks (results_record.CORPORA): training options and the evaluation's options."""
    ncbi = data / "ncbi-disease"
    medic = data / "medic"
    bc5 = data / "bc5cdr"
    return {
        "ncbi": {
            "train": ["--train", str(ncbi / "NCBItrainset_corpus.txt"), "--dev", str(ncbi / "NCBIdevelopset_corpus.txt"),
                      "--kb", str(medic / "medic_06Jul2012.txt"), "--spelling", str(medic / "ncbi-spell-check.txt")],
            "eval": ["--test", str(ncbi / "NCBItestset_corpus.txt"), "--split", "test"],
        },
        "bc5cdr": {
            "train": ["--train", str(bc5 / "CDR_TrainingSet.PubTator.txt"), "--dev", str(bc5 / "CDR_DevelopmentSet.PubTator.txt"),
                      "--kb", str(medic / "medic_06Jul2012.txt"), "--types", "Disease"],
            "eval": ["--split", "dev"],
        },
    }


def run_step(out: Path, name: str, command, log: Path, stdout_file: Path = None, output_dir: Path = None):
    """Runs one command unless its record exists; returns the record (seconds, peak memory, HEAD's
    commit when it started).
    With stdout_file, the command's standard output (e.g. `eval --json`) goes there and only its
    standard error to the log."""
    record_file = out / "steps" / (name + ".json")
    if record_file.exists():
        return json.loads(record_file.read_text())
    record_file.parent.mkdir(parents=True, exist_ok=True)
    log.parent.mkdir(parents=True, exist_ok=True)
    # A step without its record did not finish (the script was stopped): what it left of its
    # output folder goes, so that the command starts afresh rather than refusing the folder.
    if output_dir is not None and output_dir.exists():
        shutil.rmtree(output_dir)
    print("+ " + " ".join(command), flush=True)
    commit = head_commit(ROOT)
    before = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    started = time.monotonic()
    with open(log, "w") as handle:
        if stdout_file:
            with open(stdout_file, "w") as output:
                status = subprocess.call(command, stdout=output, stderr=handle)
        else:
            status = subprocess.call(command, stdout=handle, stderr=subprocess.STDOUT)
    seconds = time.monotonic() - started
    peak_kib = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    if status != 0:
        sys.exit(f"step {name} failed with status {status}; its output is in {log}")
    record = {"name": name, "command": command, "seconds": seconds, "commit": commit,
              # ru_maxrss of the children is the largest of any child so far: exact for the first
              # step that reaches it, an upper bound for a later smaller one.
              "peak_memory_gib": peak_kib / 1024 / 1024 if peak_kib > before else None,
              "finished": datetime.now(timezone.utc).isoformat(timespec="seconds")}
    record_file.write_text(json.dumps(record, indent=2) + "\n")
    return record


def schedule_for(preset_file: Path, start: str) -> str:
    """The short schedule a start takes: a pretrained start takes the preset's "short-pretrained"
    when it has one (a fine-tuning rate, where "short" is set for random weights)."""
    if start != "random" and "short-pretrained" in json.loads(preset_file.read_text()).get("schedules", {}):
        return "short-pretrained"
    return "short"


def mlm_corpora(data: Path):
    """The files whose titles and abstracts the masked-LM stage reads: training and dev splits only."""
    args = []
    for corpus in corpora(data).values():
        train = corpus["train"]
        for flag in ("--train", "--dev"):
            args += ["--mlm-corpus", train[train.index(flag) + 1]]
    return args


def common_parser(description: str, root: Path) -> argparse.ArgumentParser:
    """The options every results script takes: the CLI, the data, the runs' folder, the document."""
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("--cli", default=str(root / "build" / "default" / "bin" / "linkscope-cli"))
    parser.add_argument("--data", default=os.environ.get("LINKSCOPE_DATA_DIR", str(root.parent / "shared" / "data")))
    parser.add_argument("--out", default=str(root / "results-runs"))
    parser.add_argument("--results", default=str(root / "docs" / "results.md"))
    return parser


def main():
    root = Path(__file__).resolve().parent.parent
    parser = common_parser(__doc__.split("\n\n")[0], root)
    parser.add_argument("--presets", default=",".join(PRESETS))
    parser.add_argument("--starts", default=",".join(STARTS), help="comma-separated: random, pretrained, context")
    parser.add_argument("--only", default="", help="comma-separated: pretrain, encoder, sparse, ncbi, bc5cdr, linking")
    parser.add_argument("--tables", action="store_true",
                        help="run nothing: record what OUT holds, if anything, and render docs/results.md from the "
                             "record")
    parser.add_argument("--experiment", default="presets",
                        help="the experiment OUT's runs are recorded as (its block in docs/results.md)")
    parser.add_argument("--record", default=str(root / "docs" / "results.json"))
    parser.add_argument("--mlm", action="store_true",
                        help="pretrain with the masked-LM stage first (pretrain --mlm-corpus: the corpora's training "
                             "and dev texts)")
    parser.add_argument("--fresh", action="store_true", help="delete OUT first")
    args = parser.parse_args()

    data, out, cli = Path(args.data), Path(args.out), args.cli
    presets = [p for p in args.presets.split(",") if p]
    starts = [s for s in args.starts.split(",") if s]
    only = set(s for s in args.only.split(",") if s)
    wanted = lambda step: not only or step in only  # noqa: E731
    if not args.tables:
        if not (data / "ncbi-disease").exists():
            sys.exit(f"no data in {data}: the reproduction needs ../shared/data (or --data / LINKSCOPE_DATA_DIR)")
        if args.fresh and out.exists():
            shutil.rmtree(out)
        (out / "reports").mkdir(parents=True, exist_ok=True)
        logs = out / "logs"
        sets = corpora(data)
        ncbi = sets["ncbi"]
        sap = out / "medic-sap"
        if wanted("pretrain"):
            run_step(out, "pretrain", [cli, "pretrain", "--kb", str(data / "medic" / "medic_06Jul2012.txt"),
                                       "--dev", ncbi["train"][3], "--spelling", ncbi["train"][7],
                                       "--schedule", "short", *(mlm_corpora(data) if args.mlm else []),
                                       "--out", str(sap)], logs / "pretrain.log",
                     output_dir=sap)
        if wanted("encoder"):
            # The pretraining run links as its preset says: cosine of [CLS] vectors over the names.
            run_step(out, "encoder-eval", [cli, "eval", "--run", str(sap), *ncbi["train"], *ncbi["eval"],
                                           "--report", str(out / "reports" / "encoder-ncbi-test.json")],
                     logs / "encoder-eval.log")
        if wanted("sparse"):
            run_step(out, "sparse-eval", [cli, "eval", *ncbi["train"], *ncbi["eval"], "--method", "sparse",
                                          "--report", str(out / "reports" / "sparse-ncbi-test.json")],
                     logs / "sparse-eval.log")
        for key, corpus in sets.items():
            if not wanted(key):
                continue
            stage = out / "runs" / f"{key}-context-stage"
            if "context" in starts and any(p in CONTEXT_PRESETS for p in presets):
                run_step(out, f"train-{key}-context-stage",
                         [cli, "train", "--preset", "context-alignment", "--schedule", "short", "--model", str(sap),
                          *corpus["train"], "--out", str(stage)], logs / f"train-{key}-context-stage.log",
                         output_dir=stage)
            for preset in presets:
                for start in starts:
                    if start == "context" and preset not in CONTEXT_PRESETS:
                        continue
                    name = f"{key}-{start}-{preset}"
                    run = out / "runs" / name
                    begin = {"random": ["--compact"], "pretrained": ["--model", str(sap)],
                             "context": ["--model", str(stage)]}[start]
                    schedule = schedule_for(root / "models" / f"{preset}.json", start)
                    run_step(out, f"train-{name}", [cli, "train", "--preset", preset, "--schedule", schedule, *begin,
                                                    *corpus["train"], "--out", str(run)], logs / f"train-{name}.log",
                             output_dir=run)
                    run_step(out, f"eval-{name}", [cli, "eval", "--run", str(run), *corpus["train"], *corpus["eval"],
                                                   "--report", str(out / "reports" / f"{name}.json")],
                             logs / f"eval-{name}.log")

        if wanted("linking"):
            # Chosen on dev, reported on test: the test split never picks a setting.
            for preset in presets:
                for start in starts:
                    name = f"ncbi-{start}-{preset}"
                    run = out / "runs" / name
                    if not (run / "run.json").exists():
                        continue
                    dev_file = out / "reports" / f"linking-dev-{name}.json"
                    run_step(out, f"linking-dev-{name}",
                             [cli, "eval", "--run", str(run), *ncbi["train"], "--split", "dev",
                              "--linking", ",".join(LINKING_GRID), "--json"], logs / f"linking-dev-{name}.log", dev_file)
                    chosen = LINKING_GRID[best_linking(read_json(dev_file))]
                    run_step(out, f"linking-test-{name}",
                             [cli, "eval", "--run", str(run), *ncbi["train"], *ncbi["eval"],
                              "--linking", "model" if chosen == "model" else "model," + chosen, "--json"],
                             logs / f"linking-test-{name}.log", out / "reports" / f"linking-test-{name}.json")

    # A machine without the runs (results-runs is not committed) records nothing and renders the
    # document from the record alone; a partial reproduction replaces only the rows it holds.
    record = load_record(Path(args.record))
    if (out / "steps").is_dir() and any((out / "steps").glob("*.json")):
        merge(record, args.experiment, collect(out, head_commit(ROOT)))
        save_record(Path(args.record), record)
        print(f"the runs of {out} recorded as experiment '{args.experiment}' in {args.record}")
    else:
        print(f"{out} holds no finished step: nothing recorded")
    write_document(Path(args.results), record)
    print(f"{args.results} rendered from {args.record}")


if __name__ == "__main__":
    main()
