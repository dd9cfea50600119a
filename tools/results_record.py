"""The record of tools/reproduce_results.py's figures (docs/results.json) and the parts of
docs/results.md rendered from it.

An experiment is a named set of runs (e.g. "presets": every preset from each start). The record
holds, per experiment, the figures of each run keyed by preset, start and corpus, and those of the
stages the runs start from (the masked-LM stage, the pretraining, the pretrained encoder alone,
sparse TF-IDF, the context alignment). Every row carries the commit HEAD was at when its step ran
and the date the step finished. Recording a runs folder replaces the experiment's rows that the
folder holds and keeps the others, so a rerun of a subset replaces those rows only.

docs/results.md gets one block per experiment between `<!-- reproduce-results:NAME:begin -->` and
`<!-- reproduce-results:NAME:end -->` (a new experiment's block is added above NEW_BLOCKS) and,
between the markers of SUMMARY, one table with the newest figure of every preset, start and corpus.
"""
import json
import os
import platform
import subprocess
import sys
import textwrap
from datetime import datetime, timezone
from pathlib import Path

PRESETS = ["biosyn", "belhd", "triplet", "prototype-srn", "knn-bioel"]
STARTS = ["random", "pretrained", "context"]
# A pretraining with the masked-LM stage first makes other starts than the plain one: their rows
# are kept apart under these names.
MLM_SUFFIX = "+mlm"
START_ORDER = STARTS + [s + MLM_SUFFIX for s in STARTS if s != "random"]
# The linkings tried on NCBI Disease dev for every run, the best of them then evaluated on test:
# the run's own linking, and kNN-BioEL's datastore interpolation (k 4) with lambda from 0.05 to
# 0.3 at both of the paper's temperature settings (NCBI 0.01/1.0, BC5CDR 0.05/5.0).
LINKING_GRID = ["model"] + [f"knn@{lam}/{b1}/{b2}" for lam in (0.05, 0.1, 0.2, 0.3)
                            for (b1, b2) in ((0.01, 1.0), (0.05, 5.0))]
# Corpus key: its title and the split its figures are evaluated on.
CORPORA = {"ncbi": ("NCBI Disease", "test"), "bc5cdr": ("BC5CDR-Disease", "dev")}
STAGE_ORDER = ["mlm", "pretrain", "encoder", "sparse", "context-alignment"]
SUMMARY = "summary"
NEW_BLOCKS = "<!-- reproduce-results: the block of a new experiment is added above this line -->"


def markers(name: str):
    return f"<!-- reproduce-results:{name}:begin -->", f"<!-- reproduce-results:{name}:end -->"


def read_json(path: Path):
    try:
        return json.loads(path.read_text())
    except (OSError, ValueError):
        return None


def best_linking(report) -> int:
    """The index in LINKING_GRID of the best dev Acc@1 (the first of equals: the run's own linking
    wins a tie, then the smaller lambda)."""
    rows = report["linkings"]
    if len(rows) != len(LINKING_GRID):
        sys.exit(f"the dev comparison has {len(rows)} linkings for {len(LINKING_GRID)} asked")
    best = max(row["acc@1"] for row in rows)
    return next(i for i, row in enumerate(rows) if row["acc@1"] == best)


def head_commit(root: Path) -> str:
    """HEAD's short hash, or "unknown" outside a git checkout."""
    result = subprocess.run(["git", "-C", str(root), "rev-parse", "--short=7", "HEAD"], capture_output=True, text=True)
    return result.stdout.strip() if result.returncode == 0 else "unknown"


def validation_events(log: Path):
    """A run's validations from its log.jsonl (the untrained model's, then one per epoch)."""
    if not log.exists():
        return []
    events = [json.loads(line) for line in log.read_text().splitlines()]
    return [e for e in events if e.get("event") in ("validation", "epoch") and "dev_acc1" in e]


# ---------------------------------------------------------------------------------------------
# Reading a runs folder (OUT of tools/reproduce_results.py) into the record's rows.


