#!/usr/bin/env python3
"""Regenerates the tables of docs/results.md that compare the two starts of the five presets.

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
and writes the tables between the markers `<!-- reproduce-results:begin -->` and
`<!-- reproduce-results:end -->` of docs/results.md from the runs' run.json and the evaluations'
JSON reports: no figure is typed by hand.

Every step records its wall time and peak memory (of the child process) in OUT/steps/NAME.json
and is skipped when that record exists, so an interrupted reproduction goes on where it stopped
(`--fresh` starts over). `--only` limits the steps (e.g. `--only pretrain,encoder`), `--tables`
rewrites the tables from what OUT already holds. `--block NAME` writes them between
`<!-- reproduce-results:NAME:begin -->` and `<!-- reproduce-results:NAME:end -->` instead: the
runs of a new OUT on a machine that no longer holds the runs the main tables were written from
(results-runs is not committed) go beside those tables rather than over them.

  tools/reproduce_results.py [--cli build/default/bin/linkscope-cli] [--data ../shared/data]
                             [--out results-runs] [--presets biosyn,triplet,...] [--starts random,pretrained,context]
                             [--only STEPS] [--mlm]
                             [--tables] [--fresh] [--block NAME]
"""
import argparse
import json
import os
import platform
import resource
import shutil
import subprocess
import sys
import time
from datetime import datetime, timezone
from pathlib import Path

PRESETS = ["biosyn", "belhd", "triplet", "prototype-srn", "knn-bioel"]
# The linkings tried on NCBI Disease dev for every run, the best of them then evaluated on test:
# the run's own linking, and kNN-BioEL's datastore interpolation (k 4) with lambda from 0.05 to
# 0.3 at both of the paper's temperature settings (NCBI 0.01/1.0, BC5CDR 0.05/5.0).
LINKING_GRID = ["model"] + [f"knn@{lam}/{b1}/{b2}" for lam in (0.05, 0.1, 0.2, 0.3)
                            for (b1, b2) in ((0.01, 1.0), (0.05, 5.0))]
STARTS = ["random", "pretrained", "context"]
# The presets that read the mention in its sentence, pooled at markers: only they take the
# context-aligned start.
CONTEXT_PRESETS = ["belhd", "prototype-srn"]
BEGIN = "<!-- reproduce-results:begin -->"
END = "<!-- reproduce-results:end -->"


def corpora(data: Path):
    """The two benchmarks: training options, the evaluation split and its extra options."""
    ncbi = data / "ncbi-disease"
    medic = data / "medic"
    bc5 = data / "bc5cdr"
    return {
        "ncbi": {
            "title": "NCBI Disease",
            "train": ["--train", str(ncbi / "NCBItrainset_corpus.txt"), "--dev", str(ncbi / "NCBIdevelopset_corpus.txt"),
                      "--kb", str(medic / "medic_06Jul2012.txt"), "--spelling", str(medic / "ncbi-spell-check.txt")],
            "eval": ["--test", str(ncbi / "NCBItestset_corpus.txt"), "--split", "test"],
            "split": "test",
        },
        "bc5cdr": {
            "title": "BC5CDR-Disease",
            "train": ["--train", str(bc5 / "CDR_TrainingSet.PubTator.txt"), "--dev", str(bc5 / "CDR_DevelopmentSet.PubTator.txt"),
                      "--kb", str(medic / "medic_06Jul2012.txt"), "--types", "Disease"],
            "eval": ["--split", "dev"],
            "split": "dev",
        },
    }


