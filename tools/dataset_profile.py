#!/usr/bin/env python3
"""Writes the linking difficulty tables of docs/data.md ("Why the trained presets gain less on
BC5CDR-Disease") from the program's own figures: `linkscope-cli eval --method sparse --per-mention`
on NCBI Disease dev and test and on BC5CDR-Disease dev, then `linkscope-cli stats
--linking-difficulty --json` on every split with those outcomes. The tables go between
`<!-- dataset-profile:begin -->` and `<!-- dataset-profile:end -->`, stamped with the commit and the
date; no figure there is typed by hand.

  tools/dataset_profile.py [--bin build/default/bin] [--data ../shared/data] [--doc docs/data.md]
                           [--out build/dataset-profile] [--print]

  --data   the data folder (default: $LINKSCOPE_DATA_DIR, else ../shared/data beside the checkout)
  --out    where the per-mention files and the stats records are kept (OUT/*.jsonl, OUT/*.json)
  --print  print the tables instead of writing the page

It runs in well under a minute on one core (sparse linking and counting only).
"""
import argparse
import json
import os
import subprocess
import sys
from datetime import datetime, timezone
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
BEGIN = "<!-- dataset-profile:begin -->"
END = "<!-- dataset-profile:end -->"

# The splits profiled: (key, title, corpus file, which eval split gives its outcomes or None).
NCBI = "ncbi-disease/NCBI{}_corpus.txt"
CDR = "bc5cdr/CDR_{}.PubTator.txt"
SETS = [
    ("ncbi-train", "NCBI train", NCBI.format("trainset"), None),
    ("ncbi-dev", "NCBI dev", NCBI.format("developset"), "dev"),
    ("ncbi-test", "NCBI test", NCBI.format("testset"), "test"),
    ("cdr-train", "BC5CDR-D train", CDR.format("TrainingSet"), None),
    ("cdr-dev", "BC5CDR-D dev", CDR.format("DevelopmentSet"), "dev"),
]
CLASS_ROWS = ["gold name", "shared name", "other's name", "no KB name", "composite", "unknown id", "cui-less"]
PROPERTY_ROWS = ["chemical-adjacent", "abbreviation expanded", "seen in training", "unseen in training",
                 "1 word", "2 words", "3 words", "4+ words"]
LABELS = {
    "gold name": "KB name of the gold concept only",
    "shared name": "KB name of the gold concept and of another (homonym)",
    "other's name": "KB name of another concept only",
    "no KB name": "no KB name",
    "composite": "composite (several ids)",
    "unknown id": "id absent from MEDIC 2012",
    "cui-less": "CUI-less (-1)",
    "chemical-adjacent": "chemical-adjacent",
    "abbreviation expanded": "abbreviation expanded",
    "seen in training": "gold concept seen in training",
    "unseen in training": "gold concept unseen in training",
}


def git(*args):
    return subprocess.run(["git", *args], cwd=ROOT, capture_output=True, text=True).stdout.strip()


def run(command):
    result = subprocess.run(command, cwd=ROOT, capture_output=True, text=True,
                            env={**os.environ, "LINKSCOPE_HUGE_PAGES": "0"})
    if result.returncode != 0:
        sys.exit(f"dataset_profile: `{' '.join(map(str, command))}` failed:\n{result.stderr}")
    return result.stdout


def is_cdr(key):
    return key.startswith("cdr")


def eval_command(cli, data, key, split, per_mention):
    """The sparse evaluation of docs/results.md for the split, writing its per-mention file."""
    if is_cdr(key):
        corpora = ["--train", data / CDR.format("TrainingSet"), "--dev", data / CDR.format("DevelopmentSet"),
                   "--types", "Disease"]
    else:
        corpora = ["--train", data / NCBI.format("trainset"), "--dev", data / NCBI.format("developset"),
                   "--test", data / NCBI.format("testset"), "--spelling", data / "medic/ncbi-spell-check.txt"]
    return [cli, "eval", *corpora, "--kb", data / "medic/medic_06Jul2012.txt", "--split", split,
            "--method", "sparse", "--threads", "1", "--per-mention", per_mention, "--json"]