def collect(out: Path, commit_now: str):
    """The rows of everything OUT holds (not only the last invocation's --presets)."""
    steps_dir = out / "steps"
    records = {f.stem: read_json(f) for f in sorted(steps_dir.glob("*.json"))} if steps_dir.exists() else {}
    records = {k: v for k, v in records.items() if v}
    today = datetime.now(timezone.utc).strftime("%Y-%m-%d")

    def stamp(step_name):
        # Step records written before the commit was kept in them take HEAD's.
        step = records.get(step_name) or {}
        return {"commit": step.get("commit") or commit_now,
                "measured": step["finished"][:10] if step.get("finished") else today}

    def step_value(step_name, key):
        return (records.get(step_name) or {}).get(key)

    sap = out / "medic-sap"
    mlm_run = read_json(sap / "mlm" / "run.json")
    stages = []
    if mlm_run:
        stages.append({"stage": "mlm", **stamp("pretrain"), "status": mlm_run["status"],
                       "dev_acc1_by_epoch": [v["dev_acc1"] for v in validation_events(sap / "mlm" / "log.jsonl")],
                       "best_epoch": mlm_run["best_epoch"], "seconds": mlm_run.get("seconds")})
    pre_run = read_json(sap / "run.json")
    if pre_run:
        validations = validation_events(sap / "log.jsonl")
        stages.append({"stage": "pretrain", **stamp("pretrain"), "status": pre_run["status"],
                       "after_mlm": bool(mlm_run), "dev_acc1_by_epoch": [v["dev_acc1"] for v in validations],
                       "mean_cosine_by_epoch": [v.get("mean_cosine") for v in validations],
                       "collapsed_validations": sum(1 for v in validations if v.get("collapsed")),
                       "best_epoch": pre_run["best_epoch"], "seconds": step_value("pretrain", "seconds"),
                       "peak_memory_gib": step_value("pretrain", "peak_memory_gib")})
    for stage, step_name in (("encoder", "encoder-eval"), ("sparse", "sparse-eval")):
        report = read_json(out / "reports" / f"{stage}-ncbi-test.json")
        if report:
            stages.append({"stage": stage, **stamp(step_name), "acc1": report["acc@1"], "acc5": report["acc@5"]})
    for key in CORPORA:
        run = read_json(out / "runs" / f"{key}-context-stage" / "run.json")
        step_name = f"train-{key}-context-stage"
        if run:
            stages.append({"stage": "context-alignment", "corpus": key, **stamp(step_name), "status": run["status"],
                           "untrained_dev_acc1": run["untrained_dev_accuracy"],
                           "best_dev_acc1": run["best_dev_accuracy"], "best_epoch": run["best_epoch"],
                           "seconds": step_value(step_name, "seconds"),
                           "peak_memory_gib": step_value(step_name, "peak_memory_gib")})

    runs = []
    for key in CORPORA:
        for preset in PRESETS:
            for start in STARTS:
                name = f"{key}-{start}-{preset}"
                run = read_json(out / "runs" / name / "run.json")
                if not run:
                    continue
                report = read_json(out / "reports" / f"{name}.json") or {}
                row = {"preset": preset, "start": start if start == "random" or not mlm_run else start + MLM_SUFFIX,
                       "corpus": key, **stamp(f"train-{name}"), "schedule": run.get("schedule", ""),
                       "untrained_dev_acc1": run["untrained_dev_accuracy"], "best_dev_acc1": run["best_dev_accuracy"],
                       "best_epoch": run["best_epoch"], "acc1": report.get("acc@1"),
                       "strict_acc1": (report.get("strict") or {}).get("acc@1"), "acc5": report.get("acc@5"),
                       "collapse": run.get("collapse") or "",
                       # The kept model may be an earlier one than a collapsed validation's.
                       "collapsed_validations": run.get("collapsed_validations") or 0,
                       "train_seconds": step_value(f"train-{name}", "seconds"),
                       "peak_memory_gib": step_value(f"train-{name}", "peak_memory_gib")}
                dev = read_json(out / "reports" / f"linking-dev-{name}.json")
                test = read_json(out / "reports" / f"linking-test-{name}.json")
                if dev and test:
                    own_dev, own_test, chosen_test = dev["linkings"][0], test["linkings"][0], test["linkings"][-1]
                    chosen = dev["linkings"][best_linking(dev)]
                    row["linking"] = {**stamp(f"linking-test-{name}"), "chosen": chosen["linking"],
                                      "dev_own_acc1": own_dev["acc@1"], "dev_chosen_acc1": chosen["acc@1"],
                                      "test_own_acc1": own_test["acc@1"], "test_chosen_acc1": chosen_test["acc@1"],
                                      "test_chosen_acc5": chosen_test["acc@5"]}
                runs.append(row)
    return {"machine": f"{platform.machine()}, {os.cpu_count()} cores",
            "steps": {"count": len(records), "seconds": sum(r.get("seconds", 0.0) for r in records.values())},
            "stages": stages, "runs": runs}