def run_step(out: Path, name: str, command, log: Path, stdout_file: Path = None, output_dir: Path = None):
    """Runs one command unless its record exists; returns the record (seconds, peak memory).
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
    record = {"name": name, "command": command, "seconds": seconds,
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


def best_linking(report) -> int:
    """The index in LINKING_GRID of the best dev Acc@1 (the first of equals: the run's own linking
    wins a tie, then the smaller lambda)."""
    rows = report["linkings"]
    if len(rows) != len(LINKING_GRID):
        sys.exit(f"the dev comparison has {len(rows)} linkings for {len(LINKING_GRID)} asked")
    best = max(row["acc@1"] for row in rows)
    return next(i for i, row in enumerate(rows) if row["acc@1"] == best)


def read_json(path: Path):
    try:
        return json.loads(path.read_text())
    except (OSError, ValueError):
        return None


def fmt(value, digits=4):
    return "-" if value is None else f"{value:.{digits}f}"


def minutes(seconds):
    if seconds is None:
        return "-"
    return f"{int(seconds // 60)} min {int(round(seconds % 60))} s"


def memory(record):
    value = record.get("peak_memory_gib") if record else None
    return "-" if value is None else f"{value:.2f} GB"


def mlm_corpora(data: Path):
    """The files whose titles and abstracts the masked-LM stage reads: training and dev splits only."""
    args = []
    for corpus in corpora(data).values():
        train = corpus["train"]
        for flag in ("--train", "--dev"):
            args += ["--mlm-corpus", train[train.index(flag) + 1]]
    return args


def validation_events(log: Path):
    """A run's validations from its log.jsonl (the untrained model's, then one per epoch)."""
    if not log.exists():
        return []
    events = [json.loads(line) for line in log.read_text().splitlines()]
    return [e for e in events if e.get("event") in ("validation", "epoch") and "dev_acc1" in e]


def tables(out: Path, data: Path) -> str:
    """The markdown of the generated section, from everything OUT holds (not only this invocation's
    --presets, so a partial run never drops rows measured before)."""
    lines = []
    machine = f"{platform.machine()}, {os.cpu_count()} cores"
    pre = read_json(out / "steps" / "pretrain.json")
    pre_run = read_json(out / "medic-sap" / "run.json")
    enc = read_json(out / "reports" / "encoder-ncbi-test.json")
    sparse = read_json(out / "reports" / "sparse-ncbi-test.json")
    records = [read_json(f) for f in sorted((out / "steps").glob("*.json"))] if (out / "steps").exists() else []
    records = [r for r in records if r]
    dates = sorted(r["finished"][:10] for r in records if r.get("finished"))
    when = (f", measured {dates[0]}" + (f" to {dates[-1]}" if dates[-1] != dates[0] else "")) if dates else ""
    lines.append("Generated by `tools/reproduce_results.py` (" + machine + when + "); do not edit by hand.")
    lines.append("")
    lines.append("| step | result | wall time | peak memory |")
    lines.append("| --- | --- | ---: | ---: |")
    stage_run = read_json(out / "medic-sap" / "mlm" / "run.json")
    if stage_run:
        # The masked-LM stage's validations: held-out masked-token accuracy by epoch.
        held = validation_events(out / "medic-sap" / "mlm" / "log.jsonl")
        curve = ", ".join(f"{v['dev_acc1']:.4f}" for v in held)
        lines.append(f"| masked-LM stage on the titles and abstracts of NCBI Disease's and BC5CDR's training and dev"
                     f" splits (mlm, short; {stage_run['status']}) | held-out masked-token accuracy by epoch"
                     f" (0: untrained) {curve}; kept epoch {stage_run['best_epoch']} |"
                     f" {minutes(stage_run.get('seconds'))} (in the pretrain step) | |")
    if pre_run:
        # Every validation of the run, from its log: dev Acc@1 and the mean cosine of the dev
        # mention vectors (the collapse check's figures).
        validations = validation_events(out / "medic-sap" / "log.jsonl")
        curve = ", ".join(f"{v['dev_acc1']:.4f}" for v in validations)
        cosines = ", ".join(fmt(v.get("mean_cosine"), 3) for v in validations)
        collapsed = sum(1 for v in validations if v.get("collapsed"))
        after = ", after the masked-LM stage; the step's time is both stages'" if stage_run else ""
        lines.append(f"| pretrain on MEDIC (sapbert, short{after}; {pre_run['status']}) | NCBI dev Acc@1 against MEDIC's names by"
                     f" epoch (0: untrained) {curve}; kept epoch {pre_run['best_epoch']}; mean cosine of the dev mention"
                     f" vectors {cosines}; collapsed validations: {collapsed} |"
                     f" {minutes(pre['seconds'] if pre else None)} | {memory(pre)} |")
    if enc:
        lines.append(f"| pretrained encoder alone, NCBI test (dense, no fine-tuning) | Acc@1 {fmt(enc['acc@1'])},"
                     f" Acc@5 {fmt(enc['acc@5'])} | | |")
    if sparse:
        lines.append(f"| sparse TF-IDF, NCBI test (reference) | Acc@1 {fmt(sparse['acc@1'])}, Acc@5 {fmt(sparse['acc@5'])} | | |")
    for key, corpus in corpora(data).items():
        stage = read_json(out / "runs" / f"{key}-context-stage" / "run.json")
        step = read_json(out / "steps" / f"train-{key}-context-stage.json")
        if stage:
            lines.append(f"| context alignment of the pretrained encoder on {corpus['title']}'s training mentions"
                         f" ({stage['status']}) | {corpus['title']} dev Acc@1, mentions read in their sentences between"
                         f" [S]/[E] against MEDIC's names: {fmt(stage['untrained_dev_accuracy'])} ->"
                         f" {fmt(stage['best_dev_accuracy'])} (epoch {stage['best_epoch']}) |"
                         f" {minutes(step['seconds'] if step else None)} | {memory(step)} |")
    lines.append("")
    lines.append("Starts: random = the compact encoder from scratch; pretrained = the self-alignment run above;"
                 " context = that run after the context alignment on the corpus's training mentions.")
    lines.append("")
    for key, corpus in corpora(data).items():
        lines.append(f"#### {corpus['title']} ({corpus['split']}), each preset's short schedule")
        lines.append("")
        lines.append(f"| preset | start | schedule | dev Acc@1 untrained -> best (epoch) | {corpus['split']} Acc@1 |"
                     f" {corpus['split']} strict Acc@1 | {corpus['split']} Acc@5 | collapsed | train time | peak memory |")
        lines.append("| --- | --- | --- | --- | ---: | ---: | ---: | --- | ---: | ---: |")
        rows = len(lines)
        for preset in PRESETS:
            for start in STARTS:
                name = f"{key}-{start}-{preset}"
                run = read_json(out / "runs" / name / "run.json")
                report = read_json(out / "reports" / f"{name}.json")
                step = read_json(out / "steps" / f"train-{name}.json")
                if not run:
                    continue
                collapsed = run.get("collapse") or ""
                # The kept model may be an earlier one than a collapsed validation's.
                during = run.get("collapsed_validations") or 0
                lines.append(
                    f"| {preset} | {start} | {run.get('schedule', '')} | {fmt(run['untrained_dev_accuracy'])} ->"
                    f" {fmt(run['best_dev_accuracy'])}"
                    f" ({run['best_epoch']}) | {fmt(report['acc@1']) if report else '-'} |"
                    f" {fmt(report['strict']['acc@1']) if report else '-'} | {fmt(report['acc@5']) if report else '-'} |"
                    f" {'**yes**: ' + collapsed if collapsed else 'no'}"
                    f"{f' (the model of {during} validation(s) collapsed)' if during else ''} | {minutes(step['seconds'] if step else None)} |"
                    f" {memory(step)} |")
        if len(lines) == rows:
            lines.append("| (not run yet) | | | | | | | | | |")
        lines.append("")
    lines.append("#### NCBI Disease, linking chosen on dev (kNN datastore of the training mentions)")
    lines.append("")
    lines.append("Every run is linked on dev with its own linking and with kNN-BioEL's interpolation over a grid"
                 " (lambda " + ", ".join(sorted({g.split("@")[1].split("/")[0] for g in LINKING_GRID if "@" in g}))
                 + "; temperatures 0.01/1.0 and 0.05/5.0); the best on dev is evaluated once on test.")
    lines.append("")
    lines.append("| preset | start | chosen on dev | dev Acc@1, own linking -> chosen | test Acc@1, own linking -> chosen | test Acc@5, chosen |")
    lines.append("| --- | --- | --- | --- | --- | ---: |")
    rows = len(lines)
    for preset in PRESETS:
        for start in STARTS:
            name = f"ncbi-{start}-{preset}"
            dev = read_json(out / "reports" / f"linking-dev-{name}.json")
            test = read_json(out / "reports" / f"linking-test-{name}.json")
            if not dev or not test:
                continue
            chosen = dev["linkings"][best_linking(dev)]
            own_dev, own_test, chosen_test = dev["linkings"][0], test["linkings"][0], test["linkings"][-1]
            lines.append(f"| {preset} | {start} | {chosen['linking']} | {fmt(own_dev['acc@1'])} -> {fmt(chosen['acc@1'])} |"
                         f" {fmt(own_test['acc@1'])} -> {fmt(chosen_test['acc@1'])} | {fmt(chosen_test['acc@5'])} |")
    if len(lines) == rows:
        lines.append("| (not run yet) | | | | | |")
    lines.append("")
    total = sum(r.get("seconds", 0.0) for r in records)
    lines.append(f"The {len(records)} steps recorded so far took {minutes(total)} in all on this machine.")
    return "\n".join(lines) + "\n"


def write_tables(results: Path, text: str, begin: str = BEGIN, end: str = END):
    document = results.read_text()
    if begin not in document or end not in document:
        sys.exit(f"{results} lacks the markers {begin} / {end}")
    head, rest = document.split(begin, 1)
    _, tail = rest.split(end, 1)
    results.write_text(head + begin + "\n" + text + end + tail)


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
    parser.add_argument("--tables", action="store_true", help="only rewrite the tables from OUT")
    parser.add_argument("--mlm", action="store_true",
                        help="pretrain with the masked-LM stage first (pretrain --mlm-corpus: the corpora's training "
                             "and dev texts)")
    parser.add_argument("--fresh", action="store_true", help="delete OUT first")
    parser.add_argument("--block", default="",
                        help="write the tables between <!-- reproduce-results:BLOCK:begin/end --> instead of the main "
                             "markers: the runs of a later OUT beside those of an earlier one whose runs are gone")
    args = parser.parse_args()

    data, out, cli = Path(args.data), Path(args.out), args.cli
    presets = [p for p in args.presets.split(",") if p]
    starts = [s for s in args.starts.split(",") if s]
    only = set(s for s in args.only.split(",") if s)
    wanted = lambda step: not only or step in only  # noqa: E731
    if not (data / "ncbi-disease").exists():
        sys.exit(f"no data in {data}: the reproduction needs ../shared/data (or --data / LINKSCOPE_DATA_DIR)")
    if args.fresh and out.exists():
        shutil.rmtree(out)
    out.mkdir(parents=True, exist_ok=True)
    logs = out / "logs"
    sets = corpora(data)
    ncbi = sets["ncbi"]

    if not args.tables:
        (out / "reports").mkdir(exist_ok=True)
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

    # A fresh machine has no runs (results-runs is not committed): tables written from a partial
    # reproduction would drop every row it has not redone, so they are written only once the
    # pretraining, which every later step starts from, is recorded in OUT.
    if not (out / "steps" / "pretrain.json").exists():
        print(f"{out} holds no pretraining run yet: the tables of {args.results} are left as they are")
        return
    if args.block:
        write_tables(Path(args.results), tables(out, data), f"<!-- reproduce-results:{args.block}:begin -->",
                     f"<!-- reproduce-results:{args.block}:end -->")
    else:
        write_tables(Path(args.results), tables(out, data))
    print(f"tables written to {args.results}")


if __name__ == "__main__":
    main()
