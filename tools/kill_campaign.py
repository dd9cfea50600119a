#!/usr/bin/env python3
"""SIGKILL campaign: the real linkscope-cli (and the project store's decision writer) killed at
seeded random moments during merge, decision recording, export and training, each outcome checked.

What must hold after every kill:
- merge: the receiving project passes `linkscope-cli project check`; its decisions are exactly
  those it held before (none of the incoming ones) or exactly those an uninterrupted merge leaves
  (all of them); merging again completes it to the uninterrupted result.
- record (tests/project/project_store_crash_writer: ProjectStore::record, the GUI's path, one
  committed decision at a time, printing "saved ID" after each commit): every decision reported
  saved is in the file with every field as written, at most one more (committed as the kill
  came), and `project check` passes.
- export (pubtator, bioc, decisions; one file): the file at --out is the old one (or absent when
  there was none) or complete and identical to an uninterrupted export; a rerun writes the same
  file and leaves no temporary beside it.
- export of a folder (pubtator and bioc of several splits, brat of one split and of several; an
  older export in the folder, with files this one does not write, or none; --out sometimes a link
  to the folder): every file and folder under --out is the old tree or the new one (the old tree
  with the export's files), byte for byte; a rerun gives the new tree and leaves no staging folder
  beside --out nor temporary in it.
- train (a tiny BioSyn run on the demo data, a checkpoint every step): killed and resumed with
  `train --resume` until it ends, it ends as an uninterrupted run (run.json and log apart from
  timings, bit-identical weights, nothing left of a swap), as tests/cli/test_cli_train_kills does.
- team (tools/kill_campaign_team.py): a durable PostgreSQL server of the campaign's own, SIGKILLed
  and restarted while simulated curators write, some curators SIGKILLed and restarted too: every
  decision a curator was told was stored is there afterwards, and nothing else is. A kill here is
  one of the server; skipped where initdb is missing; not in --quick (restarts take seconds).

Kill moments are drawn from a seeded generator, uniform over the command's measured run time
(start-up included), or triggered by what the command writes: the project's WAL growing inside
the merge's commit, the export's temporary file growing, a folder export's staging folder holding
a share of the new bytes (then a random instant more, to land in the swap), a checkpoint swap's
folder appearing.
Where a moment lands still depends on the machine's speed, so a failure's seed reproduces the
same draw, not always the same instant:
    tools/kill_campaign.py --only merge --trial 17 --seed 38

    nice -n 10 tools/kill_campaign.py --kills 25 --json build/kill-campaign.json   # the full run
    tools/kill_campaign.py --quick        # CI (ctest test_kill_campaign): merge, record, export
                                          # (as many export kills as kinds, kinds in turn)

Exit status 0 when every check passed and each command reached its kill count; 1 otherwise.
"""
import argparse
import json
import os
import random
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "tests" / "hostile"))
import hostile_inputs as hostile  # noqa: E402  (the project-file writer and the demo data)

DEMO = REPO / "resources" / "demo"
COMMANDS = ("merge", "record", "export", "train", "team")
EXPORT_DATE = "20260101"


class Failure(Exception):
    pass


def child_env():
    env = dict(os.environ)
    env.setdefault("OMP_NUM_THREADS", "1")
    env.setdefault("MKL_NUM_THREADS", "1")
    return env