# ---------------------------------------------------------------------------------------------
# The record file.


def load_record(path: Path):
    record = read_json(path)
    if record is None:
        if path.exists():
            sys.exit(f"{path} is not valid JSON")
        record = {"experiments": []}
    return record


def save_record(path: Path, record):
    """One row a line, so that a rerun's diff shows the rows it replaced."""
    def rows(items):
        return "[\n" + ",\n".join("    " + json.dumps(r, ensure_ascii=False) for r in items) + "\n   ]"
    experiments = []
    for e in record["experiments"]:
        fields = [f'   "{k}": {json.dumps(v, ensure_ascii=False)}' for k, v in e.items() if k not in ("stages", "runs")]
        fields += [f'   "stages": {rows(e["stages"])}', f'   "runs": {rows(e["runs"])}']
        experiments.append("  {\n" + ",\n".join(fields) + "\n  }")
    path.write_text('{\n "experiments": [\n' + ",\n".join(experiments) + "\n ]\n}\n")
    if json.loads(path.read_text()) != record:
        sys.exit(f"{path}: the record written does not read back as the one recorded")


def _index(order, value):
    return order.index(value) if value in order else len(order)


def run_order(row):
    return (_index(list(CORPORA), row["corpus"]), _index(PRESETS, row["preset"]), _index(START_ORDER, row["start"]),
            row["start"])


def stage_order(row):
    return (_index(STAGE_ORDER, row["stage"]), _index(list(CORPORA), row.get("corpus")))


def merge(record, name: str, collected):
    """Puts the collected rows into experiment NAME: a row replaces the one with its key, the rest stay."""
    experiment = next((e for e in record["experiments"] if e["name"] == name), None)
    if experiment is None:
        experiment = {"name": name, "stages": [], "runs": []}
        record["experiments"].append(experiment)
    experiment["machine"] = collected["machine"]
    experiment["steps"] = collected["steps"]
    for part, key, order in (("stages", lambda r: (r["stage"], r.get("corpus")), stage_order),
                             ("runs", lambda r: (r["preset"], r["start"], r["corpus"]), run_order)):
        new_keys = {key(r) for r in collected[part]}
        kept = [r for r in experiment[part] if key(r) not in new_keys]
        experiment[part] = sorted(kept + collected[part], key=order)


# ---------------------------------------------------------------------------------------------
# Rendering.


def fmt(value, digits=4):
    return "-" if value is None else f"{value:.{digits}f}"


def minutes(seconds):
    if seconds is None:
        return "-"
    return f"{int(seconds // 60)} min {int(round(seconds % 60))} s"


def memory(gib):
    return "-" if gib is None else f"{gib:.2f} GB"


def measured_range(stamps):
    """"FIRST to LAST" over stamps whose "measured" is a date or already such a range."""
    dates = sorted(d for s in stamps for d in s["measured"].split(" to "))
    if not dates:
        return ""
    return dates[0] if dates[0] == dates[-1] else f"{dates[0]} to {dates[-1]}"


