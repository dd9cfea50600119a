#!/usr/bin/env python3
"""A trial run of a shipped preset with one or more keys changed, trained and evaluated on NCBI
Disease as tools/reproduce_results.py runs its presets, so that the trial figures docs/results.md
quotes (the runs a preset's choice was made from) come from a command, not from memory.

The changed preset is written as OUT/preset/PRESET.json (same stem, so the run keeps the preset's
name), trained with `linkscope-cli train --schedule SCHEDULE` from `--model START` (or `--compact`
without one), and evaluated on NCBI Disease dev (`eval --run --split dev`). It prints one line:

  trial PRESET SCHEDULE KEY=VALUE...: untrained dev Acc@1 U, best dev Acc@1 B (epoch E),
  eval dev Acc@1 A, train time T

  tools/preset_trial.py --preset belhd --schedule short-pretrained \\
      --set schedules.short-pretrained.mention_context_weight=0.5 \\
      --start results-runs/medic-sap --out results-runs/trials/belhd-context-0.5

A finished trial in OUT is not run again (its figures are printed from OUT); --fresh starts over.
"""
import argparse
import json
import shutil
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def set_key(preset: dict, dotted: str, text: str):
    """Sets preset[a][b]... = the JSON value of text (a bare word is a string)."""
    *parents, last = dotted.split(".")
    node = preset
    for key in parents:
        if key not in node or not isinstance(node[key], dict):
            sys.exit(f"--set {dotted}: the preset has no object \"{key}\" on that path")
        node = node[key]
    try:
        node[last] = json.loads(text)
    except json.JSONDecodeError:
        node[last] = text


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--preset", required=True, help="a shipped preset's name (models/NAME.json)")
    parser.add_argument("--schedule", default="short")
    parser.add_argument("--set", action="append", default=[], metavar="KEY=VALUE",
                        help="a dotted key of the preset file and its JSON value (repeatable)")
    parser.add_argument("--start", default="", help="a pretrained run or checkpoint (default: the compact encoder)")
    parser.add_argument("--out", required=True)
    parser.add_argument("--cli", default=str(ROOT / "build" / "default" / "bin" / "linkscope-cli"))
    parser.add_argument("--data", default=str(ROOT.parent / "shared" / "data"))
    parser.add_argument("--fresh", action="store_true")
    args = parser.parse_args()

    data, out = Path(args.data), Path(args.out)
    ncbi, medic = data / "ncbi-disease", data / "medic"
    if not ncbi.exists():
        sys.exit(f"no data in {data}: the trial needs ../shared/data/ncbi-disease (or --data)")
    if args.fresh and out.exists():
        shutil.rmtree(out)
    preset = json.loads((ROOT / "models" / f"{args.preset}.json").read_text())
    changes = []
    for assignment in args.set:
        key, _, value = assignment.partition("=")
        if not value:
            sys.exit(f"--set {assignment}: expected KEY=VALUE")
        set_key(preset, key, value)
        changes.append(f"{key}={value}")
    preset_file = out / "preset" / f"{args.preset}.json"
    run = out / "run"
    corpus = ["--train", str(ncbi / "NCBItrainset_corpus.txt"), "--dev", str(ncbi / "NCBIdevelopset_corpus.txt"),
              "--kb", str(medic / "medic_06Jul2012.txt"), "--spelling", str(medic / "ncbi-spell-check.txt")]
    record_file = out / "trial.json"
    if not record_file.exists():
        if run.exists():
            shutil.rmtree(run)  # an unfinished trial starts over
        preset_file.parent.mkdir(parents=True, exist_ok=True)
        preset_file.write_text(json.dumps(preset, indent=2) + "\n")
        begin = ["--model", args.start] if args.start else ["--compact"]
        started = time.monotonic()
        with open(out / "train.log", "w") as log:
            status = subprocess.call([args.cli, "train", "--preset", str(preset_file), "--schedule", args.schedule,
                                      *begin, *corpus, "--out", str(run)], stdout=log, stderr=subprocess.STDOUT)
        seconds = time.monotonic() - started
        if status != 0:
            sys.exit(f"training failed with status {status}; see {out / 'train.log'}")
        with open(out / "eval.log", "w") as log:
            status = subprocess.call([args.cli, "eval", "--run", str(run), *corpus, "--split", "dev",
                                      "--report", str(out / "dev.json")], stdout=log, stderr=subprocess.STDOUT)
        if status != 0:
            sys.exit(f"evaluation failed with status {status}; see {out / 'eval.log'}")
        record_file.write_text(json.dumps({"changes": changes, "seconds": seconds}, indent=2) + "\n")
    record = json.loads(record_file.read_text())
    info = json.loads((run / "run.json").read_text())
    report = json.loads((out / "dev.json").read_text())
    minutes = f"{int(record['seconds'] // 60)} min {int(round(record['seconds'] % 60))} s"
    print(f"trial {args.preset} {args.schedule} {' '.join(record['changes'])}: untrained dev Acc@1 "
          f"{info['untrained_dev_accuracy']:.4f}, best dev Acc@1 {info['best_dev_accuracy']:.4f} (epoch "
          f"{info['best_epoch']}), eval dev Acc@1 {report['acc@1']:.4f}, train time {minutes}")


if __name__ == "__main__":
    main()