class Campaign:
    def __init__(self, cli, writer, work, quick, log):
        self.cli = cli
        self.writer = writer
        self.work = Path(work)
        self.quick = quick
        self.log = log
        # Projects of schema 3, and of schema 1 (whose rows are checksummed inside the first
        # write's transaction, so that a kill there must leave it at version 1 as it was).
        self.versions = ("v3",) if quick else ("v3", "v1")
        # Export kinds: one file (a format name), or a folder: several splits ("-splits", the
        # folder holds SPLIT.pubtator.txt or SPLIT/ for brat) or brat's one split (PMID.txt/.ann).
        self.export_kinds = (("pubtator", "pubtator-splits", "brat") if quick else
                             ("pubtator", "bioc", "decisions", "pubtator-splits", "bioc-splits", "brat", "brat-splits"))

    # ----- running and killing -------------------------------------------------------------------

    def run(self, args, cwd=None, check=True, timeout=600):
        result = subprocess.run([self.cli] + args, cwd=cwd or self.work, capture_output=True, text=True,
                                env=child_env(), timeout=timeout)
        if check and result.returncode != 0:
            raise Failure("`linkscope-cli %s` exited %d: %s" % (" ".join(args), result.returncode,
                                                                  result.stderr.strip()[-400:]))
        return result

    def kill_at(self, argv, trigger, cwd=None, stdout=subprocess.DEVNULL, deadline=120):
        """Starts argv and SIGKILLs it when trigger(elapsed seconds) says so (a Failure when it
        runs past `deadline`). Returns (killed, returncode, stderr)."""
        err_path = self.work / "stderr.txt"
        with open(err_path, "wb") as err:
            process = subprocess.Popen(argv, cwd=cwd or self.work, stdout=stdout, stderr=err, env=child_env())
            started = time.monotonic()
            killed = False
            while process.poll() is None:
                elapsed = time.monotonic() - started
                if elapsed > deadline:
                    process.kill()
                    process.wait()
                    raise Failure("%s did not end within %d s (a hang)" % (" ".join(argv[:2]), deadline))
                if trigger(elapsed):
                    try:
                        process.send_signal(signal.SIGKILL)
                        killed = True
                    except ProcessLookupError:
                        pass
                    break
                time.sleep(0.0005)
            code = process.wait()
        killed = killed and code == -signal.SIGKILL
        return killed, code, err_path.read_text(errors="replace")

    @staticmethod
    def after(moment):
        return lambda elapsed: elapsed >= moment

    @staticmethod
    def when_grown(path, size, moment_limit):
        """Fires once `path` holds at least `size` bytes (or at moment_limit, a fallback)."""
        def trigger(elapsed):
            try:
                if os.stat(path).st_size >= size:
                    return True
            except FileNotFoundError:
                pass
            return elapsed >= moment_limit
        return trigger

    def measure(self, args, cwd=None, repeats=2, prepare=None):
        """The median wall time of an uninterrupted run (start-up included)."""
        times = []
        for _ in range(repeats):
            if prepare:
                prepare()
            started = time.monotonic()
            self.run(args, cwd=cwd)
            times.append(time.monotonic() - started)
        times.sort()
        return times[len(times) // 2]

    def decisions_of(self, project, out="decisions.jsonl", check=True):
        """The project's decisions as `export --format decisions` writes them (export runs the
        full integrity check itself); with `check`, `project check` must pass first."""
        if check:
            self.run(["project", "check", str(project)])
        target = self.work / out
        if target.exists():
            target.unlink()
        self.run(["export", "--project", str(project), "--format", "decisions", "--out", str(target)])
        return [json.loads(line) for line in target.read_text().splitlines() if line.strip()]

    # ----- shared inputs ---------------------------------------------------------------------------

    def write_corpus(self, copies):
        """A training corpus of `copies` times the demo's training documents under new PMIDs, the
        demo's test split and KB. Returns the training mentions (pmid, start, end, text, id)."""
        docs = hostile.TRAIN.decode().strip().split("\n\n")
        blocks, mentions = [], []
        for n in range(copies * len(docs)):
            lines = docs[n % len(docs)].split("\n")
            old, new = lines[0].split("|")[0], str(91000000 + n)
            lines = [new + line[len(old):] for line in lines]
            blocks.append("\n".join(lines))
            for line in lines[2:]:
                fields = line.split("\t")
                mentions.append((new, int(fields[1]), int(fields[2]), fields[3], fields[5]))
        (self.work / "train.txt").write_text("\n\n".join(blocks) + "\n\n")
        (self.work / "test.txt").write_bytes(hostile.TEST)
        (self.work / "kb.txt").write_bytes(hostile.KB)
        return mentions

    # ----- merge -----------------------------------------------------------------------------------

    def setup_merge(self, mentions):
        incoming = [("train", m[0], m[1], m[2], m[3], "correct", m[4], "MESH:D006816|MESH:D009069", "other",
                     "2026-01-01T00:%02d:%02dZ" % (i // 60 % 60, i % 60), "done") for i, m in enumerate(mentions)]
        mine = [("train", m[0], m[1], m[2], m[3], "reject", m[4], "", "me", "2025-12-31T00:00:00Z", "done")
                for m in mentions[:40:7]]
        hostile.make_project(str(self.work / "from.linkscope"), incoming, meta=hostile.V3, checksums=True)
        hostile.make_project(str(self.work / "into-v3.linkscope"), mine, meta=hostile.V3, checksums=True)
        hostile.make_project(str(self.work / "into-v1.linkscope"), mine)
        self.merge_ref = {}
        self.merge_wal_bytes = 4096
        for version in self.versions:
            pristine = self.work / ("into-%s.linkscope" % version)
            before = self.decisions_of(pristine, check=False)
            copy = self.work / ("merged-%s.linkscope" % version)
            self.fresh_copy(pristine, copy)
            # The WAL a whole merge leaves (only its transaction writes it): the range of the
            # commit-time trigger.
            wal = Path(str(copy) + "-wal")
            peak = [0]

            def watch(elapsed):
                try:
                    peak[0] = max(peak[0], os.stat(wal).st_size)
                except FileNotFoundError:
                    pass
                return False
            started = time.monotonic()
            _, code, err = self.kill_at([self.cli, "merge", str(copy), "from.linkscope"], watch)
            duration = time.monotonic() - started
            if code != 0:
                raise Failure("merge set-up exited %d: %s" % (code, err.strip()[-400:]))
            self.merge_wal_bytes = max(self.merge_wal_bytes, peak[0])
            after = self.decisions_of(copy, check=False)
            self.merge_ref[version] = (before, after, duration)
            self.log("merge into schema %s: %d decisions before, %d after, %.2f s" %
                     (version, len(before), len(after), duration))
        if self.merge_ref["v3"][0] == self.merge_ref["v3"][1]:
            raise Failure("merge set-up: the merge records nothing")

    @staticmethod
    def fresh_copy(source, target):
        for suffix in ("", "-wal", "-shm", "-journal"):
            path = Path(str(target) + suffix)
            if path.exists():
                path.unlink()
        shutil.copyfile(source, target)

    def trial_merge(self, rng):
        version = rng.choice(self.versions)
        before, after, duration = self.merge_ref[version]
        target = self.work / "killed.linkscope"
        self.fresh_copy(self.work / ("into-%s.linkscope" % version), target)
        wal = Path(str(target) + "-wal")
        draw = rng.random()
        if draw < 0.35:
            # Inside the transaction and its commit: once the WAL, which only the merge writes,
            # holds a random number of bytes, in the upper half of what a whole merge leaves.
            size = rng.randint(self.merge_wal_bytes // 2, self.merge_wal_bytes)
            trigger, how = self.when_grown(wal, size, duration * 3), "wal %d" % size
        else:
            # Over the whole run, or (one in three) over its last fifth, where it commits.
            moment = rng.uniform(0, duration * 1.05) if draw < 0.7 else rng.uniform(duration * 0.8, duration * 1.05)
            trigger, how = self.after(moment), "time %.3f s" % moment
        killed, code, err = self.kill_at([self.cli, "merge", str(target), "from.linkscope"], trigger)
        if not killed and code != 0:
            raise Failure("merge (%s) exited %d: %s" % (how, code, err.strip()[-400:]))
        state = self.decisions_of(target)
        if state == before:
            outcome = "none of the incoming"
        elif state == after:
            outcome = "all of the incoming"
        else:
            raise Failure("merge killed (%s) left %d decisions: neither the %d before nor the %d of a whole merge"
                          % (how, len(state), len(before), len(after)))
        self.run(["merge", str(target), "from.linkscope"])
        if self.decisions_of(target, check=False) != after:
            raise Failure("merging again after a kill (%s) does not give the uninterrupted merge's decisions" % how)
        return killed, "%s, %s" % (version, how), outcome

    # ----- record ----------------------------------------------------------------------------------

    def setup_record(self):
        hostile.make_project(str(self.work / "record-v3.linkscope"), meta=hostile.V3, checksums=True)
        hostile.make_project(str(self.work / "record-v1.linkscope"), hostile.GOOD_DECISIONS)
        self.record_before = {v: self.decisions_of(self.work / ("record-%s.linkscope" % v), check=False)
                              for v in self.versions}
        # The writer's start (open, integrity check) and the time of one committed record.
        target = self.work / "record.linkscope"
        self.fresh_copy(self.work / "record-v3.linkscope", target)
        started = time.monotonic()
        subprocess.run([self.writer, str(target), "1"], check=True, stdout=subprocess.DEVNULL)
        self.record_start = time.monotonic() - started
        self.fresh_copy(self.work / "record-v3.linkscope", target)
        started = time.monotonic()
        records = 31 if self.quick else 101
        subprocess.run([self.writer, str(target), str(records)], check=True, stdout=subprocess.DEVNULL)
        self.record_each = max(1e-4, (time.monotonic() - started - self.record_start) / (records - 1))
        self.record_count = 30 if self.quick else 300
        self.log("record: start %.3f s, %.4f s per committed decision" % (self.record_start, self.record_each))

    @staticmethod
    def crash_decision(index):
        """tests/project/crash_decisions.h's crashDecision(index), as export writes it."""
        kinds = ("accept", "correct", "reject", "nil", "skip")
        start = (index % 13) * 10
        previous = "MESH:D%d" % (900000 + index)
        new = {0: previous, 1: "MESH:D%d|OMIM:1" % index, 3: "-1"}.get(index % 5, "")
        return {"split": "dev" if index % 3 == 0 else "train", "document": str(10000000 + index % 97),
                "start": start, "end": start + 3 + index % 7,
                "text": "mention %d \u00e9\u2013 d\u00e9ficit" % index, "kind": kinds[index % 5],
                "previous": previous, "new": new, "curator": "crash-writer",
                "timestamp": "2026-11-22T07:30:12.%dZ" % (100 + index % 900), "state": "done"}

    def trial_record(self, rng):
        version = rng.choice(self.versions)
        before = self.record_before[version]
        target = self.work / "record.linkscope"
        self.fresh_copy(self.work / ("record-%s.linkscope" % version), target)
        saved_path = self.work / "saved.txt"
        if rng.random() < 0.2:
            # Anywhere from the start: the open (and, for schema 1, its first write) included.
            moment = rng.uniform(0, self.record_start * 1.5)
            trigger, how = self.after(moment), "time %.3f s" % moment
        else:
            # Among the commits: a random time into the record after the n-th reported save.
            count, delay = rng.randint(0, self.record_count), rng.uniform(0, self.record_each)
            trigger, how = self.after_lines(saved_path, count, delay), "save %d + %.4f s" % (count, delay)
        with open(saved_path, "wb") as saved_out:
            killed, code, err = self.kill_at([self.writer, str(target), "1000000"], trigger, stdout=saved_out)
        if not killed:
            raise Failure("the writer ended before its kill (exit %d): %s" % (code, err.strip()[-400:]))
        lines = saved_path.read_text().splitlines()
        complete = [line for line in lines if line.startswith("saved ")]
        # The last line may have been cut by the kill (printed, not yet whole): it counts only
        # when whole, i.e. followed by a newline.
        text = saved_path.read_text()
        if complete and not text.endswith("\n"):
            complete.pop()
        saved = [int(line[6:]) for line in complete]
        first = len(before) + 1
        if saved != list(range(first, first + len(saved))):
            raise Failure("the writer reported ids %s..., expected from %d" % (saved[:5], first))
        state = self.decisions_of(target)
        if state[:len(before)] != before:
            raise Failure("a kill while recording changed the decisions the file held before")
        added = state[len(before):]
        if not len(saved) <= len(added) <= len(saved) + 1:
            raise Failure("%d decisions reported saved, %d in the file after the kill (%s)"
                          % (len(saved), len(added), how))
        for index, decision in enumerate(added):
            expected = dict(self.crash_decision(index), id=first + index)
            if decision != expected:
                raise Failure("decision %d after the kill (%s): %s, expected %s"
                              % (first + index, how, decision, expected))
        outcome = "the saved ones" if len(added) == len(saved) else "the saved ones and the one committing"
        return True, "%s, %s: %d saved, %d stored" % (version, how, len(saved), len(added)), outcome

    @staticmethod
    def after_lines(path, count, delay):
        """Fires `delay` seconds after `path` holds `count` lines."""
        seen = []

        def trigger(elapsed):
            if not seen:
                try:
                    with open(path, "rb") as f:
                        if f.read().count(b"\n") >= count:
                            seen.append(elapsed)
                except FileNotFoundError:
                    pass
            return bool(seen) and elapsed >= seen[0] + delay
        return trigger

    # ----- export ----------------------------------------------------------------------------------

    def setup_export(self):
        self.export_project = self.work / "merged-v3.linkscope"  # setup_merge's whole merge
        self.export_ref = {}
        for kind in self.export_kinds:
            out = self.work / ("reference.%s" % kind)
            args = self.export_args(kind, out)
            duration = self.measure(args, repeats=1)
            if self.is_folder(kind):
                tree = self.tree_of(out)
                size = sum(len(data) for data in tree.values() if data is not None)
                self.export_ref[kind] = (tree, duration)
                self.log("export %s: %d files, %d bytes, %.2f s" % (kind, len(tree), size, duration))
            else:
                self.export_ref[kind] = (out.read_bytes(), duration)
                self.log("export %s: %d bytes, %.2f s" % (kind, len(self.export_ref[kind][0]), duration))

    @staticmethod
    def is_folder(kind):
        return kind.endswith("-splits") or kind == "brat"

    def export_args(self, kind, out):
        fmt = kind.split("-")[0]
        args = ["export", "--project", str(self.export_project), "--format", fmt, "--out", str(out)]
        if fmt != "decisions" and not kind.endswith("-splits"):
            args += ["--split", "train"]
        if fmt == "bioc":
            args += ["--date", EXPORT_DATE]
        return args

    def trial_export(self, rng, number):
        # The kinds in turn, so that each gets its share of the kills.
        kind = self.export_kinds[number % len(self.export_kinds)]
        if self.is_folder(kind):
            return self.trial_export_folder(rng, kind)
        reference, duration = self.export_ref[kind]
        folder = self.work / "export-out"
        if folder.exists():
            shutil.rmtree(folder)
        folder.mkdir()
        out = folder / ("train.%s" % kind)
        old = None
        if rng.random() < 0.5:
            old = b"an older export, to be replaced whole or kept\n"
            out.write_bytes(old)
        if rng.random() < 0.5:
            # Inside the write: once a temporary beside the target holds a random share of the file.
            share = rng.randint(1, len(reference))
            trigger = self.temporary_grown(folder, out.name, share, duration * 3)
            how = "temporary at %d of %d bytes" % (share, len(reference))
        else:
            moment = rng.uniform(0, duration * 1.05)
            trigger, how = self.after(moment), "time %.3f s" % moment
        killed, code, err = self.kill_at([self.cli] + self.export_args(kind, out), trigger)
        if not killed and code != 0:
            raise Failure("export %s (%s) exited %d: %s" % (kind, how, code, err.strip()[-400:]))
        if not out.exists():
            if old is not None:
                raise Failure("export %s killed (%s): the old file at --out is gone, no new one" % (kind, how))
            outcome = "absent, as before"
        else:
            data = out.read_bytes()
            if data == reference:
                outcome = "the whole new file"
            elif old is not None and data == old:
                outcome = "the old file"
            else:
                raise Failure("export %s killed (%s): --out holds %d bytes, neither the old file nor the %d of a "
                              "whole export" % (kind, how, len(data), len(reference)))
        self.run(self.export_args(kind, out))
        if out.read_bytes() != reference:
            raise Failure("export %s after a kill (%s) differs from an uninterrupted export" % (kind, how))
        left = sorted(p.name for p in folder.iterdir() if p.name != out.name)
        if left:
            raise Failure("export %s: the rerun after a kill (%s) left %s beside --out" % (kind, how, left))
        return killed, "%s, %s" % (kind, how), outcome

    @staticmethod
    def tree_of(root):
        """Every file (its bytes) and folder (None) under root, by relative path; links followed
        only at root."""
        tree = {}
        for folder, dirs, files in os.walk(root):
            for name in dirs:
                tree[os.path.relpath(os.path.join(folder, name), root)] = None
            for name in files:
                path = os.path.join(folder, name)
                tree[os.path.relpath(path, root)] = Path(path).read_bytes()
        return tree

    @staticmethod
    def old_folder(kind):
        """An older export in the folder: files this export replaces, and files it does not write
        (which it must keep: an older split, brat's annotation.conf)."""
        conf = b"[entities]\nSpecificDisease\nDiseaseClass\n"
        if kind == "brat":
            return {"annotation.conf": conf, "91000000.txt": b"an older text\n", "91000000.ann": b"",
                    "12345678.ann": b"T1\tDisease 0 3\told\n"}
        if kind == "brat-splits":
            return {"annotation.conf": conf, "train": None, "train/91000000.txt": b"an older text\n",
                    "dev": None, "dev/12345678.ann": b"T1\tDisease 0 3\told\n"}
        ext = "pubtator.txt" if kind.startswith("pubtator") else "bioc.xml"
        return {"annotation.conf": conf, "train." + ext: b"an older export of train\n",
                "dev." + ext: b"an older split, not written by this export\n"}

    @staticmethod
    def write_tree(root, tree):
        root.mkdir(parents=True)
        for name, data in sorted(tree.items()):
            if data is None:
                (root / name).mkdir(parents=True, exist_ok=True)
            else:
                (root / name).parent.mkdir(parents=True, exist_ok=True)
                (root / name).write_bytes(data)

    def trial_export_folder(self, rng, kind):
        """A folder export killed: the folder must be entirely the old one (or absent when there was
        none) or entirely the new one, byte for byte; the rerun completes it and leaves nothing
        beside it (no staging folder) nor in it (no temporary)."""
        reference, duration = self.export_ref[kind]
        parent = self.work / "export-folder"
        if parent.exists():
            shutil.rmtree(parent)
        parent.mkdir()
        out = parent / "out"
        old, linked = None, False
        draw = rng.random()
        if draw < 0.6:
            old = self.old_folder(kind)
            if draw < 0.2:
                # --out is a link to the folder: the link stays, the folder it names is replaced.
                linked = True
                self.write_tree(parent / "real-out", old)
                out.symlink_to("real-out")
            else:
                self.write_tree(out, old)
        new = dict(old or {})
        new.update(reference)
        staged_name = "real-out" if linked else "out"
        total = sum(len(data) for data in reference.values() if data is not None)
        draw = rng.random()
        if draw < 0.6:
            # Inside the write or the commit: once the staging folder holds a random share of the new
            # bytes (its files not hard-linked to the old folder), a random instant later; or, one
            # time in three, all of them: the commit's sync, the swap, the old tree's removal.
            if draw < 0.2:
                share, delay = total, rng.uniform(0, 0.03)
            else:
                share, delay = rng.randint(1, total), rng.choice((0.0, rng.uniform(0, 0.02)))
            trigger = self.staged_grown(parent, staged_name, share, delay, duration * 3)
            how = "staged %d of %d bytes + %.3f s" % (share, total, delay)
        else:
            moment = rng.uniform(0, duration * 1.05)
            trigger, how = self.after(moment), "time %.3f s" % moment
        if linked:
            how += ", --out a link"
        killed, code, err = self.kill_at([self.cli] + self.export_args(kind, out), trigger)
        if not killed and code != 0:
            raise Failure("export %s (%s) exited %d: %s" % (kind, how, code, err.strip()[-400:]))
        if linked and not out.is_symlink():
            raise Failure("export %s killed (%s): --out is no longer a link" % (kind, how))
        if not out.exists():
            if old is not None:
                raise Failure("export %s killed (%s): the old folder at --out is gone" % (kind, how))
            outcome = "absent, as before"
        else:
            state = self.tree_of(out)
            if state == new:
                outcome = "the whole new folder"
            elif old is not None and state == old:
                outcome = "the old folder"
            else:
                changed = sorted(name for name in set(state) | set(new) if state.get(name, 0) != new.get(name, 0))
                raise Failure("export %s killed (%s): the folder is neither the old one nor the new one (%d of "
                              "%d paths differ from the new one, e.g. %s)" % (kind, how, len(changed), len(new),
                                                                            changed[:3]))
        self.run(self.export_args(kind, out))
        if self.tree_of(out) != new:
            raise Failure("export %s after a kill (%s) differs from an uninterrupted export" % (kind, how))
        left = sorted(p.name for p in parent.iterdir() if p.name not in ("out", "real-out"))
        if left:
            raise Failure("export %s: the rerun after a kill (%s) left %s beside --out" % (kind, how, left))
        return killed, "%s, %s" % (kind, how), outcome

    @staticmethod
    def staged_grown(parent, name, size, delay, moment_limit):
        """Fires `delay` seconds after the staging folders of `name` in `parent` hold `size` new bytes
        (files with one link: written by the export, not linked to the old folder)."""
        prefix = "." + name + ".linkscope-staging-"
        seen = []

        def staged_bytes():
            total = 0
            for entry in os.scandir(parent):
                if not entry.name.startswith(prefix):
                    continue
                for folder, _, files in os.walk(entry.path):
                    for file in files:
                        try:
                            info = os.lstat(os.path.join(folder, file))
                        except FileNotFoundError:
                            continue
                        if info.st_nlink == 1:
                            total += info.st_size
            return total

        def trigger(elapsed):
            if not seen:
                try:
                    if staged_bytes() >= size:
                        seen.append(elapsed)
                except FileNotFoundError:
                    pass
            return (bool(seen) and elapsed >= seen[0] + delay) or elapsed >= moment_limit
        return trigger

    @staticmethod
    def temporary_grown(folder, name, size, moment_limit):
        def trigger(elapsed):
            try:
                for entry in os.scandir(folder):
                    if entry.name != name and entry.name.startswith(name) and entry.stat().st_size >= size:
                        return True
            except FileNotFoundError:
                pass
            return elapsed >= moment_limit
        return trigger

    # ----- train -----------------------------------------------------------------------------------

    def setup_train(self):
        preset = json.loads((REPO / "models" / "biosyn.json").read_text())
        for schedule in (preset["training"], preset["schedules"]["short"]):
            schedule.update(epochs=2, max_train_mentions=8, batch_size=2)
        (self.work / "tiny.json").write_text(json.dumps(preset, indent=2))
        whole = self.work / "whole"
        started = time.monotonic()
        self.run(self.train_args(whole, resume=False))
        self.train_duration = time.monotonic() - started
        self.log("train (tiny BioSyn run): %.2f s" % self.train_duration)

    def train_args(self, out, resume):
        data = ["--train", str(DEMO / "demo-train.txt"), "--dev", str(DEMO / "demo-test.txt"),
                "--kb", str(DEMO / "demo-kb.txt")]
        if resume:
            return ["train", "--resume", "--device", "cpu", "--checkpoint-steps", "1", "--out", str(out)] + data
        return ["train", "--preset", str(self.work / "tiny.json"), "--schedule", "short", "--compact", "--device",
                "cpu", "--checkpoint-steps", "1", "--out", str(out)] + data

    def trial_train(self, rng, wanted):
        """One run killed until it ends (at most 8 kills, so that the campaign trains several
        runs, and at most `wanted`, so that the last run tops the count up); returns the kills."""
        wanted = min(wanted, 8)
        run = self.work / "killed-run"
        if run.exists():
            shutil.rmtree(run)
        kills, attempts, hows = 0, 0, []
        while True:
            attempts += 1
            if attempts > 60:
                raise Failure("train: the run makes no progress between kills (%s)" % ", ".join(hows))
            resume = (run / "run.json").is_file() and (run / "preset.json").is_file()
            argv = [self.cli] + self.train_args(run, resume)
            if kills >= wanted:
                trigger, how = (lambda elapsed: False), None
            elif rng.random() < 0.3:
                # Inside a swap: once a staged or retired copy of the checkpoint or model appears.
                names = ("checkpoint.new", "checkpoint.old", "model.new", "model.old")
                delay = rng.uniform(0, 0.05)
                trigger, how = self.swap_trigger(run, names, delay, self.train_duration * 2), "swap+%.3f" % delay
            else:
                moment = rng.uniform(self.train_duration * 0.2, self.train_duration * 0.8)
                trigger, how = self.after(moment), "time %.3f" % moment
            killed, code, err = self.kill_at(argv, trigger)
            if killed:
                kills += 1
                hows.append(how)
                continue
            if code != 0:
                raise Failure("train%s after %d kills (%s) exited %d: %s" % (
                    " --resume" if resume else "", kills, ", ".join(hows), code, err.strip()[-400:]))
            break
        difference = self.train_difference(run, self.work / "whole")
        if difference:
            raise Failure("train after %d kills (%s): %s" % (kills, ", ".join(hows), difference))
        return kills, ", ".join(hows)

    @staticmethod
    def swap_trigger(run, names, delay, moment_limit):
        seen = []

        def trigger(elapsed):
            if not seen and any((run / name).exists() for name in names):
                seen.append(elapsed)
            return (seen and elapsed >= seen[0] + delay) or elapsed >= moment_limit
        return trigger

    @staticmethod
    def train_difference(run, reference):
        def events(folder):
            out = []
            for line in (folder / "log.jsonl").read_text().splitlines():
                event = json.loads(line)
                event.pop("seconds", None)
                event.pop("examples_per_second", None)
                out.append(event)
            return out

        info = json.loads((run / "run.json").read_text())
        expected = json.loads((reference / "run.json").read_text())
        if info.get("status") != "finished":
            return "status %s" % info.get("status")
        info.pop("seconds", None)
        expected.pop("seconds", None)
        if info != expected:
            return "run.json differs: %s vs %s" % (info, expected)
        if events(run) != events(reference):
            return "log.jsonl differs from the uninterrupted run's"
        for name in ("checkpoint/model/model.safetensors", "model/model.safetensors", "model/vocab.txt"):
            if not (run / name).is_file() or (run / name).read_bytes() != (reference / name).read_bytes():
                return "%s differs from the uninterrupted run's" % name
        for name in ("checkpoint.new", "checkpoint.old", "model.new", "model.old"):
            if (run / name).exists():
                return "%s is left behind" % name
        return ""


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--cli", default=str(REPO / "build" / "default" / "bin" / "linkscope-cli"))
    parser.add_argument("--writer", default=str(REPO / "build" / "default" / "bin" / "project_store_crash_writer"),
                        help="tests/project's project_store_crash_writer (the decision recorder)")
    parser.add_argument("--kills", type=int, default=25, help="kills that must land per command")
    parser.add_argument("--seed", type=int, default=38)
    parser.add_argument("--only", action="append", choices=COMMANDS, help="run only these commands (repeatable)")
    parser.add_argument("--trial", type=int, help="run only this trial number (with --only: a failure's reproduction)")
    parser.add_argument("--quick", action="store_true",
                        help="the CI size: 2 kills per command on a smaller corpus; train and team only with "
                             "--only (CI kills training in test_cli_train_kills, the server in "
                             "test_cli_simulate_team)")
    parser.add_argument("--json", metavar="FILE", help="write the summary here")
    parser.add_argument("--keep", metavar="DIR", help="work in DIR and keep it")
    args = parser.parse_args()
    if args.quick:
        args.kills = 2 if args.kills == 25 else args.kills
    commands = args.only or [c for c in COMMANDS if not (args.quick and c in ("train", "team"))]
    for tool in (args.cli, args.writer):
        if not os.access(tool, os.X_OK):
            print("kill_campaign: no executable %s" % tool, file=sys.stderr)
            return 2
    work = Path(args.keep).resolve() if args.keep else Path(tempfile.mkdtemp(prefix="linkscope-kills-"))
    work.mkdir(parents=True, exist_ok=True)

    def log(message):
        print(message, flush=True)

    # The full campaign runs its own copies: a rebuild of the tree while it runs must not swap
    # the binaries it starts. (ctest runs the quick one on a tree that is not being built.)
    cli, writer = Path(args.cli).resolve(), Path(args.writer).resolve()
    if not args.quick:
        cli, writer = work / "linkscope-cli", work / "project_store_crash_writer"
        shutil.copy2(args.cli, cli)
        shutil.copy2(args.writer, writer)
    campaign = Campaign(str(cli), str(writer), work, args.quick, log)
    if "train" in commands and campaign.run(["train", "--help"], check=False).returncode != 0:
        log("train: this linkscope-cli has no train command (built without LibTorch): skipped")
        commands = [c for c in commands if c != "train"]
    team = None
    if "team" in commands:
        import kill_campaign_team
        try:
            team = kill_campaign_team.TeamCampaign(campaign, Failure)
        except kill_campaign_team.TeamSkip as skip:
            log("team: skipped: %s" % skip)
            commands = [c for c in commands if c != "team"]
    summary = {"seed": args.seed, "kills_wanted": args.kills, "quick": args.quick, "commands": {}}
    started = time.monotonic()
    ok = True
    try:
        if {"merge", "export"} & set(commands):
            mentions = campaign.write_corpus(20 if args.quick else 400)
            campaign.setup_merge(mentions)
            log("merge: the WAL reaches %d bytes" % campaign.merge_wal_bytes)
        if "export" in commands:
            campaign.setup_export()
        if "record" in commands:
            campaign.setup_record()
        if "train" in commands:
            campaign.setup_train()
        if "team" in commands:
            team.setup()
        for command in commands:
            entry = {"kills": 0, "trials": 0, "outcomes": {}, "failures": []}
            summary["commands"][command] = entry
            trial = 0
            # The quick run still kills as many exports as there are kinds (tried in turn).
            wanted = max(args.kills, len(campaign.export_kinds)) if args.quick and command == "export" else args.kills
            while entry["kills"] < wanted and trial < wanted * 4:
                number = trial
                trial += 1
                if args.trial is not None and number != args.trial:
                    continue
                seed = "%d-%s-%d" % (args.seed, command, number)
                rng = random.Random(seed)
                entry["trials"] += 1
                try:
                    if command == "train":
                        landed, how = campaign.trial_train(rng, args.kills - entry["kills"])
                        entry["kills"] += landed
                        outcome = "resumed to the end"
                    elif command == "team":
                        landed, curator_kills, how = team.trial(rng, wanted - entry["kills"])
                        entry["kills"] += landed
                        entry["curator_kills"] = entry.get("curator_kills", 0) + curator_kills
                        outcome = "all told stored are there, nothing else"
                    else:
                        trial_of = getattr(campaign, "trial_" + command)
                        killed, how, outcome = trial_of(rng, number) if command == "export" else trial_of(rng)
                        entry["kills"] += int(killed)
                        outcome = outcome if killed else "ended before the kill"
                    entry["outcomes"][outcome] = entry["outcomes"].get(outcome, 0) + 1
                    log("%-6s trial %3d (seed %s): %s: %s" % (command, number, seed, how, outcome))
                except Failure as failure:
                    ok = False
                    entry["failures"].append({"trial": number, "seed": seed, "what": str(failure),
                                              "reproduce": "tools/kill_campaign.py --only %s --trial %d --seed %d"
                                                           % (command, number, args.seed)})
                    log("%-6s trial %3d (seed %s): FAILED: %s" % (command, number, seed, failure))
                if args.trial is not None:
                    break
            if args.trial is None and entry["kills"] < wanted:
                ok = False
                entry["failures"].append({"what": "only %d of %d kills landed" % (entry["kills"], wanted)})
    except Failure as failure:
        ok = False
        summary["setup_failure"] = str(failure)
        log("set-up failed: %s" % failure)
    finally:
        if team is not None:
            team.close()
        summary["seconds"] = round(time.monotonic() - started, 1)
        summary["total_kills"] = sum(e["kills"] for e in summary["commands"].values())
        summary["passed"] = ok
        if args.json:
            Path(args.json).write_text(json.dumps(summary, indent=2) + "\n")
        if not args.keep:
            shutil.rmtree(work, ignore_errors=True)
    print("kill campaign: %s" % ", ".join("%s %d kills in %d trials, %d failed" % (
        c, e["kills"], e["trials"], len(e["failures"])) for c, e in summary["commands"].items()))
    print("total %d kills, %s, %.0f s" % (summary["total_kills"], "passed" if ok else "FAILED", summary["seconds"]))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
