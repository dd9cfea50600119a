#!/usr/bin/env python3
"""One-off migration: reads the generated blocks of docs/results.md as commit REV holds them
(`<!-- reproduce-results[:NAME]:begin -->` ... `end -->`, written by tools/reproduce_results.py
from runs that are no longer kept) into the record docs/results.json, so that no figure is typed
by hand. Each block becomes an experiment (BLOCK_EXPERIMENTS names them); each row keeps the
block's stamp: its measured dates, and as commit the one `git blame REV` gives for the row's line
(the commit that wrote the row). A block whose steps include the masked-LM stage made its
pretrained and context starts from that stage: their rows get the start suffix "+mlm".

  tools/import_result_blocks.py REV [--record docs/results.json]
"""
import argparse
import re
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from results_record import CORPORA, MLM_SUFFIX, run_order, save_record, stage_order  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
BLOCK_EXPERIMENTS = {"": "presets", "2026-11-27": "mention-alone", "2026-11-27-b": "no-head-first-stage",
                     "2026-11-27-c": "mlm"}
TITLES = {title: key for key, (title, _) in CORPORA.items()}


def git(*args):
    return subprocess.run(["git", "-C", str(ROOT), *args], check=True, capture_output=True, text=True).stdout


def blamed_lines(rev: str):
    """(short commit, text) of every line of docs/results.md at REV."""
    short = {}
    lines, commit = [], None
    for line in git("blame", "--porcelain", rev, "--", "docs/results.md").splitlines():
        if line.startswith("\t"):
            lines.append((short[commit], line[1:]))
        elif re.match(r"^[0-9a-f]{40} ", line):
            commit = line.split()[0]
            if commit not in short:
                short[commit] = git("rev-parse", "--short=7", commit).strip()
    return lines


def number(text):
    return None if text == "-" else float(text)


def seconds(text):
    if text == "-":
        return None
    match = re.fullmatch(r"(\d+) min (\d+) s", text)
    return int(match[1]) * 60 + int(match[2])


def gib(text):
    return None if text == "-" else float(text.removesuffix(" GB"))


def cells(line):
    return [c.strip() for c in line.strip().removeprefix("|").removesuffix("|").split("|")]


def stage_row(cell, stamp):
    what, result, wall, peak = cell
    if what.startswith("masked-LM stage"):
        m = re.fullmatch(r"held-out masked-token accuracy by epoch \(0: untrained\) (.*); kept epoch (\d+)", result)
        return {"stage": "mlm", **stamp, "status": re.search(r"; (\w+)\)$", what)[1],
                "dev_acc1_by_epoch": [float(v) for v in m[1].split(", ")], "best_epoch": int(m[2]),
                "seconds": seconds(wall.removesuffix(" (in the pretrain step)"))}
    if what.startswith("pretrain on MEDIC"):
        m = re.fullmatch(r"NCBI dev Acc@1 against MEDIC's names by epoch \(0: untrained\) (.*); kept epoch (\d+);"
                         r" mean cosine of the dev mention vectors (.*); collapsed validations: (\d+)", result)
        return {"stage": "pretrain", **stamp, "status": re.search(r"; (\w+)\)$", what)[1],
                "after_mlm": "after the masked-LM stage" in what,
                "dev_acc1_by_epoch": [float(v) for v in m[1].split(", ")],
                "mean_cosine_by_epoch": [number(v) for v in m[3].split(", ")],
                "collapsed_validations": int(m[4]), "best_epoch": int(m[2]), "seconds": seconds(wall),
                "peak_memory_gib": gib(peak)}
    if what.startswith("pretrained encoder alone") or what.startswith("sparse TF-IDF"):
        m = re.fullmatch(r"Acc@1 ([\d.]+), Acc@5 ([\d.]+)", result)
        return {"stage": "encoder" if what.startswith("pretrained") else "sparse", **stamp,
                "acc1": float(m[1]), "acc5": float(m[2])}
    m = re.fullmatch(r"context alignment of the pretrained encoder on (.*)'s training mentions \((\w+)\)", what)
    r = re.search(r": ([\d.]+) -> ([\d.]+) \(epoch (\d+)\)$", result)
    return {"stage": "context-alignment", "corpus": TITLES[m[1]], **stamp, "status": m[2],
            "untrained_dev_acc1": float(r[1]), "best_dev_acc1": float(r[2]), "best_epoch": int(r[3]),
            "seconds": seconds(wall), "peak_memory_gib": gib(peak)}


