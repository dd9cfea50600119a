#!/usr/bin/env python3
"""Regenerates the review-queue tables of docs/results.md.

Runs `linkscope-cli simulate-curation --order queue,document --json` on NCBI Disease dev and
test, without and with "apply to all", for each linker:
  - sparse TF-IDF over MEDIC's homonym-expanded names (the GUI's ranker before a model is trained);
  - a trained run with the datastore of its training mentions, linked with the kNN setting that
    tools/reproduce_results.py chose for that run on dev (its linking report, OUT/reports).
On dev it also walks the queue alone for each reach weight of REACH_WEIGHTS with the run (the
setting the queue's default reach weight was chosen on), and for each margin scale of
MARGIN_SCALES with sparse TF-IDF (the setting its default margin scale was chosen on). Writes the CSV curves to docs/data and the SVG plots to
docs/figures, and the tables between the markers `<!-- review-tables:begin -->` and
`<!-- review-tables:end -->` of docs/results.md: no figure is typed by hand.

  tools/review_tables.py [--cli build/default/bin/linkscope-cli] [--data ../shared/data]
                         [--out results-runs] [--run ncbi-pretrained-triplet]
"""
import json
import os
import platform
import subprocess
import sys
import time
from datetime import datetime, timezone
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from reproduce_results import common_parser  # noqa: E402
from results_record import LINKING_GRID, best_linking, read_json, write_tables  # noqa: E402

BEGIN = "<!-- review-tables:begin -->"
END = "<!-- review-tables:end -->"
REACH_WEIGHTS = [0.0, 0.25, 0.5, 1.0, 2.0]
# The sparse queue's margin scale, tried on dev with the score read (confidence weight 1) and not
# (0), and with apply to all (weight 1).
MARGIN_SCALES = [0.05, 0.1, 0.2, 0.3, 0.5, 1.0]
TARGET = 0.98


def data_arguments(data: Path, split: str):
    ncbi = data / "ncbi-disease"
    medic = data / "medic"
    return ["--train", str(ncbi / "NCBItrainset_corpus.txt"), "--dev", str(ncbi / "NCBIdevelopset_corpus.txt"),
            "--test", str(ncbi / "NCBItestset_corpus.txt"), "--kb", str(medic / "medic_06Jul2012.txt"),
            "--spelling", str(medic / "ncbi-spell-check.txt"), "--split", split]


def knn_arguments(linking: str):
    """CLI options of a LINKING_GRID item ("model" or "knn@LAMBDA/BETA1/BETA2")."""
    if linking == "model":
        return None
    name, values = linking.split("@")
    lam, beta1, beta2 = values.split("/")
    return ["--knn", "--knn-lambda", lam, "--knn-beta1", beta1, "--knn-beta2", beta2]