def stage_line(stage):
    kind, commit = stage["stage"], stage["commit"]
    if kind == "mlm":
        curve = ", ".join(fmt(v) for v in stage["dev_acc1_by_epoch"])
        return (f"| masked-LM stage on the titles and abstracts of NCBI Disease's and BC5CDR's training and dev"
                f" splits (mlm, short; {stage['status']}) | held-out masked-token accuracy by epoch (0: untrained)"
                f" {curve}; kept epoch {stage['best_epoch']} | {minutes(stage['seconds'])} (in the pretrain step) |"
                f" | {commit} |")
    if kind == "pretrain":
        # Every validation of the run: dev Acc@1 and the mean cosine of the dev mention vectors
        # (the collapse check's figures).
        curve = ", ".join(fmt(v) for v in stage["dev_acc1_by_epoch"])
        cosines = ", ".join(fmt(v, 3) for v in stage["mean_cosine_by_epoch"])
        after = ", after the masked-LM stage; the step's time is both stages'" if stage["after_mlm"] else ""
        return (f"| pretrain on MEDIC (sapbert, short{after}; {stage['status']}) | NCBI dev Acc@1 against MEDIC's"
                f" names by epoch (0: untrained) {curve}; kept epoch {stage['best_epoch']}; mean cosine of the dev"
                f" mention vectors {cosines}; collapsed validations: {stage['collapsed_validations']} |"
                f" {minutes(stage['seconds'])} | {memory(stage['peak_memory_gib'])} | {commit} |")
    if kind == "encoder":
        return (f"| pretrained encoder alone, NCBI test (dense, no fine-tuning) | Acc@1 {fmt(stage['acc1'])},"
                f" Acc@5 {fmt(stage['acc5'])} | | | {commit} |")
    if kind == "sparse":
        return (f"| sparse TF-IDF, NCBI test (reference) | Acc@1 {fmt(stage['acc1'])}, Acc@5 {fmt(stage['acc5'])} |"
                f" | | {commit} |")
    title = CORPORA[stage["corpus"]][0]
    return (f"| context alignment of the pretrained encoder on {title}'s training mentions ({stage['status']}) |"
            f" {title} dev Acc@1, mentions read in their sentences between [S]/[E] against MEDIC's names:"
            f" {fmt(stage['untrained_dev_acc1'])} -> {fmt(stage['best_dev_acc1'])} (epoch {stage['best_epoch']}) |"
            f" {minutes(stage['seconds'])} | {memory(stage['peak_memory_gib'])} | {commit} |")


def collapsed_cell(row):
    during = row["collapsed_validations"]
    return (("**yes**: " + row["collapse"] if row["collapse"] else "no") +
            (f" (the model of {during} validation(s) collapsed)" if during else ""))


def render_experiment(experiment) -> str:
    stages, runs = experiment["stages"], experiment["runs"]
    stamps = stages + runs + [r["linking"] for r in runs if "linking" in r]
    lines = [f"Generated by `tools/reproduce_results.py` from docs/results.json ({experiment['machine']}, measured"
             f" {measured_range(stamps)}); do not edit by hand.", ""]
    if stages:
        lines += ["| step | result | wall time | peak memory | commit |", "| --- | --- | ---: | ---: | --- |"]
        lines += [stage_line(s) for s in stages] + [""]
    for key, (title, split) in CORPORA.items():
        rows = [r for r in runs if r["corpus"] == key]
        if not rows:
            continue
        lines += [f"#### {title} ({split}), each preset's short schedule", "",
                  f"| preset | start | schedule | dev Acc@1 untrained -> best (epoch) | {split} Acc@1 |"
                  f" {split} strict Acc@1 | {split} Acc@5 | collapsed | train time | peak memory | commit |",
                  "| --- | --- | --- | --- | ---: | ---: | ---: | --- | ---: | ---: | --- |"]
        for r in rows:
            lines.append(f"| {r['preset']} | {r['start']} | {r['schedule']} | {fmt(r['untrained_dev_acc1'])} ->"
                         f" {fmt(r['best_dev_acc1'])} ({r['best_epoch']}) | {fmt(r['acc1'])} | {fmt(r['strict_acc1'])} |"
                         f" {fmt(r['acc5'])} | {collapsed_cell(r)} | {minutes(r['train_seconds'])} |"
                         f" {memory(r['peak_memory_gib'])} | {r['commit']} |")
        lines.append("")
    linked = [r for r in runs if "linking" in r]
    if linked:
        lines += ["#### NCBI Disease, linking chosen on dev (kNN datastore of the training mentions)", "",
                  "| preset | start | chosen on dev | dev Acc@1, own linking -> chosen |"
                  " test Acc@1, own linking -> chosen | test Acc@5, chosen | commit |",
                  "| --- | --- | --- | --- | --- | ---: | --- |"]
        for r in linked:
            k = r["linking"]
            lines.append(f"| {r['preset']} | {r['start']} | {k['chosen']} | {fmt(k['dev_own_acc1'])} ->"
                         f" {fmt(k['dev_chosen_acc1'])} | {fmt(k['test_own_acc1'])} -> {fmt(k['test_chosen_acc1'])} |"
                         f" {fmt(k['test_chosen_acc5'])} | {k['commit']} |")
        lines.append("")
    steps = experiment["steps"]
    lines.append(f"The {steps['count']} steps of the runs folder it was last recorded from took"
                 f" {minutes(steps['seconds'])} in all.")
    return "\n".join(lines) + "\n"