def run_row(cell, corpus, stamp):
    preset, start, schedule, dev, acc1, strict, acc5, collapsed, wall, peak = cell
    d = re.fullmatch(r"([\d.]+) -> ([\d.]+) \((\d+)\)", dev)
    c = re.fullmatch(r"(?:\*\*yes\*\*: (.*?)|no)(?: \(the model of (\d+) validation\(s\) collapsed\))?", collapsed)
    return {"preset": preset, "start": start, "corpus": corpus, **stamp, "schedule": schedule,
            "untrained_dev_acc1": float(d[1]), "best_dev_acc1": float(d[2]), "best_epoch": int(d[3]),
            "acc1": number(acc1), "strict_acc1": number(strict), "acc5": number(acc5), "collapse": c[1] or "",
            "collapsed_validations": int(c[2] or 0), "train_seconds": seconds(wall), "peak_memory_gib": gib(peak)}


def linking_part(cell, stamp):
    preset, start, chosen, dev, test, acc5 = cell
    dev_own, dev_chosen = dev.split(" -> ")
    test_own, test_chosen = test.split(" -> ")
    return (preset, start), {**stamp, "chosen": chosen, "dev_own_acc1": float(dev_own),
                             "dev_chosen_acc1": float(dev_chosen), "test_own_acc1": float(test_own),
                             "test_chosen_acc1": float(test_chosen), "test_chosen_acc5": float(acc5)}


def experiment(name, block):
    """The experiment of one block: [(commit, line)] between its markers."""
    stamp_line = re.search(r"Generated by `tools/reproduce_results.py` \((.*), measured ([\d-]+(?: to [\d-]+)?)\)",
                           block[0][1])
    machine, measured = stamp_line[1], stamp_line[2]
    stages, runs, linking, section, steps = [], [], {}, None, None
    for commit, line in block[1:]:
        stamp = {"commit": commit, "measured": measured}
        if line.startswith("| step |"):
            section = "steps"
        elif line.startswith("#### "):
            title = line[5:].split(" (")[0].split(",")[0]
            section = "linking" if "linking chosen on dev" in line else TITLES[title]
        elif m := re.fullmatch(r"The (\d+) steps recorded so far took (.*) in all on this machine\.", line):
            steps = {"count": int(m[1]), "seconds": seconds(m[2])}
        elif line.startswith("| ") and not line.startswith("| ---") and not line.startswith("| preset |") \
                and not line.startswith("| (not run yet)"):
            if section == "steps":
                stages.append(stage_row(cells(line), stamp))
            elif section == "linking":
                key, part = linking_part(cells(line), stamp)
                linking[key] = part
            else:
                runs.append(run_row(cells(line), section, stamp))
    if any(s["stage"] == "mlm" for s in stages):
        for row in runs:
            if row["start"] != "random":
                row["start"] += MLM_SUFFIX
        linking = {(p, s if s == "random" else s + MLM_SUFFIX): v for (p, s), v in linking.items()}
    for row in runs:
        if row["corpus"] == "ncbi" and (row["preset"], row["start"]) in linking:
            row["linking"] = linking.pop((row["preset"], row["start"]))
    if linking:
        sys.exit(f"block {name}: linking rows without their run: {sorted(linking)}")
    return {"name": BLOCK_EXPERIMENTS[name], "machine": machine, "steps": steps,
            "stages": sorted(stages, key=stage_order), "runs": sorted(runs, key=run_order)}


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("rev")
    parser.add_argument("--record", default=str(ROOT / "docs" / "results.json"))
    args = parser.parse_args()
    lines = blamed_lines(args.rev)
    experiments, block, name = [], None, None
    for commit, text in lines:
        if m := re.fullmatch(r"<!-- reproduce-results(?::([\w-]+))?:begin -->", text):
            block, name = [], m[1] or ""
        elif re.fullmatch(r"<!-- reproduce-results(?::[\w-]+)?:end -->", text):
            experiments.append(experiment(name, block))
            block = None
        elif block is not None:
            block.append((commit, text))
    save_record(Path(args.record), {"experiments": experiments})
    print(f"{len(experiments)} experiments, {sum(len(e['runs']) for e in experiments)} runs written to {args.record}")


if __name__ == "__main__":
    main()