MEDIC = "medic/medic_06Jul2012.txt"
CTD = "ctd-diseases/CTD_diseases.tsv.gz"


def stats_command(cli, data, key, corpus, outcomes, kb=MEDIC):
    command = [cli, "stats", "--corpus", data / corpus, "--kb", data / kb,
               "--linking-difficulty", "--chemical-corpus", data / CDR.format("TrainingSet"),
               data / CDR.format("DevelopmentSet"), "--json"]
    command += ["--types", "Disease"] if is_cdr(key) else ["--spelling", data / "medic/ncbi-spell-check.txt"]
    if outcomes:
        command += ["--outcomes", outcomes]
    return command


def profile(args):
    cli = Path(args.bin) / "linkscope-cli"
    data = Path(args.data)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    records = {}
    for key, _, corpus, split in SETS:
        per_mention = None
        if split:
            per_mention = out / f"{key}.sparse.jsonl"
            summary = json.loads(run(eval_command(cli, data, key, split, per_mention)))
            (out / f"{key}.sparse.json").write_text(json.dumps(summary, indent=2) + "\n")
        report = json.loads(run(stats_command(cli, data, key, corpus, per_mention)))
        (out / f"{key}.stats.json").write_text(json.dumps(report, indent=2) + "\n")
        records[key] = report["corpora"][0]["linking_difficulty"]
        # The same mentions against CTD's diseases of 2017: what a later vocabulary names.
        ctd = json.loads(run(stats_command(cli, data, key, corpus, None, kb=CTD)))
        (out / f"{key}.stats-ctd.json").write_text(json.dumps(ctd, indent=2) + "\n")
        records[key]["ctd"] = ctd["corpora"][0]["linking_difficulty"]
        if per_mention:
            records[key]["spelled_as_query_errors"] = spelled_as_query_errors(per_mention)
    return records


def by_name(section, name):
    for group in section["classes"] + section["properties"]:
        if group["name"] == name:
            return group
    raise KeyError(name)


def pct(value):
    return f"{100.0 * value:.1f}"


def linked(section):
    """Mentions with a concept (every class but CUI-less)."""
    return section["mentions"] - by_name(section, "cui-less")["mentions"]


def spelled_as_query_errors(per_mention):
    """Wrong mentions whose every part's top entry is a dictionary name spelled exactly as the part
    (another concept's KB name, or a training mention annotated otherwise): both strings are the
    program's own normalized output, compared for equality."""
    count = 0
    with open(per_mention) as lines:
        for line in lines:
            row = json.loads(line)
            if row["correct@1"]:
                continue
            if all(part["predictions"] and part["predictions"][0]["name"] == part["query"] for part in row["parts"]):
                count += 1
    return count


def shares_table(records):
    head = "| mentions | " + " | ".join(title for _, title, _, _ in SETS) + " |"
    lines = [head, "| --- |" + " ---: |" * len(SETS)]
    lines.append("| all (of the type) | " + " | ".join(f"{records[k]['mentions']:,}" for k, *_ in SETS) + " |")
    for name in CLASS_ROWS + PROPERTY_ROWS:
        cells = []
        for key, *_ in SETS:
            group = by_name(records[key], name)
            if name in ("seen in training", "unseen in training") and "outcomes" not in records[key]:
                cells.append("")
                continue
            cells.append(f"{pct(group['share'])} % ({group['mentions']:,})")
        lines.append(f"| {LABELS.get(name, name)} | " + " | ".join(cells) + " |")
    lines.append("| mentions per distinct query text | " + " | ".join(
        f"{linked(records[k]) / max(1, records[k]['distinct_texts']):.2f}" for k, *_ in SETS) + " |")
    lines.append("| mean length in words | " + " | ".join(
        f"{sum(g['mean_words'] * g['mentions'] for g in records[k]['classes']) / max(1, linked(records[k])):.2f}"
        for k, *_ in SETS) + " |")
    return "\n".join(lines)