def walk(cli: str, arguments, label: str):
    print("+", " ".join([cli] + arguments), file=sys.stderr, flush=True)
    started = time.monotonic()
    result = subprocess.run([cli] + arguments, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    if result.returncode != 0:
        sys.exit(f"{label} failed with status {result.returncode}")
    report = json.loads(result.stdout)
    report["wall_seconds"] = time.monotonic() - started
    return report


def fmt(value):
    return "-" if value is None else f"{value:.4f}"


def main():
    root = Path(__file__).resolve().parent.parent
    parser = common_parser(__doc__.split("\n\n")[0], root)
    parser.add_argument("--run", default="ncbi-pretrained-triplet", help="a run of OUT/runs")
    args = parser.parse_args()
    data, out = Path(args.data), Path(args.out)
    if not (data / "ncbi-disease").is_dir():
        sys.exit(f"NCBI Disease is not in {data}: nothing to measure")
    run = out / "runs" / args.run
    report = read_json(out / "reports" / f"linking-dev-{args.run}.json")
    if not run.is_dir() or report is None:
        sys.exit(f"{run} or its dev linking report is missing: run tools/reproduce_results.py --only ncbi,linking first")
    linking = LINKING_GRID[best_linking(report)]
    knn = knn_arguments(linking)
    if knn is None:
        sys.exit(f"the run's chosen linking on dev is '{linking}', without a datastore: choose a run that uses one")

    linkers = [("sparse", "sparse TF-IDF", []), ("run", f"{args.run}, {linking}", ["--run", str(run)] + knn)]
    rows, tuning = [], []
    for key, name, extra in linkers:
        for split in ("dev", "test"):
            for apply in (False, True):
                stem = f"review-ncbi-{split}-{key if key == 'sparse' else args.run}" + ("-apply-to-all" if apply else "")
                arguments = (["simulate-curation", "--order", "queue,document", "--json", "--target", str(TARGET)] +
                             data_arguments(data, split) + extra + (["--apply-to-all"] if apply else []) +
                             ["--csv", str(root / "docs" / "data" / f"{stem}.csv"),
                              "--svg", str(root / "docs" / "figures" / f"{stem}.svg")])
                rows.append((name, split, apply, walk(args.cli, arguments, stem)))
    margins = []
    for scale in MARGIN_SCALES:
        for confidence, apply in ((1, False), (0, False), (1, True)):
            arguments = (["simulate-curation", "--order", "queue", "--json", "--target", str(TARGET),
                          "--margin-scale", str(scale), "--confidence-weight", str(confidence)] +
                         data_arguments(data, "dev") + (["--apply-to-all"] if apply else []))
            margins.append((scale, confidence, apply, walk(args.cli, arguments, f"margin scale {scale}")))
    for weight in REACH_WEIGHTS:
        arguments = (["simulate-curation", "--order", "queue", "--json", "--target", str(TARGET),
                      "--reach-weight", str(weight)] + data_arguments(data, "dev") + linkers[1][2])
        tuning.append((weight, walk(args.cli, arguments, f"reach weight {weight}")))

    when = datetime.now(timezone.utc).strftime("%Y-%m-%d")
    lines = [f"Generated by `tools/review_tables.py` ({platform.machine()}, {os.cpu_count()} cores, measured {when});"
             " do not edit by hand.", "",
             f"| linker | split | mentions | apply to all | accuracy before | after 10 % of the mentions decided,"
             f" queue / document | after 25 % | after 50 % | decisions to reach {TARGET}, queue / document | ratio |",
             "| --- | --- | ---: | --- | ---: | ---: | ---: | ---: | ---: | ---: |"]
    for name, split, apply, report in rows:
        walks = {w["order"]: w for w in report["walks"]}
        queue, document = walks["queue"], walks["document"]
        checkpoints = sorted(queue["accuracy_after"], key=int)
        cells = [f"{fmt(queue['accuracy_after'][c])} / {fmt(document['accuracy_after'][c])}" for c in checkpoints]
        q, d = queue["decisions_to_target"], document["decisions_to_target"]
        ratio = f"{q / d:.2f}" if q is not None and d else "-"
        lines.append(f"| {name} | {split} | {report['mentions']} | {'yes' if apply else 'no'} |"
                     f" {fmt(queue['initial_accuracy'])} | " + " | ".join(cells) +
                     f" | {q if q is not None else 'not reached'} / {d if d is not None else 'not reached'} | {ratio} |")
    lines += ["", f"Reach weight of the queue (priority = doubt x (1 + weight x reach)), NCBI Disease dev, {linkers[1][1]},"
              " without apply to all: decisions to reach the target in queue order.", "",
              "| reach weight | decisions to reach " + str(TARGET) + " |", "| ---: | ---: |"]
    for weight, report in tuning:
        reached = report["walks"][0]["decisions_to_target"]
        lines.append(f"| {weight:g} | {reached if reached is not None else 'not reached'} |")
    lines += ["", "Margin scale of the queue (the lead over the second entity above which the margin adds no doubt),"
              " NCBI Disease dev, sparse TF-IDF: decisions to reach the target in queue order.", "",
              "| margin scale | score read (confidence weight 1) | score not read (0) | apply to all, score read |",
              "| ---: | ---: | ---: | ---: |"]
    for scale in MARGIN_SCALES:
        cells = []
        for confidence, apply in ((1, False), (0, False), (1, True)):
            report = next(r for s, c, a, r in margins if s == scale and c == confidence and a == apply)
            reached = report["walks"][0]["decisions_to_target"]
            cells.append(str(reached) if reached is not None else "not reached")
        lines.append(f"| {scale:g} | " + " | ".join(cells) + " |")
    reports = [r for *_, r in rows] + [r for _, r in tuning] + [r for *_, r in margins]
    total = sum(r["wall_seconds"] for r in reports)
    lines += ["", f"The {len(reports)} commands took {total:.0f} s in all on this machine."]
    write_tables(Path(args.results), "\n".join(lines) + "\n", BEGIN, END)


if __name__ == "__main__":
    main()