def newest_rows(record):
    """For every preset, start and corpus the row of its newest run: the latest date, then the
    experiment recorded later."""
    newest = {}
    for index, experiment in enumerate(record["experiments"]):
        for row in experiment["runs"]:
            key = (row["preset"], row["start"], row["corpus"])
            rank = (row["measured"].split(" to ")[-1], index)
            if key not in newest or rank >= newest[key][0]:
                newest[key] = (rank, experiment["name"], row)
    return sorted(((name, row) for _, name, row in newest.values()), key=lambda item: run_order(item[1]))


def render_summary(record) -> str:
    lambdas = ", ".join(sorted({g.split("@")[1].split("/")[0] for g in LINKING_GRID if "@" in g}))
    legend = ("Generated by `tools/reproduce_results.py` from docs/results.json; do not edit by hand. For every"
              " preset, start and corpus: the figures of its newest run, the experiment whose block below holds"
              " it, its commit (HEAD when its step ran; for the rows carried over from the blocks written before"
              " docs/results.json, the commit that wrote the row) and when it was measured. Starts: random = the"
              " compact encoder from scratch; pretrained = the self-alignment on MEDIC; context = that encoder"
              " after the context alignment on the corpus's training mentions; +mlm = with the masked-LM stage"
              " before the self-alignment. Linking chosen on dev: the run's own linking or kNN-BioEL's"
              f" interpolation with its datastore of the training mentions (k 4, lambda {lambdas}; temperatures"
              " 0.01/1.0 and 0.05/5.0), whichever is best on NCBI Disease dev, evaluated once on test.")
    lines = [textwrap.fill(legend, 100, break_long_words=False, break_on_hyphens=False), "",
             "| preset | start | corpus (split) | Acc@1 | strict Acc@1 | Acc@5 | Acc@1, linking chosen on dev |"
             " experiment | commit | measured |",
             "| --- | --- | --- | ---: | ---: | ---: | ---: | --- | --- | --- |"]
    for name, r in newest_rows(record):
        title, split = CORPORA[r["corpus"]]
        linked = fmt(r["linking"]["test_chosen_acc1"]) if "linking" in r else ""
        collapsed = " (collapsed)" if r["collapse"] else ""
        lines.append(f"| {r['preset']} | {r['start']} | {title} ({split}) | {fmt(r['acc1'])}{collapsed} |"
                     f" {fmt(r['strict_acc1'])} | {fmt(r['acc5'])} | {linked} | {name} | {r['commit']} |"
                     f" {r['measured']} |")
    return "\n".join(lines) + "\n"


def replace_block(document: str, begin: str, end: str, text: str) -> str:
    head, rest = document.split(begin, 1)
    _, tail = rest.split(end, 1)
    return head + begin + "\n" + text + end + tail


def write_tables(results: Path, text: str, begin: str, end: str):
    """Writes TEXT between the markers BEGIN and END of RESULTS."""
    document = results.read_text()
    if begin not in document or end not in document:
        sys.exit(f"{results} lacks the markers {begin} / {end}")
    results.write_text(replace_block(document, begin, end, text))


def write_document(results: Path, record):
    """Renders the summary and every experiment's block into RESULTS."""
    document = results.read_text()
    begin, end = markers(SUMMARY)
    if begin not in document or end not in document:
        sys.exit(f"{results} lacks the markers {begin} / {end}")
    document = replace_block(document, begin, end, render_summary(record))
    for experiment in record["experiments"]:
        begin, end = markers(experiment["name"])
        text = render_experiment(experiment)
        if begin in document and end in document:
            document = replace_block(document, begin, end, text)
        elif NEW_BLOCKS in document:
            document = document.replace(NEW_BLOCKS, f"### Experiment {experiment['name']}\n\n{begin}\n{text}{end}\n\n"
                                        + NEW_BLOCKS)
        else:
            sys.exit(f"{results} has no block for experiment {experiment['name']} and no line {NEW_BLOCKS}")
    results.write_text(document)