def sparse_table(records):
    keys = [(key, title) for key, title, _, split in SETS if split]
    head = "| group | " + " | ".join(f"{title}: Acc@1 | errors (% of all)" for _, title in keys) + " |"
    lines = [head, "| --- |" + " ---: | ---: |" * len(keys)]
    lines.append("| all linked mentions | " + " | ".join(
        f"{records[k]['outcomes']['acc_at_1']:.4f} | {records[k]['outcomes']['errors']}" for k, _ in keys) + " |")
    for name in CLASS_ROWS[:5] + PROPERTY_ROWS:
        cells = []
        for key, _ in keys:
            group = by_name(records[key], name)
            acc = "–" if group.get("acc_at_1") is None else f"{group['acc_at_1']:.4f}"
            cells.append(f"{acc} | {group['errors']} ({pct(group['error_share'])} %)")
        lines.append(f"| {LABELS.get(name, name)} | " + " | ".join(cells) + " |")
    lines.append("| errors whose top name is spelled as the query | " + " | ".join(
        f" | {records[k]['spelled_as_query_errors']} ({pct(records[k]['spelled_as_query_errors'] / max(1, records[k]['outcomes']['errors']))} %)"
        for k, _ in keys) + " |")
    lines.append("| distinct query texts among the errors | " + " | ".join(
        f" | {records[k]['outcomes']['distinct_wrong_texts']}" for k, _ in keys) + " |")
    return "\n".join(lines)


def ctd_table(records):
    lines = ["| against CTD diseases (2017) instead of MEDIC 2012 | " + " | ".join(t for _, t, _, _ in SETS) + " |",
             "| --- |" + " ---: |" * len(SETS)]
    for name in ["gold name", "no KB name", "unknown id"]:
        cells = []
        for key, *_ in SETS:
            medic, ctd = by_name(records[key], name), by_name(records[key]["ctd"], name)
            cells.append(f"{pct(ctd['share'])} % ({pct(medic['share'])} %)")
        label = "id absent from the KB" if name == "unknown id" else LABELS[name]
        lines.append(f"| {label} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def block(records):
    commit = git("rev-parse", "--short", "HEAD")
    changed = " (with uncommitted changes to core/ or app/)" if git("status", "--porcelain", "--", "core",
                                                                   "app") else ""
    date = datetime.now(timezone.utc).strftime("%Y-%m-%d")
    return "\n".join([
        f"Generated by `tools/dataset_profile.py` at commit {commit}{changed}, {date}. "
        "Share of the mentions of each split (count); the sparse linker's figures are on the "
        "mentions it links (the protocol drops CUI-less mentions and ids absent from MEDIC 2012).",
        "",
        shares_table(records),
        "",
        "The sparse linker (`eval --method sparse`, as in [results.md](results.md)) on each group: Acc@1, "
        "and its errors at rank 1 with their share of all its errors, the headroom a trained "
        "linker can take.",
        "",
        sparse_table(records),
        "",
        "The same classes with CTD's disease vocabulary of June 2017 as the KB (MEDIC 2012 in "
        "parentheses):",
        "",
        ctd_table(records),
    ])


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    default_data = os.environ.get("LINKSCOPE_DATA_DIR", str(ROOT.parent / "shared" / "data"))
    parser.add_argument("--bin", default=str(ROOT / "build" / "default" / "bin"))
    parser.add_argument("--data", default=default_data)
    parser.add_argument("--doc", default=str(ROOT / "docs" / "data.md"))
    parser.add_argument("--out", default=str(ROOT / "build" / "dataset-profile"))
    parser.add_argument("--print", action="store_true", help="print the tables instead of writing the page")
    args = parser.parse_args()
    if not (Path(args.data) / "medic" / "medic_06Jul2012.txt").exists():
        sys.exit(f"dataset_profile: no MEDIC under {args.data} (set --data or LINKSCOPE_DATA_DIR)")
    text = block(profile(args))
    if args.print:
        print(text)
        return
    doc = Path(args.doc)
    page = doc.read_text()
    if BEGIN not in page or END not in page:
        sys.exit(f"dataset_profile: {doc} has no {BEGIN} ... {END} markers")
    before, rest = page.split(BEGIN, 1)
    after = rest.split(END, 1)[1]
    doc.write_text(before + BEGIN + "\n" + text + "\n" + END + after)
    print(f"dataset_profile: wrote the tables of {doc}")


if __name__ == "__main__":
    main()
