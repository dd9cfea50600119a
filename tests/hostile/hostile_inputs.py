#!/usr/bin/env python3
"""Hostile and damaged inputs for every reader and every path-taking command of linkscope-cli.
Python 3 standard library only.

The suite GENERATES its cases into a temporary folder, from valid seeds made of the demo project
(resources/demo: demo-kb.txt, demo-train.txt, demo-test.txt, demo-project.json), a few small
files written here (a CTD TSV, a UMLS MRCONSO/MRSTY pair, a spelling map) and what the CLI makes
of them in a short set-up: a compact encoder (`init-model` on the demo KB), its sparse and dense
indexes (`index`), a run folder around that encoder, its kNN datastore (`eval --knn
--datastore`), two per-mention files (`eval --per-mention`) and a project file (.linkscope,
written with sqlite3 in the project store's schema). Each case then damages one input and runs
one command in its own folder, with the paths relative to it.

Commands covered: stats, eval (sparse, dense, --run, --knn, --index, --dense-index, --datastore,
--spelling, --report, --per-mention), compare, index, tokenize and encode (stdin), init-model,
train and pretrain (only inputs that must be refused before any training step), export
(--manifest and --project), simulate-curation, and merge and agreement (another curator's
project file, damaged; a refused merge leaves the receiving file as it was), and merge-shards and
`link --shard` reruns (shard manifests of the wrong JSON types or bounds, manifests and parts that
are links, FIFOs, folders, cut short, swapped or duplicated, stray files in the shards' folder).
(`link` itself has no other cases here: it reads its corpus and KB through the readers covered below. Every
command that reads a corpus also reads BioC XML, brat folders and PMID lists (--corpus-format,
--split-pmids, manifests of version 2), but the cases here damage PubTator inputs, and of the
others only a BioC gzip bomb and PMID lists that are pipes, folders, missing or a million unknown
ids: those readers are fuzzed by tests/fuzz, and their errors tested by test_corpus_input and
test_cli_corpus_inputs, their memory by test_reader_memory; the decision-log reader is reached by
tests/fuzz only.)

Every case asserts that
  * the process ends by exit, not by a signal (returncode >= 0);
  * it ends within its time limit (60 s; 30 s for train, pretrain and init-model, which must
    refuse bad input before any work; --sanitized multiplies both by 5): a time-out is a failure
    ("hang");
  * its peak resident memory stays under  16 x INPUT + 1.5 GiB,  INPUT being the bytes of the
    case's own files plus its standard input (a gzip file counts with its compressed size, so a
    bomb must be streamed, not held; --sanitized adds 1 GiB for ASan's shadow memory). The peak
    is the child's own ru_maxrss, read with os.wait4 on its pid (RUSAGE_CHILDREN deltas are not
    usable: that figure is a maximum over all children ever waited for, not a sum); while it
    runs its resident size (/proc/PID/statm) is watched too, and a case above the bound is
    killed at once and fails ("memory");
  * and, by the case's expectation:
      error   exit status != 0 and standard error names the offending file (its path or
              basename, "<stdin>" for standard input) and, where the format has lines and the
              case knows the line, "NAME:N:" with exactly that N; for stats, eval, compare,
              index and export nothing on standard output (README: "nothing is printed to
              standard output then");
      clean   exit status 0 and output identical to the clean input's (BOM, CR-only, CRLF, no
              final newline, gzip, a gzip member of newlines appended...); outputs are compared
              after the case folder's path is replaced by a placeholder and, for eval, the
              "*seconds" timings are dropped;
      ok      exit status 0 and the result the case computes (e.g. the document and mention
              counts of a corpus cut at a line end);
      either  used only where the damage may or may not leave a valid input (random byte
              flips, a cut inside an identifier): an error as above, or exit 0 with well-formed
              output (and, where given, the case's own check);
  * export never creates anything outside its --out folder: the case folder and the temporary
    root are listed before and after each export case.

KNOWN_FAILURES below lists cases that still fail for known product bugs: they are run and
reported separately, and do not make the suite fail. Every other failure does.

The default run (what ctest runs) is the core set; EXTENDED names further cases of the same
kinds (more cut points, flips, spellings of the same damage), run with --full. A CLI built
without LibTorch runs the cases that do not need its model commands and says how many it skipped.

Usage:
  hostile_inputs.py [--cli build/default/bin/linkscope-cli] [--jobs 2] [--full] [--list]
                    [--only SUBSTRING]... [--keep DIR] [--timeout 60] [--sanitized]
Exit status 1 when any case not in KNOWN_FAILURES fails (2 when the CLI is missing).
"""
import argparse
import errno
import json
import multiprocessing
import os
import random
import re
import shutil
import signal
import sqlite3
import struct
import subprocess
import sys
import tempfile
import time
import zlib
from pathlib import Path

# Cases that fail for known product bugs (case name -> reason). Printed separately; they do not
# make the suite fail. Keep this as small as honest.
# Every product bug this suite has found is fixed; none is known now.
KNOWN_FAILURES = {
}

# Cases run only with --full: further points of damages the core cases already cover, so that
# the default run (ctest) keeps to about five minutes on two cores. Every kind of damage and
# every command keeps core cases, and every case that fails today is a core case.
EXTENDED = """
stats.corpus.nul.in-pmid stats.corpus.nul.line-at-end stats.corpus.utf8.continuation-abstract
stats.corpus.utf8.above-10ffff stats.corpus.utf8.latin1 stats.corpus.overlong.mention-text
stats.corpus.hugenum.pmid-digits stats.corpus.offsets.negative-end stats.corpus.offsets.fractional-end
stats.corpus.offsets.hex stats.corpus.offsets.empty-field stats.corpus.offsets.int64-min
stats.corpus.offsets.pmid-mismatch stats.corpus.offsets.mention-before-title stats.corpus.offsets.negative-lenient
stats.corpus.lineend.bom-cr stats.corpus.lineend.crlf-no-final-newline stats.corpus.lineend.mixed-lf-crlf
stats.corpus.empty.newlines-only stats.corpus.empty.crlf-only stats.corpus.symlink-cycle stats.corpus.symlink-dangling
stats.corpus.gzip.trailing-garbage stats.corpus.gzip.truncated-10 stats.corpus.gzip.truncated-90 stats.corpus.gzip.isize
stats.corpus.gzip.deflate-damaged stats.corpus.gzip.header-only stats.corpus.gzip.bomb-newlines
stats.kb.nul.whole-file stats.kb.utf8.latin1 stats.kb.hugenum.id-digits stats.kb.lineend.bom-crlf
stats.kb.lineend.no-final-newline stats.kb.gzip.bomb-newlines-after stats.kb.empty.newlines-only stats.kb.directory
stats.kb.missing stats.kb.endless-device stats.kb.format-mismatch-umls
stats.ctd.lineend.crlf stats.ctd.gzip.plain stats.ctd.nul stats.ctd.no-header stats.ctd.overlong
stats.umls.lineend.bom stats.umls.bad-cui stats.umls.utf8 stats.umls.mrsty-utf8 stats.umls.mrsty-directory
stats.umls.mrsty-bomb stats.umls.mrconso-nul
eval.spelling.lineend.cr eval.spelling.gzip.plain eval.spelling.truncate.at-separator eval.spelling.nul
eval.spelling.conflict eval.spelling.directory eval.spelling.flip eval.kb.truncate eval.per-mention-missing-folder
eval.index.magic-only eval.index.truncated-5 eval.index.truncated-99 eval.index.trailing-bytes eval.index.version-2
eval.index.bad-sizes.term-count-plus-one eval.index.bad-sizes.posting-offset-past-end
eval.index.bad-sizes.term-end-past-bytes eval.dense-index.truncated-header eval.dense-index.kind-unknown
eval.dense-index.faiss.dimension-negative eval.datastore.empty eval.datastore.truncated
eval.datastore.bad-sizes.dimension-zero eval.run.run-json.deep-object eval.run.run-json.negative eval.run.run-json.empty
eval.run.run-json.directory eval.run.run-json.bomb eval.run.preset-json.missing
compare.lineend.no-final-newline compare.truncate.line1-90 compare.truncate.line9-2 compare.deepjson.unclosed
compare.hugenum.rank compare.offsets.reversed compare.not-an-object compare.nul compare.directory compare.symlink-loop
tokenize.vocab.lineend.no-final-newline tokenize.vocab.gzip.plain tokenize.vocab.directory tokenize.vocab.symlink-loop
tokenize.tokenizer-config.deep-object tokenize.tokenizer-config.max-length-negative tokenize.added-tokens.id-negative
tokenize.added-tokens.truncated tokenize.stdin.overlong-no-newline tokenize.stdin.nul tokenize.model.missing
tokenize.model.empty-folder
encode.config.intermediate-1e12 encode.config.vocab-size-2e64 encode.config.hidden-size-string
encode.config.pad-token-huge encode.config.deep-object encode.config.deep-unclosed encode.config.lineend-cr
encode.config.empty encode.config.not-object encode.safetensors.header-deep-object encode.safetensors.header-invalid-json
encode.safetensors.dtype-mismatch encode.safetensors.shape-huge-dims encode.safetensors.offsets-reversed
encode.safetensors.truncated-1 encode.safetensors.truncated-99 encode.safetensors.directory
encode.safetensors.random-bytes encode.stdin.empty
init-model.preset.deep-object init-model.preset.hidden-negative init-model.preset.directory init-model.out.under-file
train.preset.deep-object train.preset.learning-rate-string train.preset.directory train.model.safetensors-truncated
train.kb.nul train.spelling.utf8 train.resume.state.deep-object train.resume.state.empty train.resume.state.directory
train.resume.state.scalars-string train.resume.run-json.truncated
pretrain.compact-preset.deep pretrain.kb.empty simulate-curation.preset-json.truncated
index.sparse-index-missing-folder index.test.truncated
export.manifest.lineend.cr export.manifest.deep-object export.manifest.version-99 export.manifest.corpora-not-array
export.manifest.directory export.manifest.symlink-loop export.manifest.split.dot-only export.manifest.split.backslash
export.manifest.split.tab export.manifest.split.empty export.manifest.split.long export.manifest.split.slash
export.manifest.corpus-path.directory export.manifest.corpus-format.unknown export.manifest.kb-format.unknown
export.project.sqlite-header-only export.project.truncated-page
export.project.schema-version-negative export.project.split.newline export.project.corpus-path.directory
export.project.decision.reversed-offsets export.project.decision.state-unknown
stats.corpus.offsets.exponent stats.corpus.offsets.empty-span encode.config.positions-1e12 encode.config.type-vocab-zero
compare.truncate.line15-70 export.manifest.split.dotdot-one-split export.manifest.split.dotdot-bioc
eval.run.run-json.utf8 train.preset.epochs-1e400 train.preset.bomb train.resume.state.bomb eval.spelling.overlong
init-model.preset.bomb tokenize.tokenizer-config.bomb
""".split()

REPO = Path(__file__).resolve().parents[2]
DEMO = REPO / "resources" / "demo"
MODELS = REPO / "models"

GIB = 1 << 30
MEM_BASE = 3 * GIB // 2
MEM_FACTOR = 16
DEFAULT_TIMEOUT = 60
DEEP = 100_000            # nesting levels of the deeply nested JSON inputs
OVERLONG = 4 << 20        # bytes of an overlong line (several MB)
BOMB_NEWLINES = 200 << 20  # bytes of newlines a newline gzip bomb expands to
BOMB_LINE = 300 << 20      # bytes of the endless line (above the readers' 256 MiB line cap)

TRAIN = (DEMO / "demo-train.txt").read_bytes()
TEST = (DEMO / "demo-test.txt").read_bytes()
KB = (DEMO / "demo-kb.txt").read_bytes()
MANIFEST = json.loads((DEMO / "demo-project.json").read_text())

CTD = (b"# CTD diseases vocabulary, a small sample written for the hostile-input suite\n"
       b"#\n# Fields:\n"
       b"# DiseaseName\tDiseaseID\tAltDiseaseIDs\tDefinition\tParentIDs\tTreeNumbers\tParentTreeNumbers\tSynonyms\tSlimMappings\n"
       b"#\n"
       b"Huntington Disease\tMESH:D006816\tOMIM:143100\tAn inherited disorder.\tMESH:D009069\tC10.228\tC10\tHuntington Chorea|HD\tNervous system disease\n"
       b"Asthma\tMESH:D001249\t\tA disease of the airways.\tMESH:D001982\tC08.127\tC08\tBronchial Asthma\tRespiratory tract disease\n"
       b"Cystic Fibrosis\tMESH:D003550\tOMIM:219700\t\tMESH:D010182\tC06.689\tC06\tCF|Mucoviscidosis\tDigestive system disease\n")
MRCONSO = (b"C0020179|ENG|P|L0020179|PF|S0049429|Y|A0068823||M0010324|D006816|MSH|MH|D006816|Huntington Disease|0|N|256|\n"
           b"C0020179|ENG|S|L0020180|PF|S0049430|Y|A0068824||M0010324|D006816|MSH|EN|D006816|Huntington Chorea|0|N|256|\n"
           b"C0004096|ENG|P|L0004096|PF|S0004096|Y|A0004096||M0001925|D001249|MSH|MH|D001249|Asthma|0|N|256|\n"
           b"C0010674|ENG|P|L0010674|PF|S0010674|Y|A0010674||M0005420|D003550|MSH|MH|D003550|Cystic Fibrosis|0|N|256|\n")
MRSTY = (b"C0020179|T047|B2.2.1.2.1|Disease or Syndrome|AT17683839|256|\n"
         b"C0004096|T047|B2.2.1.2.1|Disease or Syndrome|AT17683840|256|\n"
         b"C0010674|T047|B2.2.1.2.1|Disease or Syndrome|AT17683841|256|\n")
SPELLING = b"huntingtons||huntington\nastma||asthma\nchoreia||chorea\nparkinsons||parkinson\n"
STDIN_TEXT = b"Huntington disease\nHD\nbreast and ovarian cancer\n"
# A small document for the offset cases: the title is 31 characters, the abstract starts at 32.
OFFS_DOC = (b"1|t|Huntington disease in a family.\n"
            b"1|a|Chorea was seen.\n"
            b"1\t0\t18\tHuntington disease\tSpecificDisease\tD006816\n"
            b"1\t32\t38\tChorea\tSpecificDisease\tD002819\n")

DICT_ARGS = ["--train", "train.txt", "--dev", "test.txt", "--test", "test.txt", "--kb", "kb.txt", "--split", "test"]


# ----- file specifications ------------------------------------------------------------------------

class Link:
    """A seed file, hard-linked (copied when that fails)."""
    def __init__(self, rel):
        self.rel = rel


class Tree:
    """A seed folder whose files are hard-linked; later entries of the case override files in it."""
    def __init__(self, rel):
        self.rel = rel


class Dir:
    """An empty folder (where a file is expected)."""


class Sym:
    """A symbolic link to `target` (relative to the link's folder, or absolute)."""
    def __init__(self, target):
        self.target = target


class Fifo:
    """A named pipe that nothing writes to (a reader that opens or reads it waits forever)."""


class Gen:
    """Content computed when the case runs: fn(seeds) -> bytes."""
    def __init__(self, fn):
        self.fn = fn


class Seeds:
    def __init__(self, root):
        self.root = Path(root)
        self._cache = {}

    def path(self, rel):
        return self.root / rel

    def bytes(self, rel):
        if rel not in self._cache:
            self._cache[rel] = (self.root / rel).read_bytes()
        return self._cache[rel]

    def json(self, rel):
        return json.loads(self.bytes(rel))


class Case:
    def __init__(self, name, kind, command, argv, files, expect="error", names=(), line=None, ref=None,
                 check=None, stdin=None, time_factor=1.0, outside=False, outputs=(), full=False, after=None):
        self.name = name
        self.kind = kind
        self.command = command
        self.argv = argv
        self.files = files
        self.expect = expect
        self.names = tuple(names)
        self.line = line
        self.ref = ref
        self.check = check
        self.stdin = stdin
        self.time_factor = time_factor   # of the per-case time limit
        self.outside = outside
        self.outputs = tuple(outputs)
        self.full = full or name in EXTENDED   # run only with --full
        self.after = after   # after(work) -> None or a problem: the case folder afterwards, any expectation


CASES = []
REFS = {}


# Cases that need the LibTorch commands (encode, init-model, train, pretrain, simulate-curation)
# or the encoder init-model makes (model check reads it): skipped, and said so, when the CLI was
# built without LibTorch.
TORCH_CASES = re.compile(r"^(control\.)?(tokenize|encode|init-model|train|pretrain|simulate-curation|model-check|eval[.-]dense|"
                         r"eval[.-]knn|eval\.datastore|eval\.run|eval\.project|index\.(dense|model))")

# train, pretrain and init-model must refuse bad input before any work: 30 s is far more than the
# demo set-up they do before reading a checkpoint takes.
FAIL_FAST = {"train": 0.5, "pretrain": 0.5, "init-model": 0.5}   # share of the per-case limit


def add(name, kind, command, argv, files, **kw):
    if any(c.name == name for c in CASES):
        raise SystemExit("duplicate case name " + name)
    kw.setdefault("time_factor", FAIL_FAST.get(command, 1.0))
    # JSON is a format with lines: a deeply nested file (all on one line unless the case says
    # otherwise) is refused at the line where the nesting passes the readers' bound. A
    # safetensors header is binary framing: no line there.
    if kind == "deepjson" and "line" not in kw and "safetensors" not in name:
        kw["line"] = 1
    CASES.append(Case(name, kind, command, argv, files, **kw))


def ref(name, command, argv, files, **kw):
    case = Case("control." + name, "control", command, argv, files, expect="ok", **kw)
    REFS[name] = case
    CASES.append(case)


# ----- byte transformations -------------------------------------------------------------------------

def bom(data):
    return b"\xef\xbb\xbf" + data


def crlf(data):
    return data.replace(b"\n", b"\r\n")


def cr_only(data):
    return data.replace(b"\n", b"\r")


def lines_of(data):
    return data.split(b"\n")


def set_line(data, number, content):
    lines = lines_of(data)
    lines[number - 1] = content
    return b"\n".join(lines)


def insert_line(data, number, content):
    lines = lines_of(data)
    lines.insert(number - 1, content)
    return b"\n".join(lines)


def line_of_offset(data, offset):
    return data.count(b"\n", 0, offset) + 1


def flip(data, seed, count):
    rng = random.Random(seed)
    out = bytearray(data)
    for _ in range(count):
        i = rng.randrange(len(out))
        out[i] ^= rng.randrange(1, 256)
    return bytes(out)


def gz(data, level=6):
    c = zlib.compressobj(level, zlib.DEFLATED, 31)
    return c.compress(data) + c.flush()


def deep_array(levels=DEEP):
    return b"[" * levels + b"]" * levels


def deep_object(levels=DEEP):
    return b'{"a":' * levels + b"1" + b"}" * levels


def jdump(value, indent=2):
    return (json.dumps(value, indent=indent) + "\n").encode()


def json_lines_count(data):
    """The line LineReader / readTextFile reports at the end of `data`."""
    if not data:
        return 1
    return data.count(b"\n") + (0 if data.endswith(b"\n") else 1)


# ----- seeds --------------------------------------------------------------------------------------

def gzip_stream(path, chunk, repeats, prefix=b""):
    c = zlib.compressobj(9, zlib.DEFLATED, 31)
    with open(path, "wb") as out:
        if prefix:
            out.write(gz(prefix))
        for _ in range(repeats):
            out.write(c.compress(chunk))
        out.write(c.flush())


def run_setup(cli, argv, cwd):
    proc = subprocess.run([cli] + argv, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=child_env())
    if proc.returncode != 0:
        raise SystemExit("set-up failed: %s %s\n%s" % (cli, " ".join(argv), proc.stderr.decode(errors="replace")))
    return proc.stdout


def make_project(path, decisions=(), corpora=(("train", "train.txt"), ("test", "test.txt")), kb="kb.txt",
                 meta=(("format", "linkscope-project"), ("schema_version", "1")), skip_tables=(), unchecked=False,
                 checksums=False):
    """A .linkscope file in the project store's schema (core/project/project_schema.cpp): version 1's
    tables, or with checksums=True version 3's (each decision row with its checksum; give the
    schema_version 3 in meta)."""
    schema = """
CREATE TABLE meta (key TEXT PRIMARY KEY NOT NULL, value TEXT NOT NULL);
CREATE TABLE project (id INTEGER PRIMARY KEY CHECK (id = 1), name TEXT NOT NULL, description TEXT NOT NULL);
CREATE TABLE knowledge_base (id INTEGER PRIMARY KEY CHECK (id = 1), path TEXT NOT NULL, format TEXT NOT NULL,
    semantic_types TEXT NOT NULL);
CREATE TABLE corpora (position INTEGER PRIMARY KEY, split TEXT NOT NULL, path TEXT NOT NULL, format TEXT NOT NULL);
CREATE TABLE runs (position INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE, directory TEXT NOT NULL,
    preset TEXT NOT NULL, added TEXT NOT NULL);
CREATE TABLE settings (key TEXT PRIMARY KEY NOT NULL, value TEXT NOT NULL);
CREATE TABLE blobs (name TEXT PRIMARY KEY NOT NULL, data BLOB NOT NULL, updated TEXT NOT NULL);
CREATE TABLE decisions (id INTEGER PRIMARY KEY, split TEXT NOT NULL CHECK (split <> ''),
    document TEXT NOT NULL CHECK (document <> ''), start INTEGER NOT NULL CHECK (start >= 0),
    "end" INTEGER NOT NULL CHECK ("end" > start), mention_text TEXT NOT NULL,
    kind TEXT NOT NULL CHECK (kind IN ('accept', 'correct', 'reject', 'nil', 'skip')),
    previous_link TEXT NOT NULL, new_link TEXT NOT NULL, curator TEXT NOT NULL, timestamp TEXT NOT NULL,
    state TEXT NOT NULL CHECK (state IN ('done', 'undone', 'discarded')));
CREATE INDEX decisions_by_mention ON decisions (split, document, start, "end");
CREATE INDEX decisions_by_state ON decisions (state, id);
"""
    if os.path.exists(path):
        os.unlink(path)
    db = sqlite3.connect(path)
    for statement in schema.split(";"):
        statement = statement.strip()
        if not statement:
            continue
        table = re.match(r"CREATE (?:TABLE|INDEX \w+ ON) (\w+)", statement)
        if table and table.group(1) in skip_tables:
            continue
        db.execute(statement)
    if checksums:
        db.execute("ALTER TABLE corpora ADD COLUMN pmid_list TEXT NOT NULL DEFAULT ''")
        db.execute("ALTER TABLE knowledge_base ADD COLUMN filters TEXT NOT NULL DEFAULT ''")
        db.execute("ALTER TABLE decisions ADD COLUMN checksum INTEGER")
    if unchecked:
        db.execute("PRAGMA ignore_check_constraints = ON")
    if "meta" not in skip_tables:
        db.executemany("INSERT INTO meta (key, value) VALUES (?, ?)", list(meta))
    db.execute("INSERT INTO project (id, name, description) VALUES (1, 'hostile', 'generated')")
    db.execute("INSERT INTO knowledge_base (id, path, format, semantic_types) VALUES (1, ?, 'medic', '')", (kb,))
    for position, (split, corpus) in enumerate(corpora):
        db.execute("INSERT INTO corpora (position, split, path, format) VALUES (?, ?, ?, 'pubtator')",
                   (position, split, corpus))
    if "decisions" not in skip_tables:
        for d in decisions:
            row = db.execute('INSERT INTO decisions (split, document, start, "end", mention_text, kind, previous_link, '
                             'new_link, curator, timestamp, state) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)', d).lastrowid
            if checksums:
                db.execute("UPDATE decisions SET checksum = ? WHERE id = ?", (decision_checksum(row, d), row))
    db.commit()
    db.close()


def decision_checksum(row_id, d):
    """The checksum of a decision row (core/project/decision_checksum.h): CRC-32 over a tag and
    the fields, integers as 8 bytes little-endian, texts as their length and their bytes."""
    def text(value):
        data = value.encode()
        return struct.pack("<Q", len(data)) + data

    def integer(value):
        return struct.pack("<Q", value & 0xFFFFFFFFFFFFFFFF)

    split, document, start, end, mention_text, kind, previous_link, new_link, curator, timestamp, state = d
    encoded = (text("linkscope-decision-row/1") + integer(row_id) + text(split) + text(document) + integer(start) +
               integer(end) + b"".join(text(v) for v in (mention_text, kind, previous_link, new_link, curator,
                                                         timestamp, state)))
    return zlib.crc32(encoded)


def changed_index_entry(S, **kw):
    """A project whose index by mention has one digit changed in its last entry's document id, so
    that the page stays in order: SQLite's quick_check passes, integrity_check does not."""
    fd, path = tempfile.mkstemp(suffix=".linkscope", dir=S.root)
    os.close(fd)
    try:
        make_project(path, **kw)
        db = sqlite3.connect(path)
        root = db.execute("SELECT rootpage FROM sqlite_master WHERE name = 'decisions_by_mention'").fetchone()[0]
        size = db.execute("PRAGMA page_size").fetchone()[0]
        db.close()
        with open(path, "rb") as f:
            data = bytearray(f.read())
    finally:
        for suffix in ("", "-wal", "-shm", "-journal"):
            if os.path.exists(path + suffix):
                os.unlink(path + suffix)
    begin = (root - 1) * size
    at = data.rfind(b"90000001", begin, begin + size)
    assert at >= 0, "no document id in the index page"
    data[at + 7] = ord("2")
    return bytes(data)


def replaced_once(data, old, new):
    assert data.count(old) == 1 and len(old) == len(new), old
    return data.replace(old, new)


V3 = (("format", "linkscope-project"), ("schema_version", "3"))

GOOD_DECISIONS = [
    ("train", "90000001", 90, 92, "HD", "correct", "D006816", "MESH:D006816|MESH:D009069", "suite",
     "2026-01-01T00:00:00Z", "done"),
    ("train", "90000001", 222, 228, "chorea", "reject", "D002819", "", "suite", "2026-01-01T00:00:01Z", "done"),
]


def changed_decision(base, **changes):
    """A decision row of make_project() (GOOD_DECISIONS' layout) with some columns changed."""
    d = dict(zip(("split", "document", "start", "end", "mention_text", "kind", "previous_link", "new_link", "curator",
                  "timestamp", "state"), base))
    d.update(changes)
    return tuple(d.values())


def build_seeds(cli, root):
    """The valid inputs every case starts from."""
    root = Path(root)
    root.mkdir(parents=True, exist_ok=True)
    for name, data in [("train.txt", TRAIN), ("test.txt", TEST), ("kb.txt", KB)]:
        (root / name).write_bytes(data)
    run_setup(cli, ["eval"] + DICT_ARGS + ["--index", "sparse.idx", "--json"], root)
    run_setup(cli, ["eval"] + DICT_ARGS + ["--sparse-search", "approximate", "--index", "approximate.idx", "--json"],
              root)
    run_setup(cli, ["eval"] + DICT_ARGS + ["--per-mention", "a.jsonl", "--json"], root)
    run_setup(cli, ["eval"] + DICT_ARGS + ["--no-abbreviations", "--per-mention", "b.jsonl", "--json"], root)
    make_project(str(root / "p.linkscope"), GOOD_DECISIONS)
    # gzip bombs: ~200 KB expanding to 200 MB of newlines; ~300 KB expanding to one 300 MB line.
    gzip_stream(root / "newlines.gz", b"\n" * (1 << 20), BOMB_NEWLINES >> 20)
    gzip_stream(root / "endless.gz", b"a" * (1 << 20), BOMB_LINE >> 20)
    gzip_stream(root / "train-newlines.gz", b"\n" * (1 << 20), BOMB_NEWLINES >> 20, prefix=TRAIN)
    gzip_stream(root / "kb-newlines.gz", b"\n" * (1 << 20), BOMB_NEWLINES >> 20, prefix=KB)
    gzip_stream(root / "bioc-blanks.gz", b" " * 4095 + b"\n", BOMB_NEWLINES >> 12, prefix=b"<collection>\n")
    for i in range(2):  # the two shards of train.txt that merge-shards and link --shard reruns start from
        run_setup(cli, ["link", "--corpus", "train.txt", "--kb", "kb.txt", "--shard", "%d/2" % i, "--out", "shards"],
                  root)
    if not HAVE_TORCH:
        return
    preset = json.loads((MODELS / "compact-encoder.json").read_text())
    (root / "compact-encoder.json").write_bytes(jdump(preset))
    run_setup(cli, ["init-model", "--preset", "compact-encoder.json", "--kb", "kb.txt", "--corpus", "train.txt",
                    "--out", "model"], root)
    run_setup(cli, ["index"] + DICT_ARGS + ["--sparse-index", "dense-sparse.idx", "--model", "model",
                                             "--dense-index", "dense.idx"], root)
    # A run folder around the encoder: run.json, the triplet preset as preset.json, model/.
    run = root / "run"
    shutil.copytree(root / "model", run / "model")
    (run / "preset.json").write_bytes((MODELS / "triplet.json").read_bytes())
    (run / "run.json").write_bytes(jdump(RUN_INFO))
    run_setup(cli, ["eval"] + DICT_ARGS + ["--run", "run", "--knn", "--datastore", "datastore.bin", "--json"], root)
    # A run with a checkpoint to resume (no optimizer.pt: every resume case must stop before it).
    resume = root / "resume"
    shutil.copytree(run, resume)
    shutil.copytree(root / "model", resume / "checkpoint" / "model")
    (resume / "checkpoint" / "state.json").write_bytes(jdump(STATE))
    (resume / "log.jsonl").write_bytes(b'{"event":"epoch","epoch":1}\n')
    # A BioSyn run with a checkpoint that resumes for real (optimizer.pt, candidates.bin): its
    # preset cut to one epoch of four steps of two mentions.
    biosyn = json.loads((MODELS / "biosyn.json").read_text())
    for schedule in (biosyn["training"], biosyn["schedules"]["short"]):
        schedule.update(epochs=1, max_train_mentions=8, batch_size=2)
    (root / "tiny-biosyn.json").write_bytes(jdump(biosyn))
    run_setup(cli, ["train", "--preset", "tiny-biosyn.json", "--schedule", "short", "--compact", "--device", "cpu",
                    "--out", "biosyn-run", "--train", "train.txt", "--dev", "test.txt", "--kb", "kb.txt"], root)
    # a project holding the run's kNN datastore (eval --project stores it as a blob)
    make_project(str(root / "knn.linkscope"))
    run_setup(cli, ["eval"] + DICT_ARGS + ["--run", "run", "--knn", "--project", "knn.linkscope", "--json"], root)
    db = sqlite3.connect(str(root / "knn.linkscope"))
    db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    db.execute("PRAGMA journal_mode = DELETE")
    blobs = db.execute("SELECT COUNT(*) FROM blobs WHERE name LIKE 'knn-datastore/%'").fetchone()[0]
    db.close()
    if blobs != 1:
        raise SystemExit("set-up failed: eval --project stored %d kNN datastores, expected 1" % blobs)


RUN_INFO = {"status": "finished", "preset": "triplet", "schedule": "paper", "device": "cpu", "epochs_done": 1,
            "best_epoch": 1, "best_dev_accuracy": 0.5, "untrained_dev_accuracy": 0.4, "sparse_weight": 0.0,
            "radius": 0.0, "seconds": 1.0, "error": "", "collapse": "", "collapsed_validations": 0}
STATE = {"epoch": 1, "step": 0, "global_step": 10, "validated": True, "epochs_without_improvement": 0,
         "log_bytes": 10, "scalars": {}, "collapsed_validations": 0}


# ----- binary formats -----------------------------------------------------------------------------

def st_split(data):
    n = struct.unpack_from("<Q", data, 0)[0]
    return json.loads(data[8:8 + n]), data[8 + n:]


def st_join(header, body, raw_header=None):
    text = raw_header if raw_header is not None else json.dumps(header).encode()
    return struct.pack("<Q", len(text)) + text + body


def st_edit(fn):
    """A model.safetensors whose header (parsed) is changed by fn(header, body) -> (header, body)."""
    def make(S):
        header, body = st_split(S.bytes("model/model.safetensors"))
        header, body = fn(header, body)
        return st_join(header, body)
    return Gen(make)


def st_first_tensor(header, prefix="embeddings.word_embeddings"):
    for name, info in header.items():
        if name.startswith(prefix):
            return name, info
    raise KeyError(prefix)


def st_poke_float(header, body, tensor_prefix, value):
    name, info = st_first_tensor(header, tensor_prefix)
    assert info["dtype"] == "F32"
    b = bytearray(body)
    struct.pack_into("<f", b, info["data_offsets"][0], value)
    return header, bytes(b)


def st_fill(header, body, tensors, value):
    """Every value of the named F32 tensors set to `value`."""
    b = bytearray(body)
    for name in tensors:
        info = header[name]
        assert info["dtype"] == "F32"
        begin, end = info["data_offsets"]
        struct.pack_into("<%df" % ((end - begin) // 4), b, begin, *([value] * ((end - begin) // 4)))
    return header, bytes(b)


# Weights within the magnitude bound (sqrt(FLT_MAX / 1024), about 5.8e17, for the compact encoder)
# whose products compound: the embeddings' LayerNorm adds 4e17 to every value, the query and key
# projections sum 256 of them times 4e17, and the attention scores overflow float32, so every
# vector is NaN. Refused when the vectors leave the encoder.
OVERFLOWING_TENSORS = ("embeddings.LayerNorm.bias", "encoder.layer.0.attention.self.query.weight",
                       "encoder.layer.0.attention.self.key.weight")


def overflowing_model(S):
    header, body = st_split(S.bytes("model/model.safetensors"))
    return st_join(*st_fill(header, body, OVERFLOWING_TENSORS, 4e17))


def fix_crc(data):
    """Recompute the trailing CRC-32 (zlib) of a Linkscope binary file over every byte before it."""
    body = data[:-4]
    return body + struct.pack("<I", zlib.crc32(body) & 0xFFFFFFFF)


def sparse_layout(data):
    terms, term_bytes = struct.unpack_from("<QQ", data, 60)
    at = 76 + term_bytes
    ends_at = at
    idf_at = ends_at + 4 * terms
    postings_at = idf_at + 8 * terms
    (postings,) = struct.unpack_from("<Q", data, postings_at)
    offsets_at = postings_at + 8
    entries_at = offsets_at + 8 * (terms + 1)
    weights_at = entries_at + 4 * postings
    return dict(terms=terms, term_bytes=term_bytes, ends=ends_at, idf=idf_at, postings_at=postings_at,
                postings=postings, offsets=offsets_at, entries=entries_at, weights=weights_at)


def sparse_edit(fn):
    """sparse.idx changed by fn(bytearray, layout), its size field and CRC-32 fixed."""
    def make(S):
        data = bytearray(S.bytes("sparse.idx"))
        fn(data, sparse_layout(data))
        struct.pack_into("<Q", data, 12, len(data))
        return fix_crc(bytes(data))
    return Gen(make)


def approximate_layout(data):
    """Where version 2's sections start (an approximate index; see core/retrieval/sparse_index_io.cpp)."""
    def pad(at):
        return (at + 7) // 8 * 8
    (names,) = struct.unpack_from("<Q", data, 36)
    terms, term_bytes = struct.unpack_from("<QQ", data, 60)
    (width,) = struct.unpack_from("<I", data, 76)
    row_count = pad(pad(80 + term_bytes) + 4 * terms) + 8 * terms
    (rows,) = struct.unpack_from("<Q", data, row_count)
    row_terms = row_count + 8 + 8 * (names + 1)
    trigrams = pad(pad(row_terms + width * rows) + 4 * rows)
    trigram_terms, trigram_bytes = struct.unpack_from("<QQ", data, trigrams)
    trigram_postings = pad(pad(trigrams + 24 + trigram_bytes) + 4 * trigram_terms) + 8 * trigram_terms
    (postings,) = struct.unpack_from("<Q", data, trigram_postings)
    trigram_entries = trigram_postings + 8 + 8 * (trigram_terms + 1)
    hashes = pad(pad(trigram_entries + 4 * postings) + 4 * postings)
    return dict(row_count=row_count, row_terms=row_terms, trigrams=trigrams, trigram_entries=trigram_entries,
                hashed_entries=hashes + 8 * names)


def approximate_edit(fn):
    """approximate.idx changed by fn(bytearray, layout), its size field and CRC-32 fixed."""
    def make(S):
        data = bytearray(S.bytes("approximate.idx"))
        fn(data, approximate_layout(data))
        struct.pack_into("<Q", data, 12, len(data))
        return fix_crc(bytes(data))
    return Gen(make)


def dense_edit(fn, fix=True):
    def make(S):
        data = bytearray(S.bytes("dense.idx"))
        fn(data)
        return fix_crc(bytes(data)) if fix else bytes(data)
    return Gen(make)


def datastore_layout(data):
    dim, fp = struct.unpack_from("<QQ", data, 20)
    at = 36 + fp
    next_key, entities, entity_bytes = struct.unpack_from("<QQQ", data, at)
    at += 24
    entity_count_at = at - 16
    at += entity_bytes + 4 * entities
    key_count_at = at
    keys, source_bytes = struct.unpack_from("<QQ", data, at)
    vectors_at = len(data) - 4 - keys * dim * 4
    return dict(dim=dim, entity_count_at=entity_count_at, key_count_at=key_count_at, keys=keys,
                vectors=vectors_at)


def datastore_edit(fn):
    def make(S):
        data = bytearray(S.bytes("datastore.bin"))
        fn(data, datastore_layout(data))
        struct.pack_into("<Q", data, 12, len(data))
        return fix_crc(bytes(data))
    return Gen(make)


# ----- oracles --------------------------------------------------------------------------------------

def pubtator_counts(data):
    docs = mentions = 0
    for line in lines_of(data):
        if re.match(rb"^\d+\|t\|", line):
            docs += 1
        elif line.count(b"\t") >= 5:
            mentions += 1
    return docs, mentions


def stats_counts_check(docs, mentions):
    def check(out, work):
        j = json.loads(out)
        if (j["documents"], j["mentions"]) != (docs, mentions):
            return "expected %d documents and %d mentions, got %d and %d" % (docs, mentions, j["documents"],
                                                                              j["mentions"])
        return None
    return check


def kb_entities_check(entities):
    def check(out, work):
        j = json.loads(out)
        if j["kb"]["entities"] != entities:
            return "expected %d KB entities, got %d" % (entities, j["kb"]["entities"])
        return None
    return check


def json_check(out, work):
    json.loads(out)
    return None


def pubtator_cut(data, p):
    """What a PubTator reader must make of data[:p]: ('error', line) | ('ok', check) | ('either', None)."""
    cut = data[:p]
    if not cut.strip():
        return "error", None
    lines = lines_of(cut)
    partial, n = lines[-1], len(lines)
    if partial == b"" or re.match(rb"^\d+\|[ta]\|[^\n]", partial):
        return "ok", stats_counts_check(*pubtator_counts(cut))
    if b"\t" in partial:
        cols = partial.split(b"\t")
        if len(cols) < 6:
            return "error", n
        if re.fullmatch(rb"[A-Za-z0-9:]+", cols[5]):
            return "ok", stats_counts_check(*pubtator_counts(cut))
        return "either", None
    if re.match(rb"^\d+\|[ta]\|$", partial):
        return "either", None
    return "error", n


def medic_cut(data, p):
    cut = data[:p]
    lines = lines_of(cut)
    partial, n = lines[-1], len(lines)
    complete = [l for l in lines[:-1] if l.strip()]
    if partial == b"":
        return ("ok", kb_entities_check(len(complete))) if complete else ("error", None)
    if b"||" not in partial:
        return "error", n
    rest = partial.split(b"||", 1)[1]
    if rest == b"":
        return "error", n
    if rest.endswith(b"|"):
        return "either", None
    return "ok", kb_entities_check(len(complete) + 1)


# ----- the cases ------------------------------------------------------------------------------------

def stats_corpus_cases():
    files = lambda data: {"corpus.txt": data}
    argv = ["stats", "--corpus", "corpus.txt", "--json"]
    ref("stats-corpus", "stats", argv, files(TRAIN))

    def err(name, kind, data, line=None, extra=None, names=("corpus.txt",), **kw):
        add("stats.corpus." + name, kind, "stats", argv + (extra or []), data if isinstance(data, dict) else files(data),
            names=names, line=line, **kw)

    def clean(name, kind, data):
        add("stats.corpus." + name, kind, "stats", argv, files(data), expect="clean", ref="stats-corpus")

    # truncation at many points: the end of a line, inside titles, inside every column of mention lines
    rng = random.Random(1601)
    points = {1, 5, 9, 12, 40, len(TRAIN) - 1, len(TRAIN) - 2}
    first_mention = TRAIN.index(b"90000001\t21")
    for col_end in range(6):
        at = first_mention
        for _ in range(col_end):
            at = TRAIN.index(b"\t", at) + 1
        points.add(at + 1)
    points.add(TRAIN.index(b"\n\n") + 1)
    points.add(TRAIN.index(b"\n\n") + 2)
    points.add(TRAIN.index(b"90000003\t18") + 40)   # inside the composite "D001943|D010051"
    core = set(points) - {5, 9, 40, len(TRAIN) - 2, TRAIN.index(b"\n\n") + 2}
    randoms = []
    while len(points) < 26:
        p = rng.randrange(1, len(TRAIN))
        if p not in points:
            points.add(p)
            randoms.append(p)
    core.update(randoms[:2])
    for p in sorted(points):
        expect, info = pubtator_cut(TRAIN, p)
        full = p not in core
        if expect == "ok":
            add("stats.corpus.truncate.%05d" % p, "truncation", "stats", argv, files(TRAIN[:p]), expect="ok",
                check=info, full=full)
        elif expect == "error":
            err("truncate.%05d" % p, "truncation", TRAIN[:p], line=info, full=full)
        else:
            add("stats.corpus.truncate.%05d" % p, "truncation", "stats", argv, files(TRAIN[:p]), expect="either",
                names=("corpus.txt",), line="any", check=json_check, full=full)
    # random byte flips (seeded): an error naming a line, or a valid corpus
    for seed in range(8):
        add("stats.corpus.flip1.%d" % seed, "byteflip", "stats", argv, files(flip(TRAIN, seed, 1)), expect="either",
            names=("corpus.txt",), line="any", check=json_check, full=seed >= 4)
    for seed in range(5):
        add("stats.corpus.flip8.%d" % seed, "byteflip", "stats", argv, files(flip(TRAIN, 100 + seed, 8)),
            expect="either", names=("corpus.txt",), line="any", check=json_check, full=seed >= 2)
    # NUL bytes
    err("nul.in-pmid", "nul", set_line(TRAIN, 1, b"9000\x000001" + lines_of(TRAIN)[0][8:]), line=1)
    err("nul.for-tab", "nul", set_line(TRAIN, 3, lines_of(TRAIN)[2].replace(b"\t", b"\x00", 1)), line=3)
    err("nul.line-at-end", "nul", TRAIN + b"\x00\x00\x00\n", line=len(lines_of(TRAIN)))
    err("nul.whole-file", "nul", b"\x00" * 4096, line=1)
    add("stats.corpus.nul.in-title", "nul", "stats", argv,
        files(set_line(TRAIN, 1, lines_of(TRAIN)[0][:20] + b"\x00" + lines_of(TRAIN)[0][21:])), expect="either",
        names=("corpus.txt",), line=1, check=stats_counts_check(6, 40))
    # invalid UTF-8: 0xFF, a lone continuation byte, an overlong '/', a surrogate, beyond U+10FFFF,
    # Latin-1, a sequence cut by the end of the file
    l1 = lines_of(TRAIN)[0]
    err("utf8.ff-title", "utf8", set_line(TRAIN, 1, l1 + b"\xff"), line=1)
    err("utf8.continuation-abstract", "utf8", set_line(TRAIN, 2, lines_of(TRAIN)[1] + b" \x80"), line=2)
    err("utf8.overlong-mention", "utf8", set_line(TRAIN, 5, lines_of(TRAIN)[4] + b"\xc0\xaf"), line=5)
    err("utf8.surrogate", "utf8", set_line(TRAIN, 12, lines_of(TRAIN)[11] + b"\xed\xa0\x80"), line=12)
    err("utf8.above-10ffff", "utf8", set_line(TRAIN, 14, lines_of(TRAIN)[13] + b"\xf4\x90\x80\x80"), line=14)
    err("utf8.latin1", "utf8", set_line(TRAIN, 1, l1.replace(b"disease", b"d\xe9sease")), line=1)
    err("utf8.cut-at-eof", "utf8", TRAIN + b"90000099|t|caf\xc3", line=len(lines_of(TRAIN)))
    # overlong lines (several MB)
    last_abstract = max(i for i, l in enumerate(lines_of(TRAIN)) if re.match(rb"^\d+\|a\|", l)) + 1
    add("stats.corpus.overlong.abstract", "overlong", "stats", argv,
        {"corpus.txt": Gen(lambda S: set_line(TRAIN, last_abstract, lines_of(TRAIN)[last_abstract - 1] +
                                              b" lorem" * (OVERLONG // 6)))},
        expect="ok", check=stats_counts_check(6, 40))
    err("overlong.garbage-line", "overlong", {"corpus.txt": Gen(lambda S: insert_line(TRAIN, 4, b"x" * OVERLONG))},
        line=4)
    err("overlong.mention-text", "overlong",
        {"corpus.txt": Gen(lambda S: set_line(TRAIN, 3, b"90000001\t21\t39\t" + b"H" * OVERLONG +
                                              b"\tSpecificDisease\tD006816"))}, line=3)
    err("overlong.no-newline", "overlong", {"corpus.txt": Gen(lambda S: b"9" * OVERLONG)}, line=1)
    add("stats.corpus.hugenum.pmid-digits", "hugenum", "stats", argv,
        {"corpus.txt": Gen(lambda S: b"9" * OVERLONG + b"|t|title\n")}, expect="either", names=("corpus.txt",),
        line=1, check=stats_counts_check(1, 0))
    # offsets: negative, fractional, exponent, beyond 64 bits, reversed, empty, past the text
    base3 = lines_of(OFFS_DOC)[2]
    for name, start, end in [("negative-start", b"-5", b"18"), ("negative-end", b"0", b"-18"),
                             ("fractional-start", b"0.5", b"18"), ("fractional-end", b"0", b"18.0"),
                             ("exponent", b"0", b"1.8e1"), ("hex", b"0x0", b"18"),
                             ("beyond-u64", b"0", b"99999999999999999999999"),
                             ("u64-max", b"18446744073709551615", b"18446744073709551615"),
                             ("reversed", b"18", b"0"), ("empty-span", b"5", b"5"), ("empty-field", b"", b"18"),
                             ("end-past-text", b"32", b"60"), ("start-past-text", b"100", b"118"),
                             ("int64-min", b"-9223372036854775808", b"18")]:
        err("offsets." + name, "offsets",
            set_line(OFFS_DOC, 3, b"1\t" + start + b"\t" + end + b"\tHuntington disease\tSpecificDisease\tD006816"),
            line=3)
    err("offsets.text-mismatch", "offsets", set_line(OFFS_DOC, 3, base3.replace(b"Huntington disease", b"Huntington diseasX")),
        line=3)
    err("offsets.pmid-mismatch", "offsets", set_line(OFFS_DOC, 3, b"2" + base3[1:]), line=3)
    err("offsets.mention-before-title", "offsets", lines_of(OFFS_DOC)[2] + b"\n" + OFFS_DOC, line=1)
    add("stats.corpus.offsets.text-mismatch-lenient", "offsets", "stats", argv + ["--lenient"],
        files(set_line(OFFS_DOC, 3, base3.replace(b"Huntington disease", b"Huntington diseasX"))), expect="ok",
        check=lambda out, work: None if json.loads(out)["diagnostics"] else "no diagnostic for the mismatch")
    add("stats.corpus.offsets.past-text-lenient", "offsets", "stats", argv + ["--lenient"],
        files(set_line(OFFS_DOC, 3, b"1\t100\t118\tHuntington disease\tSpecificDisease\tD006816")), expect="either",
        names=("corpus.txt",), line=3,
        check=lambda out, work: None if json.loads(out)["diagnostics"] else "no diagnostic for the offsets")
    err("offsets.negative-lenient", "offsets",
        set_line(OFFS_DOC, 3, b"1\t-5\t18\tHuntington disease\tSpecificDisease\tD006816"), line=3, extra=["--lenient"])
    # line ends and byte-order mark: the same result as the clean file
    clean("lineend.bom", "lineend", bom(TRAIN))
    clean("lineend.crlf", "lineend", crlf(TRAIN))
    clean("lineend.cr", "lineend", cr_only(TRAIN))
    clean("lineend.bom-crlf", "lineend", bom(crlf(TRAIN)))
    clean("lineend.bom-cr", "lineend", bom(cr_only(TRAIN)))
    clean("lineend.no-final-newline", "lineend", TRAIN.rstrip(b"\n"))
    clean("lineend.crlf-no-final-newline", "lineend", crlf(TRAIN).rstrip(b"\r\n"))
    clean("lineend.mixed-lf-crlf", "lineend",
          b"\n".join(l + (b"\r" if i % 2 else b"") for i, l in enumerate(lines_of(TRAIN)[:-1])) + b"\n")
    # empty, folders, missing files, links
    err("empty.zero-bytes", "empty", b"")
    err("empty.newlines-only", "empty", b"\n\n\n")
    err("empty.bom-only", "empty", b"\xef\xbb\xbf")
    err("empty.crlf-only", "empty", b"\r\n\r\n")
    err("directory", "directory", {"corpus.txt": Dir()})
    err("missing", "missing", {})
    err("symlink-loop", "symlink", {"corpus.txt": Sym("corpus.txt")})
    err("symlink-cycle", "symlink", {"corpus.txt": Sym("other.txt"), "other.txt": Sym("corpus.txt")},
        names=("corpus.txt", "other.txt"))
    err("symlink-dangling", "symlink", {"corpus.txt": Sym("nowhere/none.txt")}, names=("corpus.txt", "none.txt"))
    err("endless-device", "overlong", {"corpus.txt": Sym("/dev/zero")}, names=("corpus.txt", "/dev/zero"))
    # gzip: as it is, multi-member, trailing garbage, truncated, damaged, bombs
    clean("gzip.plain", "gzip", gz(TRAIN))
    clean("gzip.multi-member", "gzip", gz(TRAIN[:1000]) + gz(TRAIN[1000:]))
    clean("gzip.bomb-newlines-after", "gzipbomb", Link("train-newlines.gz"))
    add("stats.corpus.gzip.trailing-garbage", "gzip", "stats", argv, files(gz(TRAIN) + b"garbage!" * 8),
        expect="either", names=("corpus.txt",), ref="stats-corpus")
    for frac in (10, 50, 90):
        data = gz(TRAIN)
        err("gzip.truncated-%d" % frac, "gzip", data[:len(data) * frac // 100])
    data = gz(TRAIN)
    err("gzip.crc", "gzip", data[:-8] + bytes([data[-8] ^ 0xFF]) + data[-7:])
    err("gzip.isize", "gzip", data[:-4] + struct.pack("<I", 7))
    err("gzip.deflate-damaged", "gzip", data[:30] + bytes([data[30] ^ 0x55]) + data[31:])
    err("gzip.header-only", "gzip", data[:10])
    err("gzip.bomb-newlines", "gzipbomb", {"corpus.txt": Link("newlines.gz")})
    err("gzip.bomb-endless-line", "gzipbomb", {"corpus.txt": Link("endless.gz")}, line=1)
    # BioC XML is read whole: a gzip file is refused once it expands past its bound (32 times the
    # gzip, at least 16 MiB; util/text_file.h), at the line it has reached, whatever it would expand
    # to: a 2 GiB bomb (32 gzip members of 64 MiB of blanks, under 3 MB) stops there, not at the 2 GiB
    # text cap of BioC
    err("bioc.gzip-bomb-blanks", "gzipbomb", {"corpus.txt": Link("bioc-blanks.gz")},
        line="any", extra=["--corpus-format", "bioc"])
    err("bioc.gzip-bomb-2gib", "gzipbomb", {"corpus.txt": Gen(lambda S: gz(b"<collection>\n") + gz(
        (b" " * 4095 + b"\n") * (16 << 10)) * 32)}, line="any", extra=["--corpus-format", "bioc"])
    # pipes are refused, not waited on; a PMID list is checked before the corpus is read, and
    # its ids as they are read (a million unknown ids: refused at the first)
    err("fifo", "fifo", {"corpus.txt": Fifo()})
    pmids = ["--split-pmids", "test=list.txt"]
    for name, kind, spec in [("fifo", "fifo", Fifo()), ("directory", "directory", Dir())]:
        err("split-pmids." + name, kind, {"corpus.txt": TRAIN, "list.txt": spec}, extra=pmids, names=("list.txt",))
    err("split-pmids.missing", "missing", {"corpus.txt": TRAIN}, extra=pmids, names=("list.txt",))
    err("split-pmids.unknown-ids", "overlong",
        {"corpus.txt": TRAIN, "list.txt": Gen(lambda S: b"".join(b"%d\n" % i for i in range(10 ** 8, 10 ** 8 + 10 ** 6)))},
        extra=pmids, names=("list.txt",), line=1)


def stats_kb_cases():
    argv = ["stats", "--corpus", "test.txt", "--kb", "kb.txt", "--json"]
    files = lambda data: {"test.txt": TEST, "kb.txt": data}
    ref("stats-kb", "stats", argv, files(KB))

    def err(name, kind, data, line=None, extra=None, names=("kb.txt",), **kw):
        add("stats.kb." + name, kind, "stats", argv + (extra or []), data if isinstance(data, dict) else files(data),
            names=names, line=line, **kw)

    def clean(name, kind, data):
        add("stats.kb." + name, kind, "stats", argv, files(data), expect="clean", ref="stats-kb")

    rng = random.Random(1602)
    points = {1, 7, 8, 9, 15, len(KB) - 1, KB.index(b"\n") + 1}
    core = {1, 8, 9, len(KB) - 1, KB.index(b"\n") + 1}
    while len(points) < 14:
        p = rng.randrange(1, len(KB))
        if p not in points and len(core) < 6:
            core.add(p)
        points.add(p)
    for p in sorted(points):
        expect, info = medic_cut(KB, p)
        full = p not in core
        if expect == "ok":
            add("stats.kb.truncate.%04d" % p, "truncation", "stats", argv, files(KB[:p]), expect="ok", check=info,
                full=full)
        elif expect == "error":
            err("truncate.%04d" % p, "truncation", KB[:p], line=info, full=full)
        else:
            add("stats.kb.truncate.%04d" % p, "truncation", "stats", argv, files(KB[:p]), expect="either",
                names=("kb.txt",), line="any", check=json_check, full=full)
    for seed in range(6):
        add("stats.kb.flip.%d" % seed, "byteflip", "stats", argv, files(flip(KB, 200 + seed, 1 + seed % 3)),
            expect="either", names=("kb.txt",), line="any", check=json_check, full=seed >= 2)
    err("nul.for-separator", "nul", set_line(KB, 3, lines_of(KB)[2].replace(b"||", b"\x00\x00")), line=3)
    err("nul.whole-file", "nul", b"\x00" * 2048, line=1)
    err("utf8.ff", "utf8", set_line(KB, 4, lines_of(KB)[3] + b"\xff"), line=4)
    err("utf8.overlong", "utf8", set_line(KB, 7, lines_of(KB)[6] + b"|\xe0\x80\xaf"), line=7)
    err("utf8.latin1", "utf8", set_line(KB, 10, lines_of(KB)[9] + b"|Tumeur b\xe9nigne"), line=10)
    add("stats.kb.overlong.name", "overlong", "stats", argv,
        files(Gen(lambda S: KB + b"D999999||" + b"Long name " * (OVERLONG // 10) + b"\n")), expect="ok",
        check=kb_entities_check(36))
    err("overlong.no-separator", "overlong", {"test.txt": TEST, "kb.txt": Gen(lambda S: insert_line(KB, 2, b"D" * OVERLONG))},
        line=2)
    add("stats.kb.hugenum.id-digits", "hugenum", "stats", argv,
        files(insert_line(KB, 3, b"D" + b"9" * 400 + b"||Huge Identifier Disease")), expect="ok",
        check=kb_entities_check(36))
    clean("lineend.bom", "lineend", bom(KB))
    clean("lineend.crlf", "lineend", crlf(KB))
    clean("lineend.cr", "lineend", cr_only(KB))
    clean("lineend.bom-crlf", "lineend", bom(crlf(KB)))
    clean("lineend.no-final-newline", "lineend", KB.rstrip(b"\n"))
    clean("gzip.plain", "gzip", gz(KB))
    clean("gzip.bomb-newlines-after", "gzipbomb", Link("kb-newlines.gz"))
    err("empty.zero-bytes", "empty", b"")
    err("empty.newlines-only", "empty", b"\n\n")
    err("directory", "directory", {"test.txt": TEST, "kb.txt": Dir()})
    err("missing", "missing", {"test.txt": TEST})
    err("symlink-loop", "symlink", {"test.txt": TEST, "kb.txt": Sym("kb.txt")})
    err("endless-device", "overlong", {"test.txt": TEST, "kb.txt": Sym("/dev/zero")}, names=("kb.txt", "/dev/zero"))
    data = gz(KB)
    err("gzip.truncated", "gzip", data[:len(data) // 2])
    err("gzip.bomb-endless-line", "gzipbomb", {"test.txt": TEST, "kb.txt": Link("endless.gz")}, line=1)
    err("format-mismatch-ctd", "structure", KB, extra=["--kb-format", "ctd"])
    err("format-mismatch-umls", "structure", KB, extra=["--kb-format", "umls"], line="any")

    # CTD
    cargv = ["stats", "--corpus", "test.txt", "--kb", "ctd.tsv", "--json"]
    cfiles = lambda data: {"test.txt": TEST, "ctd.tsv": data}
    ref("stats-ctd", "stats", cargv, cfiles(CTD))
    for name, data in [("lineend.bom", bom(CTD)), ("lineend.crlf", crlf(CTD)), ("lineend.cr", cr_only(CTD)),
                       ("gzip.plain", gz(CTD))]:
        add("stats.ctd." + name, name.split(".")[0], "stats", cargv, cfiles(data), expect="clean", ref="stats-ctd")
    ctd_lines = lines_of(CTD)
    add("stats.ctd.few-columns", "structure", "stats", cargv,
        cfiles(set_line(CTD, 7, b"Asthma\tMESH:D001249")), names=("ctd.tsv",), line=7)
    add("stats.ctd.utf8", "utf8", "stats", cargv, cfiles(set_line(CTD, 6, ctd_lines[5] + b"\xfe")), names=("ctd.tsv",),
        line=6)
    add("stats.ctd.nul", "nul", "stats", cargv, cfiles(set_line(CTD, 6, ctd_lines[5].replace(b"\t", b"\x00"))),
        names=("ctd.tsv",), line=6)
    add("stats.ctd.no-header", "structure", "stats", cargv, cfiles(b"\n".join(ctd_lines[5:])), names=("ctd.tsv",),
        expect="either", check=json_check)
    add("stats.ctd.truncate-header", "truncation", "stats", cargv, cfiles(CTD[:60]), names=("ctd.tsv",))
    for seed in range(3):
        add("stats.ctd.flip.%d" % seed, "byteflip", "stats", cargv, cfiles(flip(CTD, 300 + seed, 2)),
            expect="either", names=("ctd.tsv",), check=json_check, full=seed >= 1)
    add("stats.ctd.overlong", "overlong", "stats", cargv,
        cfiles(Gen(lambda S: CTD + b"Long\tMESH:D999999\t\t" + b"d" * OVERLONG + b"\t\t\t\t\t\n")), expect="ok",
        check=kb_entities_check(4))

    # UMLS MRCONSO.RRF + MRSTY.RRF
    uargv = ["stats", "--corpus", "test.txt", "--kb", "MRCONSO.RRF", "--mrsty", "MRSTY.RRF", "--json"]
    ufiles = lambda conso=MRCONSO, sty=MRSTY: {"test.txt": TEST, "MRCONSO.RRF": conso, "MRSTY.RRF": sty}
    ref("stats-umls", "stats", uargv, ufiles())
    for name, conso, sty in [("lineend.bom", bom(MRCONSO), bom(MRSTY)), ("lineend.crlf", crlf(MRCONSO), crlf(MRSTY)),
                             ("lineend.cr", cr_only(MRCONSO), cr_only(MRSTY)), ("gzip.plain", gz(MRCONSO), gz(MRSTY))]:
        add("stats.umls." + name, name.split(".")[0], "stats", uargv, ufiles(conso, sty), expect="clean",
            ref="stats-umls")
    conso_lines = lines_of(MRCONSO)
    add("stats.umls.few-fields", "structure", "stats", uargv,
        ufiles(set_line(MRCONSO, 2, b"|".join(conso_lines[1].split(b"|")[:10]) + b"|")), names=("MRCONSO.RRF",), line=2)
    add("stats.umls.truncate", "truncation", "stats", uargv, ufiles(MRCONSO[:len(conso_lines[0]) + 40]),
        names=("MRCONSO.RRF",), line=2)
    add("stats.umls.bad-cui", "structure", "stats", uargv,
        ufiles(set_line(MRCONSO, 3, b"X" + conso_lines[2][1:])), names=("MRCONSO.RRF",), line=3)
    add("stats.umls.utf8", "utf8", "stats", uargv, ufiles(set_line(MRCONSO, 1, conso_lines[0] + b"\xc3")),
        names=("MRCONSO.RRF",), line=1)
    sty_lines = lines_of(MRSTY)
    add("stats.umls.mrsty-truncate", "truncation", "stats", uargv, ufiles(sty=MRSTY[:20]), names=("MRSTY.RRF",), line=1)
    add("stats.umls.mrsty-utf8", "utf8", "stats", uargv, ufiles(sty=set_line(MRSTY, 2, sty_lines[1] + b"\xff")),
        names=("MRSTY.RRF",), line=2)
    add("stats.umls.mrsty-overlong", "overlong", "stats", uargv,
        ufiles(sty=Gen(lambda S: insert_line(MRSTY, 2, b"C" * OVERLONG))), names=("MRSTY.RRF",), line=2)
    add("stats.umls.mrsty-directory", "directory", "stats", uargv, ufiles(sty=Dir()), names=("MRSTY.RRF",))
    add("stats.umls.mrsty-missing", "missing", "stats", uargv,
        {"test.txt": TEST, "MRCONSO.RRF": MRCONSO}, names=("MRSTY.RRF",))
    add("stats.umls.mrsty-bomb", "gzipbomb", "stats", uargv, ufiles(sty=Link("endless.gz")), names=("MRSTY.RRF",),
        line=1)
    add("stats.umls.mrconso-nul", "nul", "stats", uargv, ufiles(conso=b"\x00" * 100 + b"\n"), names=("MRCONSO.RRF",),
        line=1)


def eval_cases():
    base = {"train.txt": TRAIN, "test.txt": TEST, "kb.txt": KB}
    argv = ["eval"] + DICT_ARGS + ["--json"]
    ref("eval-spelling", "eval", argv + ["--spelling", "spelling.txt"], dict(base, **{"spelling.txt": SPELLING}))

    def sp(name, kind, data, line=None, **kw):
        add("eval.spelling." + name, kind, "eval", argv + ["--spelling", "spelling.txt"],
            dict(base, **{"spelling.txt": data}), names=("spelling.txt",), line=line, **kw)

    sp("lineend.bom", "lineend", bom(SPELLING), expect="clean", ref="eval-spelling")
    sp("lineend.crlf", "lineend", crlf(SPELLING), expect="clean", ref="eval-spelling")
    sp("lineend.cr", "lineend", cr_only(SPELLING), expect="clean", ref="eval-spelling")
    sp("gzip.plain", "gzip", gz(SPELLING), expect="clean", ref="eval-spelling")
    sp("truncate.before-separator", "truncation", SPELLING[:len(b"huntingtons||huntington\nast")], line=2)
    sp("truncate.at-separator", "truncation", SPELLING[:len(b"huntingtons||huntington\nastma||")], line=2)
    sp("no-separator", "structure", insert_line(SPELLING, 3, b"foo bar"), line=3)
    sp("utf8", "utf8", set_line(SPELLING, 2, b"astma||asthm\xe1"), line=2)
    sp("nul", "nul", set_line(SPELLING, 4, b"parkin\x00sons||parkinson"), expect="either", line=4, check=json_check)
    sp("overlong", "overlong", Gen(lambda S: insert_line(SPELLING, 2, b"a" * OVERLONG + b"||b")), line=2)
    sp("conflict", "structure", SPELLING + b"astma||asthmatic\n", line=5)
    sp("empty", "empty", b"")
    sp("directory", "directory", Dir())
    sp("gzip.bomb-endless-line", "gzipbomb", Link("endless.gz"), line=1)
    sp("flip", "byteflip", flip(SPELLING, 401, 2), expect="either", line="any", check=json_check)

    # a damaged training or test corpus, reached through eval
    add("eval.train.utf8", "utf8", "eval", argv, dict(base, **{"train.txt": set_line(TRAIN, 2, lines_of(TRAIN)[1] + b"\xff")}),
        names=("train.txt",), line=2)
    add("eval.test.offsets", "offsets", "eval", argv,
        dict(base, **{"test.txt": set_line(TEST, 3, b"90000007\t0\t99999\tAsthma\tSpecificDisease\tD001249")}),
        names=("test.txt",), line=3)
    add("eval.kb.truncate", "truncation", "eval", argv, dict(base, **{"kb.txt": KB[:KB.index(b"\n", 200) + 4]}),
        names=("kb.txt",), line=line_of_offset(KB, KB.index(b"\n", 200) + 4))
    # outputs where files cannot go
    add("eval.report-is-directory", "directory", "eval", argv + ["--report", "report.json"],
        dict(base, **{"report.json": Dir()}), names=("report.json",))
    add("eval.per-mention-missing-folder", "missing", "eval", argv + ["--per-mention", "nowhere/pm.jsonl"], base,
        names=("nowhere/pm.jsonl", "nowhere"))
    add("eval.index-is-directory", "directory", "eval", argv + ["--index", "sparse.idx"],
        dict(base, **{"sparse.idx": Dir()}), names=("sparse.idx",))

    # the sparse index: not one, truncated, damaged, and valid magic with bad sizes (size and CRC fixed)
    iargv = argv + ["--index", "sparse.idx"]
    ref("eval-index", "eval", iargv, dict(base, **{"sparse.idx": Link("sparse.idx")}))

    def idx(name, kind, data, **kw):
        add("eval.index." + name, kind, "eval", iargv, dict(base, **{"sparse.idx": data}), names=("sparse.idx",), **kw)

    idx("empty", "empty", b"")
    idx("random-bytes", "structure", bytes(random.Random(5).randrange(256) for _ in range(5000)))
    idx("magic-only", "truncation", b"LSSPARSE")
    for frac in (5, 50, 99):
        idx("truncated-%d" % frac, "truncation", Gen(lambda S, f=frac: S.bytes("sparse.idx")[:len(S.bytes("sparse.idx")) * f // 100]))
    idx("flipped", "byteflip", Gen(lambda S: S.bytes("sparse.idx")[:200] + bytes([S.bytes("sparse.idx")[200] ^ 0x10]) +
                                   S.bytes("sparse.idx")[201:]))
    idx("trailing-bytes", "structure", Gen(lambda S: S.bytes("sparse.idx") + b"\x00" * 16))
    idx("size-field-huge", "hugenum", Gen(lambda S: S.bytes("sparse.idx")[:12] + struct.pack("<Q", 1 << 62) +
                                          S.bytes("sparse.idx")[20:]))
    idx("version-2", "structure", Gen(lambda S: fix_crc(S.bytes("sparse.idx")[:8] + struct.pack("<I", 2) +
                                                        S.bytes("sparse.idx")[12:])))

    def poke(fmt, field, value):
        def fn(data, layout):
            offset = field(layout) if callable(field) else field
            struct.pack_into(fmt, data, offset, value)
        return fn

    idx("bad-sizes.term-count-huge", "hugenum", sparse_edit(poke("<Q", 60, 1 << 40)))
    idx("bad-sizes.term-count-plus-one", "structure", sparse_edit(lambda d, l: struct.pack_into("<Q", d, 60, l["terms"] + 1)))
    idx("bad-sizes.term-bytes-huge", "hugenum", sparse_edit(poke("<Q", 68, (1 << 64) - 2)))
    idx("bad-sizes.posting-count-huge", "hugenum", sparse_edit(poke("<Q", lambda l: l["postings_at"], 1 << 61)))
    idx("bad-sizes.posting-offset-past-end", "structure",
        sparse_edit(lambda d, l: struct.pack_into("<Q", d, l["offsets"] + 8 * 3, 1 << 40)))
    idx("bad-sizes.posting-offsets-decreasing", "structure",
        sparse_edit(lambda d, l: struct.pack_into("<Q", d, l["offsets"] + 8 * l["terms"], 0)))
    idx("bad-sizes.term-end-past-bytes", "structure",
        sparse_edit(lambda d, l: struct.pack_into("<I", d, l["ends"], 0xFFFFFFF0)))
    idx("bad-sizes.posting-entry-out-of-range", "structure",
        sparse_edit(lambda d, l: struct.pack_into("<I", d, l["entries"], 0x7FFFFFFF)))
    idx("nan.idf", "nan", sparse_edit(lambda d, l: struct.pack_into("<d", d, l["idf"], float("nan"))))
    idx("nan.weight", "nan", sparse_edit(lambda d, l: struct.pack_into("<f", d, l["weights"], float("inf"))))
    add("eval.index.other-dictionary", "structure", "eval", iargv,
        dict(base, **{"kb.txt": b"\n".join(lines_of(KB)[:-2]) + b"\n", "sparse.idx": Link("sparse.idx")}),
        names=("sparse.idx",))

    # an approximate sparse index (version 2: rows and the 3-gram stage, read from the mapped file)
    aargv = argv + ["--sparse-search", "approximate", "--index", "approximate.idx"]
    ref("eval-index-approximate", "eval", aargv, dict(base, **{"approximate.idx": Link("approximate.idx")}))

    def aidx(name, kind, data, **kw):
        add("eval.index-approximate." + name, kind, "eval", aargv, dict(base, **{"approximate.idx": data}),
            names=("approximate.idx",), **kw)

    aidx("truncated-50", "truncation",
         Gen(lambda S: S.bytes("approximate.idx")[:len(S.bytes("approximate.idx")) // 2]))
    aidx("flipped", "byteflip", Gen(lambda S: S.bytes("approximate.idx")[:300] +
                                    bytes([S.bytes("approximate.idx")[300] ^ 0x10]) + S.bytes("approximate.idx")[301:]))
    aidx("row-width-3", "structure", approximate_edit(lambda d, l: struct.pack_into("<I", d, 76, 3)))
    aidx("row-count-huge", "hugenum", approximate_edit(lambda d, l: struct.pack_into("<Q", d, l["row_count"], 1 << 61)))
    aidx("3-gram-count-huge", "hugenum",
         approximate_edit(lambda d, l: struct.pack_into("<Q", d, l["trigrams"], 1 << 40)))
    aidx("row-term-out-of-range", "structure",
         approximate_edit(lambda d, l: struct.pack_into("<I", d, l["row_terms"], 0xFFFFFFFF)))
    aidx("3-gram-entry-out-of-range", "structure",
         approximate_edit(lambda d, l: struct.pack_into("<I", d, l["trigram_entries"], 0x7FFFFFFF)))
    aidx("hashed-entry-out-of-range", "structure",
         approximate_edit(lambda d, l: struct.pack_into("<I", d, l["hashed_entries"], 0x7FFFFFFF)))

    # dense index (--method dense with the demo encoder)
    dargv = argv + ["--method", "dense", "--model", "model", "--dense-index", "dense.idx"]
    dbase = dict(base, model=Tree("model"))
    ref("eval-dense", "eval", dargv, dict(dbase, **{"dense.idx": Link("dense.idx")}))

    def dense(name, kind, data, **kw):
        add("eval.dense-index." + name, kind, "eval", dargv, dict(dbase, **{"dense.idx": data}), names=("dense.idx",), **kw)

    dense("random-bytes", "structure", bytes(random.Random(6).randrange(256) for _ in range(4000)))
    add("eval.dense-model.overflowing-forward-pass", "nan", "eval", argv + ["--method", "dense", "--model", "model"],
        dict(dbase, **{"model/model.safetensors": Gen(overflowing_model)}), names=("the model in model",))
    dense("directory", "directory", Dir())
    dense("truncated-header", "truncation", b"LSDENSE1\x01\x00")
    dense("truncated-half", "truncation", Gen(lambda S: S.bytes("dense.idx")[:len(S.bytes("dense.idx")) // 2]))
    dense("flipped-payload", "byteflip", Gen(lambda S: S.bytes("dense.idx")[:300] + bytes([S.bytes("dense.idx")[300] ^ 1]) +
                                              S.bytes("dense.idx")[301:]))
    dense("fingerprint-size-huge", "hugenum", dense_edit(lambda d: struct.pack_into("<Q", d, 29, 1 << 50), fix=False))
    dense("kind-unknown", "structure", dense_edit(lambda d: struct.pack_into("<B", d, 12, 9)))
    dense("dimension-zero", "structure", dense_edit(lambda d: struct.pack_into("<Q", d, 13, 0)))
    dense("count-huge", "hugenum", dense_edit(lambda d: struct.pack_into("<Q", d, 21, 1 << 40)))

    def faiss_edit(d, field, value, fmt="<q"):
        fp = struct.unpack_from("<Q", d, 29)[0]
        at = 37 + fp
        # FAISS IndexFlatIP: fourcc, i32 d, i64 ntotal, i64 dummy, i64 dummy, u8 is_trained, i32 metric,
        # then the vector of codes (u64 size + bytes).
        offsets = {"ntotal": at + 8, "d": at + 4, "codes": at + 4 + 4 + 8 + 8 + 8 + 1 + 4}
        struct.pack_into(fmt, d, offsets[field], value)

    dense("faiss.ntotal-huge", "hugenum", dense_edit(lambda d: faiss_edit(d, "ntotal", 1 << 50)))
    dense("faiss.codes-size-huge", "hugenum", dense_edit(lambda d: faiss_edit(d, "codes", 1 << 60, "<Q")))
    dense("faiss.dimension-negative", "structure", dense_edit(lambda d: faiss_edit(d, "d", -7, "<i")))
    dense("other-model", "structure", dense_edit(lambda d: d.__setitem__(slice(37, 41), b"XXXX")))

    # a run, its kNN datastore, a damaged run.json / preset.json
    kargv = argv + ["--run", "run", "--knn", "--datastore", "ds.bin"]
    kbase = dict(base, run=Tree("run"))
    ref("eval-knn", "eval", kargv, dict(kbase, **{"ds.bin": Link("datastore.bin")}))

    def ds(name, kind, data, **kw):
        add("eval.datastore." + name, kind, "eval", kargv, dict(kbase, **{"ds.bin": data}), names=("ds.bin",), **kw)

    ds("empty", "empty", b"")
    ds("directory", "directory", Dir())
    ds("random-bytes", "structure", bytes(random.Random(8).randrange(256) for _ in range(3000)))
    ds("truncated", "truncation", Gen(lambda S: S.bytes("datastore.bin")[:len(S.bytes("datastore.bin")) * 2 // 3]))
    ds("flipped", "byteflip", Gen(lambda S: S.bytes("datastore.bin")[:100] + bytes([S.bytes("datastore.bin")[100] ^ 4]) +
                                  S.bytes("datastore.bin")[101:]))
    ds("bad-sizes.dimension-huge", "hugenum", datastore_edit(lambda d, l: struct.pack_into("<Q", d, 20, 1 << 30)))
    ds("bad-sizes.dimension-zero", "structure", datastore_edit(lambda d, l: struct.pack_into("<Q", d, 20, 0)))
    ds("bad-sizes.entity-count-huge", "hugenum",
       datastore_edit(lambda d, l: struct.pack_into("<Q", d, l["entity_count_at"], 1 << 31)))
    ds("bad-sizes.key-count-huge", "hugenum",
       datastore_edit(lambda d, l: struct.pack_into("<Q", d, l["key_count_at"], 1 << 61)))
    ds("nan.vector", "nan", datastore_edit(lambda d, l: struct.pack_into("<f", d, l["vectors"], float("nan"))))
    ds("non-unit-vector", "structure",
       datastore_edit(lambda d, l: struct.pack_into("<f", d, l["vectors"], 40.0)))
    ds("other-encoder", "structure", datastore_edit(lambda d, l: d.__setitem__(slice(36, 40), b"XXXX")))

    def run(name, kind, files, names, **kw):
        add("eval.run." + name, kind, "eval", argv + ["--run", "run"], dict(base, run=Tree("run"), **files),
            names=names, **kw)

    pretty_run = jdump(RUN_INFO)
    run("run-json.deep", "deepjson", {"run/run.json": deep_array()}, ("run.json",))
    run("run-json.deep-object", "deepjson", {"run/run.json": deep_object()}, ("run.json",))
    run("run-json.truncated", "truncation", {"run/run.json": pretty_run[:60]}, ("run.json",),
        line=json_lines_count(pretty_run[:60]))
    run("run-json.wrong-type", "structure", {"run/run.json": jdump(dict(RUN_INFO, best_epoch="one"))}, ("run.json",))
    run("run-json.huge-number", "hugenum", {"run/run.json": jdump(RUN_INFO).replace(b'"best_epoch": 1', b'"best_epoch": 1e400')},
        ("run.json",))
    run("run-json.negative", "hugenum", {"run/run.json": jdump(dict(RUN_INFO, epochs_done=-3))}, ("run.json",))
    run("run-json.fractional", "hugenum", {"run/run.json": jdump(dict(RUN_INFO, best_epoch=1.5))}, ("run.json",))
    run("run-json.empty", "empty", {"run/run.json": b""}, ("run.json",))
    run("run-json.directory", "directory", {"run/run.json": Dir()}, ("run.json",))
    run("run-json.utf8", "utf8", {"run/run.json": pretty_run.replace(b'"cpu"', b'"cp\xff"')}, ("run.json",),
        line=pretty_run[:pretty_run.index(b'"cpu"')].count(b"\n") + 1)
    run("run-json.bomb", "gzipbomb", {"run/run.json": Link("endless.gz")}, ("run.json",))
    run("run-json.lineend-crlf-bom", "lineend", {"run/run.json": bom(crlf(pretty_run))}, (), expect="ok",
        check=json_check)
    run("preset-json.deep", "deepjson", {"run/preset.json": deep_array()}, ("preset.json",))
    run("preset-json.truncated", "truncation", {"run/preset.json": Gen(lambda S: (MODELS / "triplet.json").read_bytes()[:300])},
        ("preset.json",), line=json_lines_count((MODELS / "triplet.json").read_bytes()[:300]))
    run("preset-json.unknown-method", "structure",
        {"run/preset.json": Gen(lambda S: jdump(dict(json.loads((MODELS / "triplet.json").read_bytes()), method="alchemy")))},
        ("preset.json",))
    run("preset-json.missing", "missing", {"run/preset.json": None}, ("preset.json", "run"))
    run("model.missing", "missing", {"run/model": None}, ("model", "run"))
    run("model.config-deep", "deepjson", {"run/model/config.json": deep_array()}, ("config.json",))

    # a project file next to the run (eval --project)
    pargv = argv + ["--run", "run", "--knn", "--project", "p.linkscope"]
    add("eval.project.not-sqlite", "structure", "eval", pargv, dict(kbase, **{"p.linkscope": b"SQLite format 3\x00" + b"\x01" * 3000}),
        names=("p.linkscope",))
    add("eval.project.empty", "empty", "eval", pargv, dict(kbase, **{"p.linkscope": b""}), names=("p.linkscope",))
    ref("eval-knn-project", "eval", pargv, dict(kbase, **{"p.linkscope": Link("knn.linkscope")}))
    add("eval.project.datastore-blob-flipped", "byteflip", "eval", pargv,
        dict(kbase, **{"p.linkscope": Gen(lambda S: edited_project(S, "knn.linkscope",
             "UPDATE blobs SET data = ? WHERE name LIKE 'knn-datastore/%'",
             blob_edit=lambda d: d[:200] + bytes([d[200] ^ 0xFF]) + d[201:]))}),
        names=("p.linkscope",))
    add("eval.project.datastore-blob-truncated", "truncation", "eval", pargv,
        dict(kbase, **{"p.linkscope": Gen(lambda S: edited_project(S, "knn.linkscope",
             "UPDATE blobs SET data = substr(data, 1, 100) WHERE name LIKE 'knn-datastore/%'"))}),
        names=("p.linkscope",))
    add("eval.project.datastore-blob-huge-dimension", "hugenum", "eval", pargv,
        dict(kbase, **{"p.linkscope": Gen(lambda S: edited_project(S, "knn.linkscope",
             "UPDATE blobs SET data = ? WHERE name LIKE 'knn-datastore/%'", blob_edit=datastore_dimension_huge))}),
        names=("p.linkscope",))


def project_bytes(S, **kw):
    """A project file made by make_project() with these arguments, as bytes."""
    fd, path = tempfile.mkstemp(suffix=".linkscope", dir=S.root)
    os.close(fd)
    try:
        make_project(path, **kw)
        with open(path, "rb") as f:
            return f.read()
    finally:
        for suffix in ("", "-wal", "-shm", "-journal"):
            if os.path.exists(path + suffix):
                os.unlink(path + suffix)


def datastore_dimension_huge(data):
    data = bytearray(data)
    struct.pack_into("<Q", data, 20, 1 << 30)
    return fix_crc(bytes(data))


def edited_project(S, seed, sql, blob_edit=None):
    """The seed project with one SQL statement applied (blob_edit(old blob) gives its parameter)."""
    fd, path = tempfile.mkstemp(suffix=".linkscope", dir=S.root)
    os.close(fd)
    try:
        shutil.copyfile(S.path(seed), path)
        db = sqlite3.connect(path)
        if blob_edit:
            old = db.execute("SELECT data FROM blobs WHERE name LIKE 'knn-datastore/%'").fetchone()[0]
            db.execute(sql, (blob_edit(bytes(old)),))
        else:
            db.execute(sql)
        db.commit()
        db.close()
        with open(path, "rb") as f:
            return f.read()
    finally:
        for suffix in ("", "-wal", "-shm", "-journal"):
            if os.path.exists(path + suffix):
                os.unlink(path + suffix)


def compare_cases():
    argv = ["compare", "a.jsonl", "b.jsonl", "--json"]
    ref("compare", "compare", argv, {"a.jsonl": Link("a.jsonl"), "b.jsonl": Link("b.jsonl")})

    def cmp(name, kind, fn, line=None, expect="error", **kw):
        add("compare." + name, kind, "compare", argv, {"a.jsonl": Gen(fn), "b.jsonl": Link("b.jsonl")},
            names=kw.pop("names", ("a.jsonl",)), line=line, expect=expect, **kw)

    A = lambda S: S.bytes("a.jsonl")
    for name, t in [("lineend.bom", bom), ("lineend.crlf", crlf), ("lineend.cr", cr_only),
                    ("lineend.no-final-newline", lambda d: d.rstrip(b"\n")), ("gzip.plain", gz)]:
        cmp(name, name.split(".")[0], lambda S, t=t: t(A(S)), expect="clean", ref="compare")
    # a cut inside line k is a JSON error at line k; a cut at a line end leaves fewer mentions than b
    for k, frac in [(1, 0.1), (1, 0.9), (4, 0.5), (9, 0.02), (15, 0.7)]:
        def cut(S, k=k, frac=frac):
            data = A(S)
            start = sum(len(l) + 1 for l in lines_of(data)[:k - 1])
            return data[:start + max(1, int(len(lines_of(data)[k - 1]) * frac))]
        cmp("truncate.line%d-%d" % (k, int(frac * 100)), "truncation", cut, line=k)
    cmp("truncate.line-end", "truncation", lambda S: b"\n".join(lines_of(A(S))[:7]) + b"\n", names=("a.jsonl", "b.jsonl"))
    for seed in range(5):
        cmp("flip.%d" % seed, "byteflip", lambda S, s=seed: flip(A(S), 500 + s, 1), expect="either",
            names=("a.jsonl", "b.jsonl"), check=json_check, full=seed >= 2)

    def edit(line_no, fn):
        def make(S):
            data = A(S)
            lines = lines_of(data)
            obj = json.loads(lines[line_no - 1])
            lines[line_no - 1] = fn(obj) if callable(fn) else fn
            if isinstance(lines[line_no - 1], dict):
                lines[line_no - 1] = json.dumps(lines[line_no - 1]).encode()
            return b"\n".join(lines)
        return make

    cmp("deepjson.array", "deepjson", edit(3, deep_array()), line=3)
    cmp("deepjson.object", "deepjson", edit(3, deep_object()), line=3)
    cmp("deepjson.unclosed", "deepjson", edit(3, b"[" * DEEP), line=3)
    cmp("deepjson.in-field", "deepjson", edit(3, lambda o: json.dumps(o)[:-1].encode() + b', "x": ' + deep_array() + b"}"),
        line=3)
    cmp("hugenum.start", "hugenum", edit(2, lambda o: json.dumps(o).replace('"start": %d' % o["start"], '"start": 1e30', 1).encode()),
        line=2)
    cmp("hugenum.rank", "hugenum", edit(2, lambda o: json.dumps(o).replace('"rank": %d' % o["rank"], '"rank": 99999999999999999999999', 1).encode()),
        line=2)
    cmp("offsets.negative", "offsets", edit(5, lambda o: dict(o, start=-4)), line=5)
    cmp("offsets.fractional", "offsets", edit(5, lambda o: dict(o, end=o["end"] + 0.5)), line=5)
    cmp("offsets.reversed", "offsets", edit(5, lambda o: dict(o, start=o["end"], end=o["start"])), line=5)
    cmp("nan-literal", "nan", edit(6, lambda o: json.dumps(o).replace('"rank": %d' % o["rank"], '"rank": NaN', 1).encode()),
        line=6)
    cmp("wrong-type", "structure", edit(6, lambda o: dict(o, rank=str(o["rank"]))), line=6)
    cmp("not-an-object", "structure", edit(2, b"[1, 2, 3]"), line=2)
    cmp("nul", "nul", edit(4, lambda o: json.dumps(o).encode().replace(b'"document"', b'"docu\x00ment"')), line=4)
    cmp("utf8", "utf8", edit(4, lambda o: json.dumps(o).encode().replace(b'"document"', b'"docu\xffment"')), line=4)
    cmp("overlong", "overlong", edit(2, lambda o: b"{" + b" " * OVERLONG + b"}"), line=2)
    cmp("empty", "empty", lambda S: b"")
    cmp("gzip.bomb-endless-line", "gzipbomb", lambda S: S.bytes("endless.gz"), line=1)
    # A bootstrap count that no memory holds: a plain error naming the option, not std::bad_alloc.
    add("eval.k-1e12", "hugenum", "eval", ["eval"] + DICT_ARGS + ["--method", "sparse", "--k", "1000000000000"],
        {"train.txt": TRAIN, "test.txt": TEST, "kb.txt": KB}, names=("--k",))
    add("compare.resamples-1e12", "hugenum", "compare", argv + ["--resamples", "1000000000000"],
        {"a.jsonl": Link("a.jsonl"), "b.jsonl": Link("b.jsonl")}, names=("--resamples",))
    add("compare.directory", "directory", "compare", argv, {"a.jsonl": Dir(), "b.jsonl": Link("b.jsonl")}, names=("a.jsonl",))
    add("compare.missing", "missing", "compare", argv, {"b.jsonl": Link("b.jsonl")}, names=("a.jsonl",))
    add("compare.symlink-loop", "symlink", "compare", argv, {"a.jsonl": Link("a.jsonl"), "b.jsonl": Sym("b.jsonl")},
        names=("b.jsonl",))


def model_cases():
    """tokenize (tokenizer files, stdin) and encode (config.json, model.safetensors, stdin)."""
    targv = ["tokenize", "--model", "model"]
    ref("tokenize", "tokenize", targv, {"model": Tree("model")}, stdin=STDIN_TEXT)

    def tok(name, kind, files, names, stdin=STDIN_TEXT, **kw):
        add("tokenize." + name, kind, "tokenize", targv, dict({"model": Tree("model")}, **files), names=names,
            stdin=stdin, **kw)

    V = lambda S: S.bytes("model/vocab.txt")
    for name, t in [("lineend.bom", bom), ("lineend.crlf", crlf), ("lineend.cr", cr_only), ("gzip.plain", gz),
                    ("lineend.no-final-newline", lambda d: d.rstrip(b"\n"))]:
        tok("vocab." + name, name.split(".")[0], {"model/vocab.txt": Gen(lambda S, t=t: t(V(S)))}, ("vocab.txt",),
            expect="clean", ref="tokenize")
    tok("vocab.empty", "empty", {"model/vocab.txt": b""}, ("vocab.txt",))
    tok("vocab.utf8", "utf8", {"model/vocab.txt": Gen(lambda S: set_line(V(S), 7, lines_of(V(S))[6] + b"\xff"))},
        ("vocab.txt",), line=7)
    tok("vocab.missing", "missing", {"model/vocab.txt": None}, ("vocab.txt", "model"))
    tok("vocab.directory", "directory", {"model/vocab.txt": Dir()}, ("vocab.txt",))
    tok("vocab.symlink-loop", "symlink", {"model/vocab.txt": Sym("vocab.txt")}, ("vocab.txt",))
    tok("vocab.bomb", "gzipbomb", {"model/vocab.txt": Link("endless.gz")}, ("vocab.txt",), line=1)
    tok("vocab.overlong-token-appended", "overlong", {"model/vocab.txt": Gen(lambda S: V(S) + b"x" * OVERLONG + b"\n")},
        ("vocab.txt",), expect="either", ref="tokenize")
    tok("vocab.truncated-in-specials", "truncation", {"model/vocab.txt": Gen(lambda S: V(S)[:14])}, ("vocab.txt",))
    tok("vocab.nul", "nul", {"model/vocab.txt": Gen(lambda S: set_line(V(S), 2, b"[UNK\x00]"))}, ("vocab.txt",),
        expect="either")
    TC = lambda S: S.bytes("model/tokenizer_config.json")
    tok("tokenizer-config.deep", "deepjson", {"model/tokenizer_config.json": deep_array()}, ("tokenizer_config.json",))
    tok("tokenizer-config.deep-object", "deepjson", {"model/tokenizer_config.json": deep_object()},
        ("tokenizer_config.json",))
    tok("tokenizer-config.truncated", "truncation", {"model/tokenizer_config.json": Gen(lambda S: TC(S)[:200])},
        ("tokenizer_config.json",), line=Gen(lambda S: json_lines_count(TC(S)[:200])))
    tok("tokenizer-config.lineend-bom-crlf", "lineend", {"model/tokenizer_config.json": Gen(lambda S: bom(crlf(TC(S))))},
        ("tokenizer_config.json",), expect="clean", ref="tokenize")
    tok("tokenizer-config.lower-case-string", "structure",
        {"model/tokenizer_config.json": Gen(lambda S: jdump(dict(json.loads(TC(S)), do_lower_case="yes")))},
        ("tokenizer_config.json",))
    tok("tokenizer-config.max-length-1e30", "hugenum",
        {"model/tokenizer_config.json": Gen(lambda S: jdump(dict(json.loads(TC(S)), model_max_length=int(1e30))))},
        ("tokenizer_config.json",), expect="clean", ref="tokenize")
    tok("tokenizer-config.max-length-negative", "hugenum",
        {"model/tokenizer_config.json": Gen(lambda S: jdump(dict(json.loads(TC(S)), model_max_length=-1)))},
        ("tokenizer_config.json",))
    tok("tokenizer-config.max-length-fractional", "hugenum",
        {"model/tokenizer_config.json": Gen(lambda S: jdump(dict(json.loads(TC(S)), model_max_length=12.5)))},
        ("tokenizer_config.json",), expect="clean", ref="tokenize")
    tok("tokenizer-config.added-id-huge", "hugenum",
        {"model/tokenizer_config.json": Gen(lambda S: TC(S).replace(b'"4": {', b'"99999999999999999999999": {'))},
        ("tokenizer_config.json",))
    tok("tokenizer-config.bomb", "gzipbomb", {"model/tokenizer_config.json": Link("endless.gz")},
        ("tokenizer_config.json",))
    tok("special-tokens.deep", "deepjson", {"model/special_tokens_map.json": deep_array()}, ("special_tokens_map.json",))
    tok("special-tokens.unk-not-string", "structure",
        {"model/special_tokens_map.json": jdump({"unk_token": {"content": 5}, "cls_token": "[CLS]"})},
        ("special_tokens_map.json",))
    tok("added-tokens.deep", "deepjson", {"model/added_tokens.json": deep_array()}, ("added_tokens.json",))
    tok("added-tokens.id-huge", "hugenum", {"model/added_tokens.json": b'{"[X]": 1e30}\n'}, ("added_tokens.json",))
    tok("added-tokens.id-negative", "hugenum", {"model/added_tokens.json": b'{"[X]": -1}\n'}, ("added_tokens.json",))
    tok("added-tokens.id-taken", "structure", {"model/added_tokens.json": b'{"[X]": 5}\n'}, ("added_tokens.json",))
    tok("added-tokens.truncated", "truncation", {"model/added_tokens.json": b'{"[X]": 3'}, ("added_tokens.json",), line=1)
    # standard input
    tok("stdin.utf8", "utf8", {}, ("<stdin>",), stdin=b"Huntington disease\nH\xe9\nok\n", line=2)
    tok("stdin.overlong", "overlong", {}, ("<stdin>",), stdin=Gen(lambda S: b"ok\n" + b"x" * (3 << 20) + b"\n"), line=2)
    tok("stdin.overlong-no-newline", "overlong", {}, ("<stdin>",), stdin=Gen(lambda S: b"y" * (3 << 20)), line=1)
    tok("stdin.crlf", "lineend", {}, ("<stdin>",), stdin=crlf(STDIN_TEXT), expect="clean", ref="tokenize")
    tok("stdin.bom", "lineend", {}, ("<stdin>",), stdin=bom(STDIN_TEXT), expect="clean", ref="tokenize")
    tok("stdin.nul", "nul", {}, ("<stdin>",), stdin=b"Hunting\x00ton\n", expect="either", line=1)
    tok("stdin.empty", "empty", {}, ("<stdin>",), stdin=b"", expect="ok",
        check=lambda out, work: None if out == b"" else "output for empty input")
    tok("model.is-file", "directory", {"model": b"not a folder\n"}, ("model",))
    tok("model.missing", "missing", {"model": None}, ("model",))
    tok("model.empty-folder", "empty", {"model": Dir()}, ("model", "vocab.txt"))

    eargv = ["encode", "--model", "model"]
    ref("encode", "encode", eargv, {"model": Tree("model")}, stdin=STDIN_TEXT)

    def enc(name, kind, files, names, stdin=STDIN_TEXT, **kw):
        add("encode." + name, kind, "encode", eargv, dict({"model": Tree("model")}, **files), names=names,
            stdin=stdin, **kw)

    C = lambda S: S.json("model/config.json")

    def cfg(**changes):
        return Gen(lambda S: jdump(dict(C(S), **changes)))

    def cfg_raw(key, raw):
        return Gen(lambda S: jdump(dict(C(S), **{key: 12345678})).replace(b"12345678", raw))

    enc("config.vocab-size-1e9", "hugenum", {"model/config.json": cfg(vocab_size=10 ** 9)},
        ("config.json", "model.safetensors"))
    enc("config.vocab-size-plus-one", "structure", {"model/config.json": Gen(lambda S: jdump(dict(C(S), vocab_size=C(S)["vocab_size"] + 1)))},
        ("config.json", "model.safetensors"))
    enc("config.hidden-size-1e9", "hugenum", {"model/config.json": cfg(hidden_size=10 ** 9)},
        ("config.json", "model.safetensors"))
    enc("config.layers-1e6", "hugenum", {"model/config.json": cfg(num_hidden_layers=10 ** 6)},
        ("config.json", "model.safetensors"))
    enc("config.positions-1e12", "hugenum", {"model/config.json": cfg(max_position_embeddings=10 ** 12)},
        ("config.json", "model.safetensors"))
    enc("config.intermediate-1e12", "hugenum", {"model/config.json": cfg(intermediate_size=10 ** 12)},
        ("config.json", "model.safetensors"))
    enc("config.vocab-size-2e64", "hugenum", {"model/config.json": cfg_raw("vocab_size", b"36893488147419103232")},
        ("config.json",))
    enc("config.vocab-size-1e400", "hugenum", {"model/config.json": cfg_raw("vocab_size", b"1e400")}, ("config.json",))
    enc("config.vocab-size-negative", "hugenum", {"model/config.json": cfg(vocab_size=-5)}, ("config.json",))
    enc("config.hidden-size-fractional", "hugenum", {"model/config.json": cfg(hidden_size=256.5)}, ("config.json",))
    enc("config.heads-zero", "structure", {"model/config.json": cfg(num_attention_heads=0)}, ("config.json",))
    enc("config.heads-not-dividing", "structure", {"model/config.json": cfg(num_attention_heads=3)}, ("config.json",))
    enc("config.hidden-size-string", "structure", {"model/config.json": cfg(hidden_size="256")}, ("config.json",))
    enc("config.layer-norm-eps-nan", "nan", {"model/config.json": cfg_raw("layer_norm_eps", b"NaN")}, ("config.json",),
        line="any")
    enc("config.pad-token-huge", "hugenum", {"model/config.json": cfg(pad_token_id=10 ** 12)}, ("config.json",))
    enc("config.type-vocab-zero", "structure", {"model/config.json": cfg(type_vocab_size=0)}, ("config.json",
                                                                                               "model.safetensors"))
    enc("config.deep", "deepjson", {"model/config.json": deep_array()}, ("config.json",))
    enc("config.deep-object", "deepjson", {"model/config.json": deep_object()}, ("config.json",))
    enc("config.deep-unclosed", "deepjson", {"model/config.json": b"[" * DEEP}, ("config.json",))
    in_field = lambda S: jdump(dict(C(S), architectures=1234567))
    enc("config.deep-in-field", "deepjson",
        {"model/config.json": Gen(lambda S: in_field(S).replace(b"1234567", deep_array()))}, ("config.json",),
        line=Gen(lambda S: in_field(S)[:in_field(S).index(b"1234567")].count(b"\n") + 1))
    enc("config.truncated", "truncation", {"model/config.json": Gen(lambda S: S.bytes("model/config.json")[:150])},
        ("config.json",), line=Gen(lambda S: json_lines_count(S.bytes("model/config.json")[:150])))
    enc("config.lineend-bom-crlf", "lineend", {"model/config.json": Gen(lambda S: bom(crlf(S.bytes("model/config.json"))))},
        ("config.json",), expect="clean", ref="encode")
    enc("config.lineend-cr", "lineend", {"model/config.json": Gen(lambda S: cr_only(S.bytes("model/config.json")))},
        ("config.json",), expect="clean", ref="encode")
    enc("config.empty", "empty", {"model/config.json": b""}, ("config.json",))
    enc("config.not-object", "structure", {"model/config.json": b"[1, 2]\n"}, ("config.json",))
    enc("config.bomb", "gzipbomb", {"model/config.json": Link("endless.gz")}, ("config.json",))
    # An XLM-R folder (no vocab.txt: sentencepiece.bpe.model is read) whose model is not one.
    xlmr = lambda data: {"model/vocab.txt": None, "model/sentencepiece.bpe.model": data,
                         "model/config.json": cfg(model_type="xlm-roberta")}
    enc("sentencepiece.garbage", "structure", xlmr(b"not a SentencePiece model\n" * 8), ("sentencepiece.bpe.model",))
    enc("sentencepiece.empty", "empty", xlmr(b""), ("sentencepiece.bpe.model",))
    enc("sentencepiece.vocab-text", "structure", xlmr(Gen(lambda S: S.bytes("model/vocab.txt"))),
        ("sentencepiece.bpe.model",))
    # model.safetensors
    W = lambda S: S.bytes("model/model.safetensors")

    def st(name, kind, data, **kw):
        enc("safetensors." + name, kind, {"model/model.safetensors": data}, ("model.safetensors",), **kw)

    st("empty", "empty", b"")
    st("header-length-huge", "hugenum", Gen(lambda S: struct.pack("<Q", (1 << 63) - 1) + W(S)[8:]))
    st("header-length-past-file", "hugenum", Gen(lambda S: struct.pack("<Q", len(W(S)) + 100) + W(S)[8:]))
    st("header-length-zero", "structure", Gen(lambda S: struct.pack("<Q", 0) + W(S)[8:]))
    st("header-deep", "deepjson", Gen(lambda S: st_join(None, st_split(W(S))[1],
                                                        raw_header=b'{"__metadata__": ' + deep_array() + b"}")))
    st("header-deep-object", "deepjson", Gen(lambda S: st_join(None, st_split(W(S))[1], raw_header=deep_object())))
    st("header-not-object", "structure", Gen(lambda S: st_join(None, st_split(W(S))[1], raw_header=b"[1,2,3]")))
    st("header-invalid-json", "structure", Gen(lambda S: st_join(None, st_split(W(S))[1], raw_header=b'{"a": ')))
    st("header-utf8", "utf8", Gen(lambda S: st_join(None, st_split(W(S))[1],
                                                     raw_header=json.dumps(st_split(W(S))[0]).encode().replace(b'"F32"', b'"F\xff2"', 1))))

    def tensor_change(key, value):
        def fn(h, b):
            name, info = st_first_tensor(h)
            info[key] = value
            return h, b
        return fn

    st("dtype-unknown", "structure", st_edit(tensor_change("dtype", "F128")))
    st("dtype-mismatch", "structure", st_edit(tensor_change("dtype", "F16")))
    st("shape-negative", "structure", st_edit(tensor_change("shape", [-1, 256])))
    st("shape-overflow", "hugenum", st_edit(tensor_change("shape", [1 << 40, 1 << 40])))
    st("shape-huge-dims", "hugenum", st_edit(tensor_change("shape", [1 << 62, 4])))
    st("offsets-past-file", "hugenum", st_edit(tensor_change("data_offsets", [0, 1 << 60])))
    def reverse_offsets(h, b):
        st_first_tensor(h)[1]["data_offsets"].reverse()
        return h, b

    st("offsets-reversed", "structure", st_edit(reverse_offsets))

    def overlap(h, b):
        ordered = sorted((i["data_offsets"][0], n) for n, i in h.items() if n != "__metadata__")
        first, second = ordered[0][1], ordered[1][1]
        size = h[second]["data_offsets"][1] - h[second]["data_offsets"][0]
        h[second]["data_offsets"] = [0, size]
        return h, b

    st("offsets-overlapping", "structure", st_edit(overlap))
    st("tensor-missing", "structure",
       st_edit(lambda h, b: ({("renamed.weight" if n.startswith("embeddings.word_embeddings") else n): v for n, v in h.items()}, b)))
    st("nan.weight", "nan", st_edit(lambda h, b: st_poke_float(h, b, "embeddings.word_embeddings", float("nan"))))
    st("nan.layer-norm-inf", "nan", st_edit(lambda h, b: st_poke_float(h, b, "embeddings.LayerNorm", float("inf"))))
    # Finite weights too large for a forward pass: refused on load, naming the tensor.
    for label, tensor, value in [("query-3e38", "encoder.layer.0.attention.self.query.weight", 3e38),
                                 ("layer-norm-1e30", "embeddings.LayerNorm.weight", -1e30),
                                 ("embedding-1e25", "embeddings.word_embeddings.weight", 1e25)]:
        enc("safetensors.huge-weight." + label, "hugenum",
            {"model/model.safetensors": st_edit(lambda h, b, t=tensor, v=value: st_poke_float(h, b, t, v))}, (tensor,))
    # Weights within that bound that still overflow: the vectors are refused, naming the model.
    enc("safetensors.overflowing-forward-pass", "nan", {"model/model.safetensors": Gen(overflowing_model)},
        ("the model in model",))
    for frac in (1, 50, 99):
        st("truncated-%d" % frac, "truncation", Gen(lambda S, f=frac: W(S)[:max(4, len(W(S)) * f // 100)]))
    st("directory", "directory", Dir())
    st("missing", "missing", None)
    st("random-bytes", "structure", bytes(random.Random(9).randrange(256) for _ in range(4096)))
    enc("special-tokens.unk-not-in-vocab", "structure",
        {"model/special_tokens_map.json": jdump({"unk_token": "[NOPE]", "cls_token": "[CLS]", "sep_token": "[SEP]",
                                                 "pad_token": "[PAD]", "mask_token": "[MASK]"})},
        ("special_tokens_map.json", "config.json", "model.safetensors"))
    enc("stdin.utf8", "utf8", {}, ("<stdin>",), stdin=b"ok\nbad \xc0\xaf\n", line=2)
    enc("stdin.empty", "empty", {}, ("<stdin>",), stdin=b"", expect="ok",
        check=lambda out, work: None if out == b"" else "output for empty input")


def init_model_cases():
    argv = ["init-model", "--preset", "preset.json", "--kb", "kb.txt", "--corpus", "train.txt", "--out", "out"]
    P = json.loads((MODELS / "compact-encoder.json").read_text())
    PRESET = jdump(P)
    base = {"preset.json": PRESET, "kb.txt": KB, "train.txt": TRAIN}
    written = ("out/config.json", "out/vocab.txt", "out/tokenizer_config.json", "out/model.safetensors")
    ref("init-model", "init-model", argv, base, outputs=written)

    def im(name, kind, files, names=("preset.json",), **kw):
        add("init-model." + name, kind, "init-model", kw.pop("argv", argv), dict(base, **files), names=names, **kw)

    def preset(**config):
        p = json.loads(PRESET)
        p["config"].update(config)
        return jdump(p)

    im("preset.lineend-bom-crlf", "lineend", {"preset.json": bom(crlf(PRESET))}, expect="clean", ref="init-model",
       outputs=written)
    im("preset.lineend-cr", "lineend", {"preset.json": cr_only(PRESET)}, expect="clean", ref="init-model",
       outputs=written)
    im("preset.deep", "deepjson", {"preset.json": deep_array()})
    im("preset.deep-object", "deepjson", {"preset.json": deep_object()})
    im("preset.truncated", "truncation", {"preset.json": PRESET[:400]}, line=json_lines_count(PRESET[:400]))
    im("preset.hidden-1e9", "hugenum", {"preset.json": preset(hidden_size=10 ** 9)})
    im("preset.layers-1e7", "hugenum", {"preset.json": preset(num_hidden_layers=10 ** 7)})
    im("preset.intermediate-1e12", "hugenum", {"preset.json": preset(intermediate_size=10 ** 12)})
    im("preset.positions-1e12", "hugenum", {"preset.json": preset(max_position_embeddings=10 ** 12)})
    im("preset.hidden-negative", "hugenum", {"preset.json": preset(hidden_size=-256)})
    im("preset.hidden-fractional", "hugenum", {"preset.json": preset(hidden_size=255.5)})
    im("preset.heads-not-dividing", "structure", {"preset.json": preset(num_attention_heads=5)})
    im("preset.vocab-size-1e30", "hugenum",
       {"preset.json": PRESET.replace(b'"size": %d' % P["vocabulary"]["size"], b'"size": 1e30')})
    im("preset.config-missing", "structure", {"preset.json": jdump({k: v for k, v in P.items() if k != "config"})})
    im("preset.directory", "directory", {"preset.json": Dir()})
    im("preset.bomb", "gzipbomb", {"preset.json": Link("endless.gz")})
    im("kb.truncated", "truncation", {"kb.txt": KB[:KB.index(b"||", 300) - 2]}, names=("kb.txt",),
       line=line_of_offset(KB, KB.index(b"||", 300)))
    im("corpus.utf8", "utf8", {"train.txt": set_line(TRAIN, 9, lines_of(TRAIN)[8] + b"\xfe")}, names=("train.txt",), line=9)
    im("out.is-file", "directory", {"out": b"a file\n"}, names=("out",))
    im("out.existing-model", "structure", {"out": Tree("model")}, names=("out",))
    im("out.under-file", "directory", {"blocker": b"a file\n"}, names=("blocker",),
       argv=argv[:-1] + ["blocker/model"])


def train_cases():
    """train / pretrain: every input must be refused before the first training step."""
    tbase = {"train.txt": TRAIN, "test.txt": TEST, "kb.txt": KB, "spelling.txt": SPELLING}
    targv = ["train", "--train", "train.txt", "--dev", "test.txt", "--kb", "kb.txt", "--out", "runout"]
    TRIPLET = (MODELS / "triplet.json").read_bytes()
    T = json.loads(TRIPLET)

    def tr(name, kind, extra, files, names, **kw):
        add("train." + name, kind, "train", targv + extra, dict(tbase, **files), names=names, **kw)

    pfile = ["--preset", "method.json", "--compact"]
    tr("preset.deep", "deepjson", pfile, {"method.json": deep_array()}, ("method.json",))
    tr("preset.deep-object", "deepjson", pfile, {"method.json": deep_object()}, ("method.json",))
    tr("preset.truncated", "truncation", pfile, {"method.json": TRIPLET[:500]}, ("method.json",),
       line=json_lines_count(TRIPLET[:500]))
    tr("preset.unknown-method", "structure", pfile, {"method.json": jdump(dict(T, method="alchemy"))}, ("method.json",))
    tr("preset.epochs-negative", "hugenum", pfile,
       {"method.json": jdump(dict(T, training=dict(T["training"], epochs=-1)))}, ("method.json",))
    tr("preset.epochs-1e400", "hugenum", pfile,
       {"method.json": jdump(dict(T, training=dict(T["training"], epochs=12345678))).replace(b"12345678", b"1e400")},
       ("method.json",))
    tr("preset.batch-size-zero", "structure", pfile,
       {"method.json": jdump(dict(T, training=dict(T["training"], batch_size=0)))}, ("method.json",))
    tr("preset.learning-rate-string", "structure", pfile,
       {"method.json": jdump(dict(T, training=dict(T["training"], learning_rate="NaN")))}, ("method.json",))
    tr("preset.bomb", "gzipbomb", pfile, {"method.json": Link("endless.gz")}, ("method.json",))
    tr("preset.directory", "directory", pfile, {"method.json": Dir()}, ("method.json",))
    tr("compact-preset.deep", "deepjson", ["--preset", "triplet", "--compact", "--compact-preset", "enc.json"],
       {"enc.json": deep_array()}, ("enc.json",))
    tr("compact-preset.hidden-1e9", "hugenum", ["--preset", "triplet", "--compact", "--compact-preset", "enc.json"],
       {"enc.json": Gen(lambda S: jdump(dict(json.loads((MODELS / "compact-encoder.json").read_text()),
                                             config=dict(json.loads((MODELS / "compact-encoder.json").read_text())["config"],
                                                         hidden_size=10 ** 9))))}, ("enc.json",))
    tr("model.config-vocab-1e9", "hugenum", ["--preset", "triplet", "--model", "model"],
       {"model": Tree("model"), "model/config.json": Gen(lambda S: jdump(dict(S.json("model/config.json"), vocab_size=10 ** 9)))},
       ("config.json", "model.safetensors"))
    tr("model.safetensors-truncated", "truncation", ["--preset", "triplet", "--model", "model"],
       {"model": Tree("model"), "model/model.safetensors": Gen(lambda S: S.bytes("model/model.safetensors")[:5000])},
       ("model.safetensors",))
    tr("corpus.utf8", "utf8", ["--preset", "triplet", "--compact"],
       {"train.txt": set_line(TRAIN, 2, lines_of(TRAIN)[1] + b"\xff")}, ("train.txt",), line=2)
    tr("corpus.offsets", "offsets", ["--preset", "triplet", "--compact"],
       {"train.txt": set_line(TRAIN, 3, b"90000001\t21\t9999\tHuntington disease\tSpecificDisease\tD006816")},
       ("train.txt",), line=3)
    tr("kb.nul", "nul", ["--preset", "triplet", "--compact"], {"kb.txt": set_line(KB, 5, b"\x00" * 20)}, ("kb.txt",),
       line=5)
    tr("spelling.utf8", "utf8", ["--preset", "triplet", "--compact", "--spelling", "spelling.txt"],
       {"spelling.txt": set_line(SPELLING, 3, b"chor\xe9ia||chorea")}, ("spelling.txt",), line=3)
    # --resume of a run whose files are damaged (the seed run has no optimizer.pt: nothing can train)
    rargv = ["train", "--resume", "--out", "run", "--preset", "triplet", "--train", "train.txt", "--kb", "kb.txt"]

    def rs(name, kind, files, names, **kw):
        add("train.resume." + name, kind, "train", rargv, dict(tbase, run=Tree("resume"), **files), names=names, **kw)

    state = jdump(STATE)
    rs("state.deep", "deepjson", {"run/checkpoint/state.json": deep_array()}, ("state.json",))
    rs("state.deep-object", "deepjson", {"run/checkpoint/state.json": deep_object()}, ("state.json",))
    rs("state.truncated", "truncation", {"run/checkpoint/state.json": state[:70]}, ("state.json",),
       line=json_lines_count(state[:70]))
    rs("state.log-bytes-1e30", "hugenum",
       {"run/checkpoint/state.json": state.replace(b'"log_bytes": 10', b'"log_bytes": 1e30')}, ("state.json",))
    rs("state.log-bytes-2e64", "hugenum",
       {"run/checkpoint/state.json": state.replace(b'"log_bytes": 10', b'"log_bytes": 36893488147419103232')},
       ("state.json",))
    rs("state.step-negative", "hugenum", {"run/checkpoint/state.json": jdump(dict(STATE, step=-1))}, ("state.json",))
    rs("state.epoch-fractional", "hugenum", {"run/checkpoint/state.json": jdump(dict(STATE, epoch=0.5))}, ("state.json",))
    rs("state.scalars-string", "structure", {"run/checkpoint/state.json": jdump(dict(STATE, scalars={"sparse_weight": "NaN"}))},
       ("state.json",))
    rs("state.empty", "empty", {"run/checkpoint/state.json": b""}, ("state.json",))
    rs("state.directory", "directory", {"run/checkpoint/state.json": Dir()}, ("state.json",))
    rs("state.utf8", "utf8", {"run/checkpoint/state.json": state.replace(b'"scalars"', b'"scal\xc3rs"')}, ("state.json",),
       line=state[:state.index(b'"scalars"')].count(b"\n") + 1)
    rs("state.bomb", "gzipbomb", {"run/checkpoint/state.json": Link("endless.gz")}, ("state.json",))
    rs("run-json.deep", "deepjson", {"run/run.json": deep_array()}, ("run.json",))
    rs("run-json.truncated", "truncation", {"run/run.json": jdump(RUN_INFO)[:100]}, ("run.json",),
       line=json_lines_count(jdump(RUN_INFO)[:100]))
    rs("preset-json.deep", "deepjson", {"run/preset.json": deep_array()}, ("preset.json",))
    rs("optimizer.garbage", "structure", {"run/checkpoint/optimizer.pt": b"PK\x03\x04" + b"\xff" * 200},
       ("optimizer.pt",))
    rs("optimizer.missing", "missing", {}, ("optimizer.pt",))
    rs("checkpoint-model.config-deep", "deepjson", {"run/checkpoint/model/config.json": deep_array()}, ("config.json",))

    # --resume of a BioSyn run that resumes for real (optimizer.pt, candidates.bin), damaged.
    bargv = ["train", "--resume", "--device", "cpu", "--out", "run", "--train", "train.txt", "--dev", "test.txt",
             "--kb", "kb.txt"]

    def br(name, kind, files, names, **kw):
        add("train.resume." + name, kind, "train", bargv, dict(tbase, run=Tree("biosyn-run"), **files), names=names,
            **kw)

    # The log a link to a file outside the run folder, longer than the checkpoint's log_bytes: the
    # resume would cut it and append to it. Refused naming the log; the file keeps every byte.
    outside = b"not the run's log\n" * 4096
    br("log-symlink", "symlink", {"run/log.jsonl": Sym("../outside.txt"), "outside.txt": outside}, ("log.jsonl",),
       after=lambda work: None if (Path(work) / "outside.txt").read_bytes() == outside
       else "outside.txt was written through the run's log link")

    # The checkpoint made mid-epoch (so that the resume reads the epoch's candidates back) and one
    # candidate id 0x7FFFFFFF: refused naming candidates.bin, not indexed with.
    def mid_epoch(S):
        return jdump(dict(S.json("biosyn-run/checkpoint/state.json"), epoch=0, step=1, global_step=1, validated=True))

    def huge_id(S):
        table = bytearray(S.bytes("biosyn-run/checkpoint/candidates.bin"))
        struct.pack_into("<I", table, len(table) - 4, 0x7FFFFFFF)
        return bytes(table)

    br("candidates.huge-id", "hugenum", {"run/checkpoint/state.json": Gen(mid_epoch),
                                         "run/checkpoint/candidates.bin": Gen(huge_id)}, ("candidates.bin",))
    # Counts that do not fit the run (one epoch of four steps): resumed, they skipped the training.
    def state_with(**counts):
        return Gen(lambda S: jdump(dict(S.json("biosyn-run/checkpoint/state.json"), **counts)))

    br("state.epoch-past-schedule", "hugenum", {"run/checkpoint/state.json": state_with(epoch=7)}, ("state.json",))
    br("state.step-past-epoch", "hugenum",
       {"run/checkpoint/state.json": state_with(epoch=0, step=4, global_step=4, validated=True)}, ("state.json",))

    # pretrain
    pargv = ["pretrain", "--kb", "kb.txt", "--out", "encout"]

    def pt(name, kind, extra, files, names, **kw):
        add("pretrain." + name, kind, "pretrain", pargv + extra, dict(tbase, **files), names=names, **kw)

    pt("kb.utf8", "utf8", [], {"kb.txt": set_line(KB, 6, lines_of(KB)[5] + b"\xff")}, ("kb.txt",), line=6)
    pt("kb.empty", "empty", [], {"kb.txt": b""}, ("kb.txt",))
    pt("kb2.bomb", "gzipbomb", ["--kb", "ctd.tsv.gz"], {"ctd.tsv.gz": Link("endless.gz")}, ("ctd.tsv.gz",), line=1)
    pt("preset.deep", "deepjson", ["--preset", "sap.json"], {"sap.json": deep_array()}, ("sap.json",))
    pt("preset.truncated", "truncation", ["--preset", "sap.json"], {"sap.json": (MODELS / "sapbert.json").read_bytes()[:333]},
       ("sap.json",), line=json_lines_count((MODELS / "sapbert.json").read_bytes()[:333]))
    pt("dev.offsets", "offsets", ["--dev", "test.txt"],
       {"test.txt": set_line(TEST, 3, b"90000007\t-1\t6\tAsthma\tSpecificDisease\tD001249")}, ("test.txt",), line=3)
    pt("compact-preset.deep", "deepjson", ["--compact-preset", "enc.json"], {"enc.json": deep_object()}, ("enc.json",))
    pt("model.config-deep", "deepjson", ["--model", "model"],
       {"model": Tree("model"), "model/config.json": deep_array()}, ("config.json",))
    pt("resume.state-deep", "deepjson", ["--resume"],
       {"encout": Tree("resume"), "encout/checkpoint/state.json": deep_array(),
        "encout/preset.json": Gen(lambda S: (MODELS / "sapbert.json").read_bytes()),
        "encout/run.json": jdump(dict(RUN_INFO, preset="sapbert"))}, ("state.json",))

    # simulate-curation: a damaged run or corpus
    sargv = ["simulate-curation"] + DICT_ARGS + ["--run", "run", "--knn", "--json"]

    def sim(name, kind, extra, files, names, **kw):
        add("simulate-curation." + name, kind, "simulate-curation", sargv + extra,
            dict({"train.txt": TRAIN, "test.txt": TEST, "kb.txt": KB, "run": Tree("run")}, **files), names=names, **kw)

    sim("run-json.deep", "deepjson", [], {"run/run.json": deep_array()}, ("run.json",))
    sim("preset-json.truncated", "truncation", [], {"run/preset.json": TRIPLET[:250]}, ("preset.json",),
        line=json_lines_count(TRIPLET[:250]))
    sim("model.vocab-1e9", "hugenum", [],
        {"run/model/config.json": Gen(lambda S: jdump(dict(S.json("model/config.json"), vocab_size=10 ** 9)))},
        ("config.json", "model.safetensors"))
    sim("model.nan-weight", "nan", [],
        {"run/model/model.safetensors": st_edit(lambda h, b: st_poke_float(h, b, "embeddings.word_embeddings", float("nan")))},
        ("model.safetensors",))
    sim("test.utf8", "utf8", [], {"test.txt": set_line(TEST, 1, lines_of(TEST)[0] + b"\xff")}, ("test.txt",), line=1)
    sim("csv-is-directory", "directory", ["--csv", "curve.csv"], {"curve.csv": Dir()}, ("curve.csv",))
    sim("datastore.garbage", "structure", ["--datastore", "ds.bin"], {"ds.bin": b"LSKNNDS1" + b"\xff" * 64},
        ("ds.bin",))

    # index
    iargv = ["index"] + DICT_ARGS

    def ix(name, kind, extra, files, names, **kw):
        add("index." + name, kind, "index", iargv + extra, dict({"train.txt": TRAIN, "test.txt": TEST, "kb.txt": KB}, **files),
            names=names, **kw)

    ix("sparse-index-is-directory", "directory", ["--sparse-index", "s.idx"], {"s.idx": Dir()}, ("s.idx",))
    ix("sparse-index-missing-folder", "missing", ["--sparse-index", "no/where/s.idx"], {}, ("no/where/s.idx", "no/where"))
    ix("dense-index-is-directory", "directory", ["--model", "model", "--dense-index", "d.idx"],
       {"model": Tree("model"), "d.idx": Dir()}, ("d.idx",))
    ix("dense-index-garbage-replaced", "structure", ["--model", "model", "--dense-index", "d.idx"],
       {"model": Tree("model"), "d.idx": b"garbage" * 100}, ("d.idx",), expect="ok",
       check=lambda out, work: None if (Path(work) / "d.idx").read_bytes()[:8] == b"LSDENSE1" else "d.idx not rewritten")
    ix("model.config-deep", "deepjson", ["--model", "model", "--dense-index", "d.idx"],
       {"model": Tree("model"), "model/config.json": deep_object()}, ("config.json",))
    ix("model.safetensors-header-huge", "hugenum", ["--model", "model", "--dense-index", "d.idx"],
       {"model": Tree("model"), "model/model.safetensors": Gen(lambda S: struct.pack("<Q", 1 << 62) + S.bytes("model/model.safetensors")[8:])},
       ("model.safetensors",))
    ix("model.overflowing-forward-pass", "nan", ["--model", "model", "--dense-index", "d.idx"],
       {"model": Tree("model"), "model/model.safetensors": Gen(overflowing_model)}, ("the model in model",))
    ix("kb.utf8", "utf8", ["--sparse-index", "s.idx"], {"kb.txt": set_line(KB, 2, lines_of(KB)[1] + b"\xed\xbf\xbf")},
       ("kb.txt",), line=2)
    ix("test.truncated", "truncation", ["--sparse-index", "s.idx"], {"test.txt": TEST[:TEST.index(b"\t") + 3]},
       ("test.txt",), line=line_of_offset(TEST, TEST.index(b"\t")))
    ix("spelling.bomb", "gzipbomb", ["--sparse-index", "s.idx", "--spelling", "sp.txt"], {"sp.txt": Link("endless.gz")},
       ("sp.txt",), line=1)


def export_cases():
    corp = {"kb.txt": KB, "train.txt": TRAIN, "test.txt": TEST}
    M = dict(MANIFEST)
    M["knowledgeBase"] = dict(M["knowledgeBase"], path="kb.txt")
    M["corpora"] = [{"split": "train", "path": "train.txt", "format": "pubtator"},
                    {"split": "test", "path": "test.txt", "format": "pubtator"}]
    MAN = jdump(M)
    argv = ["export", "--manifest", "project.json", "--format", "pubtator", "--out", "out"]
    ref("export-manifest", "export", argv, dict(corp, **{"project.json": MAN}), outputs=("out/train.pubtator.txt",
                                                                                         "out/test.pubtator.txt"),
        outside=True)

    def ex(name, kind, files, names=("project.json",), **kw):
        add("export.manifest." + name, kind, "export", kw.pop("argv", argv), dict(corp, **{"project.json": MAN}, **files)
            if "project.json" not in files else dict(corp, **files), names=names, outside=True, **kw)

    def man(**changes):
        return jdump(dict(M, **changes))

    def split(name, i=1):
        corpora = [dict(c) for c in M["corpora"]]
        corpora[i]["split"] = name
        return man(corpora=corpora)

    def cpath(path, i=1):
        corpora = [dict(c) for c in M["corpora"]]
        corpora[i]["path"] = path
        return man(corpora=corpora)

    for name, t in [("lineend.bom", bom), ("lineend.crlf", crlf), ("lineend.cr", cr_only), ("gzip.plain", gz)]:
        ex(name, name.split(".")[0], {"project.json": t(MAN)}, expect="clean", ref="export-manifest",
           outputs=("out/train.pubtator.txt", "out/test.pubtator.txt"))
    ex("deep", "deepjson", {"project.json": deep_array()})
    ex("deep-object", "deepjson", {"project.json": deep_object()})
    ex("deep-in-corpora", "deepjson", {"project.json": MAN.replace(b'"corpora": [', b'"corpora": [' + deep_array() + b",")},
       line=MAN[:MAN.index(b'"corpora": [')].count(b"\n") + 1)
    ex("truncated", "truncation", {"project.json": MAN[:len(MAN) // 2]}, line=json_lines_count(MAN[:len(MAN) // 2]))
    ex("utf8", "utf8", {"project.json": MAN.replace(b"demo", b"d\xe9mo", 1)},
       line=MAN[:MAN.index(b"demo")].count(b"\n") + 1)
    ex("nul-in-json", "nul", {"project.json": MAN.replace(b'"name"', b'"na\x00me"', 1)}, line="any")
    ex("version-huge", "hugenum", {"project.json": MAN.replace(b'"version": 1', b'"version": 1e400')})
    ex("version-99", "structure", {"project.json": man(version=99)})
    ex("corpora-not-array", "structure", {"project.json": man(corpora={"train": "train.txt"})})
    ex("bomb", "gzipbomb", {"project.json": Link("endless.gz")})
    ex("directory", "directory", {"project.json": Dir()})
    ex("symlink-loop", "symlink", {"project.json": Sym("project.json")})
    # split names that would lead out of the output folder
    for name, value in [("dotdot", "../escaped"), ("dotdot-deep", "../../../../../../../../../tmp/hostile-escaped"),
                        ("dotdot-only", ".."), ("dot-only", "."), ("absolute", "/tmp/hostile-escaped"),
                        ("absolute-in-case", "@WORK@/abs/escaped"), ("backslash", "..\\escaped"),
                        ("nul", "tr\x00ain"), ("newline", "test\nx"), ("tab", "te\tst"), ("empty", ""),
                        ("long", "s" * 300), ("slash", "sub/split")]:
        ex("split." + name, "pathescape", {"project.json": split(value)})
    ex("split.duplicate", "structure", {"project.json": split("train")})
    ex("split.dotdot-one-split", "pathescape", {"project.json": split("../escaped")},
       argv=["export", "--manifest", "project.json", "--format", "pubtator", "--split", "../escaped", "--out", "out"])
    ex("split.dotdot-brat", "pathescape", {"project.json": split("../escaped")},
       argv=["export", "--manifest", "project.json", "--format", "brat", "--out", "out"])
    ex("split.dotdot-bioc", "pathescape", {"project.json": split("../escaped")},
       argv=["export", "--manifest", "project.json", "--format", "bioc", "--out", "out", "--date", "20260101"])
    ex("corpus-path.missing", "missing", {"project.json": cpath("nowhere.txt")}, names=("nowhere.txt",))
    ex("corpus-path.directory", "directory", {"project.json": cpath("adir"), "adir": Dir()}, names=("adir",))
    ex("corpus-path.device", "overlong", {"project.json": cpath("/dev/zero")}, names=("/dev/zero", "project.json"))
    ex("corpus-path.nul", "nul", {"project.json": cpath("test.txt\x00.evil")}, names=("project.json", "test.txt"))
    ex("corpus-path.newline", "pathescape", {"project.json": cpath("test.txt\nx")}, names=("project.json", "test.txt"))
    ex("corpus-path.utf8-damaged", "utf8", {"project.json": cpath("t\u00e9st.txt").replace(b"t\\u00e9st", b"t\xe9st")},
       line="any")
    ex("corpus.utf8", "utf8", {"test.txt": set_line(TEST, 2, lines_of(TEST)[1] + b"\xff")}, names=("test.txt",), line=2)
    ex("corpus.truncated", "truncation", {"train.txt": TRAIN[:TRAIN.index(b"\t", 500) + 2]}, names=("train.txt",),
       line=line_of_offset(TRAIN, TRAIN.index(b"\t", 500)))
    ex("kb-path.missing", "missing", {"project.json": man(knowledgeBase={"path": "none.txt", "format": "medic"})},
       names=("none.txt",))
    ex("kb-format.unknown", "structure", {"project.json": man(knowledgeBase={"path": "kb.txt", "format": "rot13"})})
    ex("corpus-format.unknown", "structure",
       {"project.json": man(corpora=[{"split": "train", "path": "train.txt", "format": "conll"}])})

    # the project file (.linkscope, SQLite)
    pargv = ["export", "--project", "p.linkscope", "--format", "pubtator", "--out", "out"]
    ref("export-project", "export", pargv, dict(corp, **{"p.linkscope": Link("p.linkscope")}),
        outputs=("out/train.pubtator.txt", "out/test.pubtator.txt"), outside=True)

    def px(name, kind, data, names=("p.linkscope",), **kw):
        add("export.project." + name, kind, "export", kw.pop("argv", pargv), dict(corp, **{"p.linkscope": data}, **kw.pop("files", {})),
            names=names, outside=True, **kw)

    P = lambda **kw: Gen(lambda S: project_bytes(S, **kw))
    px("empty", "empty", b"")
    px("random-bytes", "structure", bytes(random.Random(10).randrange(256) for _ in range(8192)))
    px("sqlite-header-only", "truncation", b"SQLite format 3\x00" + b"\x10\x00\x01\x01" + b"\x00" * 80)
    px("truncated-half", "truncation", Gen(lambda S: S.bytes("p.linkscope")[:len(S.bytes("p.linkscope")) // 2]))
    px("truncated-page", "truncation", Gen(lambda S: S.bytes("p.linkscope")[:4096 + 100]))

    def damage_page(S):
        data = bytearray(S.bytes("p.linkscope"))
        page = 4096 if len(data) > 8192 else len(data) // 2
        for i in range(page + 8, min(page + 200, len(data))):
            data[i] ^= 0x5A
        return bytes(data)

    px("damaged-page", "byteflip", Gen(damage_page))
    px("directory", "directory", Dir())
    px("symlink-loop", "symlink", Sym("p.linkscope"))
    px("no-meta", "structure", P(decisions=GOOD_DECISIONS, skip_tables=("meta",)))
    px("wrong-format", "structure", P(meta=(("format", "something-else"), ("schema_version", "1"))))
    px("schema-version-99", "structure", P(meta=(("format", "linkscope-project"), ("schema_version", "99"))))
    px("schema-version-huge", "hugenum",
       P(meta=(("format", "linkscope-project"), ("schema_version", "99999999999999999999999999"))))
    px("schema-version-negative", "hugenum", P(meta=(("format", "linkscope-project"), ("schema_version", "-1"))))
    px("no-decisions-table", "structure", P(skip_tables=("decisions",)))
    px("split.dotdot", "pathescape", P(corpora=(("train", "train.txt"), ("../escaped", "test.txt"))))
    px("split.absolute", "pathescape", P(corpora=(("train", "train.txt"), ("/tmp/hostile-escaped", "test.txt"))))
    px("split.nul", "pathescape", P(corpora=(("train", "train.txt"), ("te\x00st", "test.txt"))))
    px("split.newline", "pathescape", P(corpora=(("train", "train.txt"), ("te\nst", "test.txt"))))
    px("split.dotdot-brat", "pathescape", P(corpora=(("train", "train.txt"), ("..", "test.txt"))),
       argv=["export", "--project", "p.linkscope", "--format", "brat", "--out", "out"])
    px("corpus-path.missing", "missing", P(corpora=(("train", "nowhere.txt"),)), names=("nowhere.txt",))
    px("corpus-path.directory", "directory", P(corpora=(("train", "adir"),)), names=("adir",), files={"adir": Dir()})
    px("kb-path.missing", "missing", P(decisions=GOOD_DECISIONS, kb="nokb.txt"), expect="clean", ref="export-project",
       outputs=("out/train.pubtator.txt", "out/test.pubtator.txt"))

    def decision(**changes):
        return changed_decision(GOOD_DECISIONS[0], **changes)

    px("decision.negative-offsets", "offsets", P(decisions=[decision(start=-10, end=-8)], unchecked=True))
    px("decision.reversed-offsets", "offsets", P(decisions=[decision(start=92, end=90)], unchecked=True))
    px("decision.offsets-past-text", "offsets", P(decisions=[decision(start=90000, end=90002)]))
    px("decision.offsets-huge", "hugenum", P(decisions=[decision(start=(1 << 62), end=(1 << 62) + 2)]))
    px("decision.offsets-fractional", "offsets", P(decisions=[decision(start=90.5, end=92)], unchecked=True))
    px("decision.offsets-text", "offsets", P(decisions=[decision(start="ninety", end=92)], unchecked=True))
    px("decision.kind-unknown", "structure", P(decisions=[decision(kind="obliterate")], unchecked=True))
    px("decision.state-unknown", "structure", P(decisions=[decision(state="maybe")], unchecked=True))
    px("decision.link-with-tab", "structure", P(decisions=[decision(new_link="MESH:D006816\tD1")]))
    px("decision.link-with-newline", "structure", P(decisions=[decision(new_link="MESH:D006816\n90000001|t|x")]))
    px("decision.unknown-split", "structure", P(decisions=[decision(split="nosuchsplit")]))
    # Damage SQLite's quick_check cannot see: an index entry changed (integrity_check finds it), a
    # digit of a link in a row of schema version 3 (its checksum finds it). A sound version-3 file
    # (checksums computed here as the store computes them) exports as the version-1 one does.
    px("schema-3", "structure", P(decisions=GOOD_DECISIONS, meta=V3, checksums=True), expect="clean",
       ref="export-project", outputs=("out/train.pubtator.txt", "out/test.pubtator.txt"))
    px("index-entry-changed", "byteflip", Gen(lambda S: changed_index_entry(S, decisions=GOOD_DECISIONS)))
    px("link-digit-changed", "byteflip",
       Gen(lambda S: replaced_once(project_bytes(S, decisions=GOOD_DECISIONS, meta=V3, checksums=True),
                                   b"D009069", b"D009068")))


def decisions_count(path):
    db = sqlite3.connect(path)
    try:
        return db.execute("SELECT COUNT(*) FROM decisions").fetchone()[0]
    finally:
        db.close()


def curator_cases():
    """merge and agreement read another curator's project file: every damaged project of
    export_cases as that second file, the first a valid project of the same manifest. A refused
    merge leaves the first file as it was."""
    corp = {"kb.txt": KB, "train.txt": TRAIN, "test.txt": TEST}
    P = lambda **kw: Gen(lambda S: project_bytes(S, **kw))
    other = [tuple(d[:7]) + ("MESH:D009069" if d[5] == "correct" else d[7], "another") + tuple(d[9:])
             for d in GOOD_DECISIONS]
    valid = {"a.linkscope": P(decisions=GOOD_DECISIONS), "b.linkscope": P(decisions=other)}

    def unchanged(out, work):
        count = decisions_count(str(Path(work) / "a.linkscope"))
        return None if count == len(GOOD_DECISIONS) else f"a.linkscope holds {count} decisions after a refused merge"

    def merged(out, work):
        count = decisions_count(str(Path(work) / "a.linkscope"))
        return None if count == len(GOOD_DECISIONS) + len(other) else f"a.linkscope holds {count} decisions after the merge"

    commands = {"merge": ["merge", "a.linkscope", "b.linkscope"], "agreement": ["agreement", "a.linkscope", "b.linkscope"]}
    ref("merge", "merge", commands["merge"], dict(corp, **valid), check=merged)
    ref("agreement", "agreement", commands["agreement"], dict(corp, **valid))

    def decision(**changes):
        return changed_decision(other[0], **changes)

    for command, argv in commands.items():
        def cx(name, kind, data, **kw):
            kw.setdefault("names", ("b.linkscope",))
            if command == "merge":
                kw.setdefault("check", unchanged)
            add(f"{command}.project.{name}", kind, command, argv, dict(corp, **dict(valid, **{"b.linkscope": data})), **kw)

        cx("empty", "empty", b"")
        cx("random-bytes", "structure", bytes(random.Random(11).randrange(256) for _ in range(8192)))
        cx("sqlite-header-only", "truncation", b"SQLite format 3\x00" + b"\x10\x00\x01\x01" + b"\x00" * 80)
        cx("truncated-half", "truncation", Gen(lambda S: project_bytes(S, decisions=other)[:len(project_bytes(S, decisions=other)) // 2]))
        cx("directory", "directory", Dir())
        cx("symlink-loop", "symlink", Sym("b.linkscope"))
        cx("wrong-format", "structure", P(meta=(("format", "something-else"), ("schema_version", "1"))))
        cx("schema-version-99", "structure", P(meta=(("format", "linkscope-project"), ("schema_version", "99"))))
        cx("schema-version-huge", "hugenum",
           P(meta=(("format", "linkscope-project"), ("schema_version", "99999999999999999999999999"))))
        cx("no-decisions-table", "structure", P(skip_tables=("decisions",)))
        # Another manifest: refused, naming what differs.
        cx("split.dotdot", "pathescape", P(decisions=other, corpora=(("train", "train.txt"), ("../escaped", "test.txt"))))
        cx("kb-path.other", "structure", P(decisions=other, kb="other-kb.txt"))
        cx("decision.negative-offsets", "offsets", P(decisions=[decision(start=-10, end=-8)], unchecked=True))
        cx("decision.reversed-offsets", "offsets", P(decisions=[decision(start=92, end=90)], unchecked=True))
        cx("decision.offsets-huge", "hugenum", P(decisions=[decision(start=(1 << 62), end=(1 << 62) + 2)]))
        cx("decision.offsets-past-text", "offsets", P(decisions=[decision(start=90000, end=90002)]))
        cx("decision.unknown-split", "structure", P(decisions=[decision(split="nosuchsplit")]))
        cx("decision.offsets-text", "offsets", P(decisions=[decision(start="ninety", end=92)], unchecked=True))
        cx("decision.kind-unknown", "structure", P(decisions=[decision(kind="obliterate")], unchecked=True))
        cx("decision.state-unknown", "structure", P(decisions=[decision(state="maybe")], unchecked=True))
        cx("decision.link-with-newline", "structure", P(decisions=[decision(new_link="MESH:D006816\n90000001|t|x")]))
        cx("index-entry-changed", "byteflip", Gen(lambda S: changed_index_entry(S, decisions=other)))
        cx("link-digit-changed", "byteflip",
           Gen(lambda S: replaced_once(project_bytes(S, decisions=other, meta=V3, checksums=True),
                                       b"D009069", b"D009068")))
        cx("link-unparsable", "structure", P(decisions=[decision(new_link="MESH:D009069||MESH:D1")]))


# ----- pytorch_model.bin: the restricted unpickler (encoder/torch_checkpoint.h) ------------------

def pk_str(text):
    raw = text.encode()
    return b"X" + struct.pack("<I", len(raw)) + raw


def pk_int(value):
    return b"K" + bytes([value]) if 0 <= value < 256 else b"\x8a\x08" + struct.pack("<q", value)


def pk_global(module, name):
    return b"c" + module.encode() + b"\n" + name.encode() + b"\n"


def pk_ints(values):
    return b"(" + b"".join(pk_int(v) for v in values) + b"t"


def pk_tensor(key, numel, shape, legacy, offset=0):
    strides = [1] * len(shape)
    for d in range(len(shape) - 2, -1, -1):
        strides[d] = strides[d + 1] * shape[d + 1]
    return (pk_global("torch._utils", "_rebuild_tensor_v2") + b"((" + pk_str("storage") +
            pk_global("torch", "FloatStorage") + pk_str(key) + pk_str("cpu") + pk_int(numel) +
            (b"N" if legacy else b"") + b"tQ" + pk_int(offset) + pk_ints(shape) + pk_ints(strides) + b"\x89" +
            pk_global("collections", "OrderedDict") + b")Rt" + b"R")


def pk_state_dict(entries):
    return b"\x80\x02" + pk_global("collections", "OrderedDict") + b")R(" + b"".join(entries) + b"u."


TORCH_MAGIC = b"\x80\x02\x8a\x0a\x6c\xfc\x9c\x46\xf9\x20\x6a\xa8\x50\x19."


def torch_legacy(state, storages):
    """torch.save's legacy format around the state dict pickle: storages is [(key, numel, bytes)]."""
    info = b"\x80\x02}(" + pk_str("protocol_version") + b"M\xe9\x03" + pk_str("little_endian") + b"\x88u."
    keys = b"\x80\x02](" + b"".join(pk_str(k) for k, _, _ in storages) + b"e."
    out = TORCH_MAGIC + b"\x80\x02M\xe9\x03." + info + state + keys
    for _, numel, raw in storages:
        out += struct.pack("<q", numel) + raw
    return out


def torch_zip(state, records):
    import io
    import zipfile
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_STORED) as archive:
        archive.writestr("archive/data.pkl", state)
        for key, raw in records:
            archive.writestr("archive/data/" + key, raw)
        archive.writestr("archive/version", b"3\n")
    return buffer.getvalue()


def bin_of_model(S, legacy=False, numel_extra=0):
    """The model's model.safetensors as a pytorch_model.bin (written here, without torch)."""
    header, body = st_split(S.bytes("model/model.safetensors"))
    entries, storages = [], []
    for index, (name, info) in enumerate(sorted((k, v) for k, v in header.items() if k != "__metadata__")):
        begin, end = info["data_offsets"]
        numel = (end - begin) // 4
        key = str(index)
        entries.append(pk_str(name) + pk_tensor(key, numel + (numel_extra if index == 0 else 0), info["shape"], legacy))
        storages.append((key, numel, body[begin:end]))
    state = pk_state_dict(entries)
    if legacy:
        return torch_legacy(state, sorted(storages))
    return torch_zip(state, [(k, raw) for k, _, raw in storages])


def no_payload_ran(work):
    """None, or what a hostile pickle's payload left in the case folder."""
    for name in ("ran-the-payload", "x"):
        if (work / name).exists():
            return "the pickle's payload ran: " + name + " exists"
    return None


class EvilReduce:
    """pickle.dumps of this writes what a malicious checkpoint holds: GLOBAL posix.system, REDUCE."""
    def __reduce__(self):
        return (os.system, ("touch ran-the-payload",))


def torch_pickle_cases():
    import pickle
    eargv = ["encode", "--model", "model"]

    def tb(name, kind, data, expect="error", **kw):
        files = {"model": Tree("model"), "model/model.safetensors": None, "model/pytorch_model.bin": data}
        add("encode.torchbin." + name, kind, "encode", eargv, files,
            names=("pytorch_model.bin",), stdin=STDIN_TEXT, expect=expect, **kw)
        # model check reads the same file through the same unpickler without LibTorch: the same
        # refusal, naming the file, and nothing run.
        add("model-check.torchbin." + name, kind, "model", ["model", "check", "model"], dict(files),
            names=("pytorch_model.bin",), expect="ok" if expect == "clean" else expect, after=no_payload_ran)

    # Written here from the seed's safetensors: encodes exactly as the seed does.
    tb("zip-clean", "structure", Gen(lambda S: bin_of_model(S)), expect="clean", ref="encode")
    tb("legacy-clean", "structure", Gen(lambda S: bin_of_model(S, legacy=True)), expect="clean", ref="encode")
    hostile = {
        "os-system": pk_global("os", "system") + pk_str("touch ran-the-payload") + b"\x85R.",
        "builtins-eval": pk_global("builtins", "eval") + pk_str("__import__('os').system('touch x')") + b"\x85R.",
        "subprocess-popen": pk_global("subprocess", "Popen") + b"(" + pk_str("touch") + pk_str("x") + b"l\x85R.",
        "reduce-payload": pickle.dumps(EvilReduce(), protocol=2)[2:],
        "stack-global": pk_str("posix") + pk_str("system") + b"\x93" + pk_str("touch x") + b"\x85R.",
    }
    for name, body in hostile.items():
        tb("zip-" + name, "structure", torch_zip(b"\x80\x02" + body, []))
        tb("legacy-" + name, "structure", torch_legacy(b"\x80\x02" + body, []))
        tb("raw-" + name, "structure", b"\x80\x02" + body)
    for cut in (1, 50, 99):
        tb("zip-truncated-%d" % cut, "truncation", Gen(lambda S, cut=cut: (lambda b: b[:len(b) * cut // 100])(bin_of_model(S))))
        tb("legacy-truncated-%d" % cut, "truncation",
           Gen(lambda S, cut=cut: (lambda b: b[:len(b) * cut // 100])(bin_of_model(S, legacy=True))))
    tb("zip-storage-past-record", "structure", Gen(lambda S: bin_of_model(S, numel_extra=1)))
    tb("zip-storage-huge", "hugenum", Gen(lambda S: bin_of_model(S, numel_extra=1 << 60)))
    tb("legacy-storage-huge", "hugenum", Gen(lambda S: bin_of_model(S, legacy=True, numel_extra=1 << 60)))
    tb("zip-deep-lists", "structure", torch_zip(b"\x80\x02" + b"](" * 500000 + b".", []))
    tb("zip-string-4gib", "hugenum", torch_zip(b"\x80\x02X\xff\xff\xff\xff.", []))
    tb("random-bytes", "structure", bytes(random.Random(41).randrange(256) for _ in range(4096)))


def define_cases():
    if CASES:
        return
    stats_corpus_cases()
    stats_kb_cases()
    eval_cases()
    compare_cases()
    model_cases()
    init_model_cases()
    train_cases()
    export_cases()
    curator_cases()
    torch_pickle_cases()
    json_corpus_cases()
    shard_cases()


# BioC JSON and BigBio KB JSON lines (corpus/bioc_json_reader.h, bigbio_reader.h): read one document
# at a time, so a bomb of one endless value stops at the per-document bound (64 MiB) and deep
# nesting at 64 levels, before anything is parsed; offsets are checked against the text.
BIOC_JSON_DOC = (b'{"id":"7","passages":[{"offset":0,"infons":{"type":"title"},"text":"Fever and cough."},'
                 b'{"offset":17,"text":"Cough persisted.","annotations":[{"id":"1","infons":{"type":"Disease",'
                 b'"identifier":"D003371"},"text":"Cough","locations":[{"offset":@OFF@,"length":5}]}]}]}')
BIGBIO_LINE = (b'{"id":"0","document_id":"7","passages":[{"id":"1","type":"title","text":["Fever and cough."],'
               b'"offsets":[[0,16]]},{"id":"2","type":"abstract","text":["Cough persisted."],"offsets":[[17,33]]}],'
               b'"entities":[{"id":"3","type":"Disease","text":["Cough"],"offsets":[[@OFF@,@END@]],'
               b'"normalized":[{"db_name":"MESH","db_id":"D003371"}]}],"events":[],"coreferences":[],"relations":[]}')


def json_corpus_cases():
    def bioc(offset=b"17"):
        return b'{"source":"s","documents":[\n' + BIOC_JSON_DOC.replace(b"@OFF@", offset) + b"\n]}\n"

    def bigbio(start=b"17", end=b"22"):
        return BIGBIO_LINE.replace(b"@OFF@", start).replace(b"@END@", end) + b"\n"

    def case(name, kind, data, file, line=None, fmt=None, expect="error"):
        argv = ["stats", "--corpus", file, "--json"] + (["--corpus-format", fmt] if fmt else [])
        kw = {"line": line} if line is not None else {}
        add("stats.corpus-json." + name, kind, "stats", argv, {file: data}, names=(file,), expect=expect, **kw)

    case("bioc-json.valid", "format", bioc(), "corpus.json", expect="either")
    case("bigbio.valid", "format", bigbio(), "corpus.jsonl", expect="either")
    for name, data, line in [
            ("offset-past-text", bioc(b"30"), 2), ("offset-huge", bioc(b"18446744073709551615"), 2),
            ("offset-negative", bioc(b"-1"), 2), ("offset-float", bioc(b"17.0"), 2), ("offset-1e999", bioc(b"1e999"), 2),
            ("truncated", bioc()[:-20], 2), ("nul", bioc().replace(b"persisted", b"pers\\u0000sted"), 2),
            ("invalid-utf8", bioc().replace(b"persisted", b"pers\xc7sted"), 2),
            ("lone-surrogate", bioc().replace(b"persisted", b"pers\\ud800sted"), 2),
            ("not-a-collection", b"[1,2,3]\n", 1), ("garbage-after", bioc() + b"{}\n", 4)]:
        case("bioc-json." + name, "format", data, "corpus.json", line=line)
    case("bioc-json.deep", "deepjson", b'{"documents":[' + b"[" * 200000 + b"]" * 200000 + b"]}", "corpus.json")
    case("bioc-json.deep-member", "deepjson", b'{"infons":' + b"{\"a\":" * 100000 + b"1" + b"}" * 100001,
         "corpus.json")
    # 2 GiB of one string, gzip-compressed to a few MB: refused at the per-document bound.
    case("bioc-json.gzip-bomb-endless-string", "gzipbomb",
         Gen(lambda S: gz(b'{"source":"') + gz(b"x" * (64 << 20)) * 32), "corpus.json.gz", line=1)
    for name, data, line in [
            ("offset-past-text", bigbio(b"30", b"35"), 1), ("offset-huge", bigbio(b"18446744073709551610",
                                                                                 b"18446744073709551615"), 1),
            ("offset-reversed", bigbio(b"22", b"17"), 1), ("offset-string", bigbio(b'"17"'), 1),
            ("truncated", bigbio()[:-30], 1), ("nul", bigbio().replace(b"persisted", b"pers\\u0000sted"), 1),
            ("invalid-utf8", bigbio().replace(b"persisted", b"pers\xc7sted"), 1),
            ("second-line-bad", bigbio() + bigbio(b"0", b"99"), 2), ("not-an-object", b"[1]\n", 1)]:
        case("bigbio." + name, "format", data, "corpus.jsonl", line=line)
    case("bigbio.deep", "deepjson", b'{"passages":' + b"[" * 200000 + b"]" * 200000 + b"}\n", "corpus.jsonl")
    # One endless line of 2 GiB: refused at the line bound of the BigBio reader.
    case("bigbio.gzip-bomb-endless-line", "gzipbomb", Gen(lambda S: gz(b'{"id":"') + gz(b"x" * (64 << 20)) * 32),
         "corpus.jsonl.gz", line=1)


# `link --shard I/N` reruns and merge-shards (app/cli/shard_manifest.h, link_shards.h) on the two
# shards of train.txt the set-up links into shards/. Every damage of a manifest or part must be
# refused naming the file (and, for a manifest field, the field), with nothing merged; a rerun
# links a shard whose manifest is damaged again, and refuses to write through a link or a FIFO.
SHARD = "shards/shard-00001-of-00002"
SHARD_ARGV = ["merge-shards", "shards", "--out", "merged.txt"]


def manifest_edit(fn):
    def make(S):
        m = S.json(SHARD + ".json")
        fn(m)
        return jdump(m)
    return Gen(make)


def names_in_stderr(*fragments):
    """after(work): standard error (beside the case folder) holds every fragment."""
    def after(work):
        err = (work.parent / "stderr").read_bytes().decode(errors="replace")
        missing = [f for f in fragments if f not in err]
        return "the error does not say %s" % ", ".join(repr(f) for f in missing) if missing else None
    return after


def nothing_merged(work):
    return "merged.txt written" if (work / "merged.txt").exists() else None


def manifest_relinked(stdout, work):
    m = json.loads((work / (SHARD + ".json")).read_bytes())
    if not isinstance(m.get("counts"), dict) or m.get("shard") != 1:
        raise ValueError("the rerun did not write a valid manifest")
    return None


def shard_cases():
    files = {"train.txt": Link("train.txt"), "shards": Tree("shards")}
    ref("merge-shards", "merge-shards", SHARD_ARGV, dict(files), outputs=("merged.txt",))

    def merge(name, kind, damage, fragments=(), names=(SHARD + ".json",), **kw):
        checks = [names_in_stderr(*fragments), nothing_merged]
        add("shards.merge." + name, kind, "merge-shards", SHARD_ARGV, dict(files, **damage),
            names=[os.path.basename(n) for n in names],
            after=lambda work: next((p for p in (c(work) for c in checks) if p), None), **kw)

    def field(name, path, value):
        def edit(m):
            obj = m
            for key in path[:-1]:
                obj = obj[key]
            obj[path[-1]] = value
        merge("field." + name, "format", {SHARD + ".json": manifest_edit(edit)},
              fragments=('"%s"' % ".".join(path),))

    # Every field of another JSON type, and numbers out of their bounds.
    for name, path, value in [
            ("counts-array", ["counts"], [1, 2, 3]), ("counts-string", ["counts"], "many"),
            ("counts-null", ["counts"], None), ("part-string", ["part"], "shard-00001-of-00002.pubtator"),
            ("part-array", ["part"], []), ("input-array", ["input"], []), ("linker-number", ["linker"], 1),
            ("settings-null", ["settings"], None), ("linker-arguments-object", ["linkerArguments"], {}),
            ("command-string", ["command"], "linkscope-cli link"), ("corpus-format-number", ["corpusFormat"], 7),
            ("shard-negative", ["shard"], -1), ("shard-huge", ["shard"], 10 ** 30), ("shard-float", ["shard"], 1.5),
            ("shard-string", ["shard"], "1"), ("shards-zero", ["shards"], 0), ("shards-bool", ["shards"], True),
            ("input-size-negative", ["input", "size"], -1), ("input-size-string", ["input", "size"], "1336"),
            ("input-crc-33-bits", ["input", "crc32"], 1 << 32), ("input-path-number", ["input", "path"], 5),
            ("input-mtime-float", ["input", "mtimeNs"], 1e300), ("range-bytes-negative", ["range", "bytes"], -5),
            ("part-bytes-string", ["part", "bytes"], "12"), ("part-crc-negative", ["part", "crc32"], -1),
            ("part-header-huge", ["part", "headerBytes"], 18446744073709551615),
            ("part-documents-past-bytes", ["part", "documents"], 1 << 40), ("part-file-array", ["part", "file"], []),
            ("counts-mentions-uint64-max", ["counts", "mentions"], 18446744073709551615),
            ("counts-mentions-object", ["counts", "mentions"], {}), ("counts-linked-negative", ["counts", "linked"], -3),
            ("counts-documents-other", ["counts", "documents"], 999),
            ("counts-without-candidate-wrong", ["counts", "withoutCandidate"], 7),
            ("settings-top-array", ["settings", "top"], [3]), ("settings-keep-gold-string", ["settings", "keepGold"], "no"),
            ("settings-format-other", ["settings", "format"], "bioc"),
            ("linker-fingerprint-number", ["linker", "fingerprint"], 12)]:
        field(name, path, value)
    for key in ("shard", "shards", "input", "range", "corpusFormat", "linker", "linkerArguments", "settings", "part",
                "counts", "command", "complete"):
        merge("missing." + key, "format", {SHARD + ".json": manifest_edit(lambda m, k=key: m.pop(k))},
              fragments=('"%s"' % key,))
    merge("missing.part-crc", "format", {SHARD + ".json": manifest_edit(lambda m: m["part"].pop("crc32"))},
          fragments=('"part.crc32"',))
    merge("version-1", "format", {SHARD + ".json": manifest_edit(lambda m: m.update(version=1))},
          fragments=("version 1",))
    merge("not-complete", "format", {SHARD + ".json": manifest_edit(lambda m: m.update(complete=False))},
          fragments=("not complete",))
    merge("manifest.array", "format", {SHARD + ".json": b"[1, 2, 3]\n"}, fragments=("not a shard manifest",))
    merge("manifest.empty", "empty", {SHARD + ".json": b""})
    merge("manifest.truncated", "truncate", {SHARD + ".json": Gen(lambda S: S.bytes(SHARD + ".json")[:200])},
          fragments=("not valid JSON",))
    merge("manifest.deep", "deepjson", {SHARD + ".json": deep_array()})
    merge("manifest.large", "overlong", {SHARD + ".json": b"[\n" + (b" " * 1023 + b"\n") * (20 << 10) + b"]\n"},
          fragments=("larger",))
    merge("manifest.gzip-bomb", "gzipbomb", {SHARD + ".json": Gen(lambda S: gz(b" " * (64 << 20)) * 4)})
    merge("manifest.symlink", "special", {SHARD + ".json": Sym("shard-00000-of-00002.json")},
          fragments=("symbolic link",))
    merge("manifest.fifo", "special", {SHARD + ".json": Fifo()}, fragments=("FIFO",))
    merge("manifest.folder", "special", {SHARD + ".json": Dir()}, fragments=("folder",))
    merge("manifest.missing", "missing", {SHARD + ".json": None}, fragments=("no manifest",))
    merge("manifest.duplicated", "format", {SHARD + ".json": Link("shards/shard-00000-of-00002.json")},
          fragments=("duplicated",))
    # The parts: cut short, changed in place, swapped, missing, not files.
    part0 = "shards/shard-00000-of-00002.pubtator"
    merge("part.truncated", "truncate", {SHARD + ".pubtator": Gen(lambda S: S.bytes(SHARD + ".pubtator")[:-40])},
          fragments=("cut short",))
    merge("part.replaced-same-size", "format",
          {SHARD + ".pubtator": Gen(lambda S: S.bytes(SHARD + ".pubtator").replace(b"D", b"C"))},
          fragments=("CRC-32",))
    merge("part.swapped", "format", {part0: Link(SHARD + ".pubtator"), SHARD + ".pubtator": Link(part0)},
          names=(part0,))
    merge("part.missing", "missing", {SHARD + ".pubtator": None}, fragments=("missing",))
    merge("part.symlink", "special", {SHARD + ".pubtator": Sym("../train.txt")}, fragments=("symbolic link",))
    merge("part.fifo", "special", {SHARD + ".pubtator": Fifo()}, fragments=("not a regular file",))
    merge("part.folder", "special", {SHARD + ".pubtator": Dir()}, fragments=("not a regular file",))
    # Stray files named as shards': numbered past N, of another N, a part of another format.
    merge("folder.shard-past-n", "format", {"shards/shard-00002-of-00002.json": Link(SHARD + ".json")},
          names=("shard-00002-of-00002.json",), fragments=("does not exist",))
    merge("folder.other-n", "format", {"shards/shard-00000-of-00003.json": Link(SHARD + ".json")},
          names=("shards",), fragments=("different N",))
    merge("folder.other-format-part", "format", {SHARD + ".bioc.xml": b"<collection/>\n"},
          names=("shard-00001-of-00002.bioc.xml",), fragments=("another format",))
    add("shards.merge.folder.other-files", "format", "merge-shards", SHARD_ARGV,
        dict(files, **{"shards/notes.txt": b"the run of Monday\n", "shards/shard-00001-of-00002.json.tmp-1-1": b"{"}),
        expect="clean", ref="merge-shards", outputs=("merged.txt",))
    # An --out that would replace a shard's part or manifest: refused before any work, naming it,
    # through "./" or a link to the folder alike; every part still has its manifest's CRC-32.
    def parts_intact(work):
        for i in range(2):
            m = json.loads((work / ("shards/shard-%05d-of-00002.json" % i)).read_bytes())
            if zlib.crc32((work / "shards" / m["part"]["file"]).read_bytes()) != m["part"]["crc32"]:
                return "shard %d's part was written over" % i
        return None
    for name, out, extra in [("part-dot", "shards/./shard-00001-of-00002.pubtator", {}),
                             ("manifest-via-link", "linked/shard-00000-of-00002.json", {"linked": Sym("shards")}),
                             ("link-to-part", "out.txt", {"out.txt": Sym("shards/shard-00001-of-00002.pubtator")})]:
        add("shards.merge.out-over-shard." + name, "special", "merge-shards",
            ["merge-shards", "shards", "--out", out], dict(files, **extra), names=(os.path.basename(out),),
            after=lambda work: names_in_stderr("shard's part or manifest")(work) or parts_intact(work))

    # Reruns: a damaged manifest is linked again; a link or a FIFO at its path is refused.
    link = ["link", "--corpus", "train.txt", "--kb", "kb.txt", "--shard", "1/2", "--out", "shards"]
    rfiles = dict(files, **{"kb.txt": Link("kb.txt")})
    for name, damage in [("counts-array", manifest_edit(lambda m: m.update(counts=[1]))),
                         ("part-string", manifest_edit(lambda m: m.update(part="x"))),
                         ("truncated", Gen(lambda S: S.bytes(SHARD + ".json")[:100])),
                         ("shard-huge", manifest_edit(lambda m: m.update(shard=10 ** 30)))]:
        add("shards.rerun." + name, "format", "link", link, dict(rfiles, **{SHARD + ".json": damage}), expect="ok",
            check=manifest_relinked)
    for name, spec, fragment in [("symlink", Sym("shard-00000-of-00002.json"), "symbolic link"),
                                 ("fifo", Fifo(), "not a regular file"), ("folder", Dir(), "not a regular file")]:
        add("shards.rerun.manifest-" + name, "special", "link", link, dict(rfiles, **{SHARD + ".json": spec}),
            names=("shard-00001-of-00002.json",), after=names_in_stderr(fragment))
    add("shards.rerun.part-symlink", "special", "link", link,
        dict(rfiles, **{SHARD + ".pubtator": Sym("../outside.txt"), "outside.txt": b"keep\n"}),
        names=("shard-00001-of-00002.pubtator",),
        after=lambda work: None if (work / "outside.txt").read_bytes() == b"keep\n" else "written through the link")


# ----- running ----------------------------------------------------------------------------------------

def child_env():
    env = dict(os.environ)
    # Two workers share two cores: one thread per process keeps the run within its budget.
    env.setdefault("OMP_NUM_THREADS", "1")
    env.setdefault("MKL_NUM_THREADS", "1")
    return env


def link_or_copy(src, dst):
    try:
        os.link(src, dst)
    except OSError:
        shutil.copy2(src, dst)


def materialise(case, work, seeds):
    """Writes the case's files under `work`; returns the bytes of input written."""
    total = 0
    for rel, spec in case.files.items():
        path = work / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        if os.path.lexists(path):
            if path.is_dir() and not path.is_symlink():
                shutil.rmtree(path)
            else:
                path.unlink()   # never write through a hard link into the seeds
        if spec is None:
            continue
        if isinstance(spec, Gen):
            spec = spec.fn(seeds)
        if isinstance(spec, (bytes, bytearray)):
            spec = bytes(spec).replace(b"@WORK@", os.fsencode(str(work)))
            path.write_bytes(spec)
            total += len(spec)
        elif isinstance(spec, Link):
            link_or_copy(seeds.path(spec.rel), path)
            total += path.stat().st_size
        elif isinstance(spec, Tree):
            for src in sorted(seeds.path(spec.rel).rglob("*")):
                dst = path / src.relative_to(seeds.path(spec.rel))
                if src.is_dir():
                    dst.mkdir(parents=True, exist_ok=True)
                else:
                    dst.parent.mkdir(parents=True, exist_ok=True)
                    link_or_copy(src, dst)
                    total += dst.stat().st_size
            path.mkdir(parents=True, exist_ok=True)
        elif isinstance(spec, Dir):
            path.mkdir(parents=True, exist_ok=True)
        elif isinstance(spec, Sym):
            os.symlink(spec.target, path)
        elif isinstance(spec, Fifo):
            os.mkfifo(path)
        else:
            raise TypeError("file spec %r" % (spec,))
    return total


def snapshot(case_dir, out_dir, tmp_root):
    names = set()
    for base, dirs, files in os.walk(case_dir):
        for n in dirs + files:
            p = os.path.join(base, n)
            if p == str(out_dir) or p.startswith(str(out_dir) + os.sep):
                continue
            if re.search(r"-(wal|shm|journal)$", n) or (base == str(case_dir) and n in ("stdin", "stdout", "stderr")):
                continue
            names.add(p)
        dirs[:] = [d for d in dirs if os.path.join(base, d) != str(out_dir)]
    # the temporary root and its parent; the other cases' folders come and go meanwhile
    for folder in (Path(tmp_root), Path(tmp_root).parent):
        for n in os.listdir(folder):
            if not re.fullmatch(r"\d{4}", n):
                names.add(str(folder / n))
    return names


PAGE = os.sysconf("SC_PAGE_SIZE")


def resident_bytes(pid):
    try:
        with open("/proc/%d/statm" % pid) as f:
            return int(f.read().split()[1]) * PAGE
    except (OSError, ValueError, IndexError):
        return 0


def run_process(argv, cwd, stdin_path, out_path, err_path, timeout, bound):
    """Runs argv; returns (exit code or -signal, timed out, killed above the memory bound, peak RSS
    bytes, seconds). The resident size is also watched while it runs, so that a case that
    allocates without end is stopped at its bound instead of taking the machine's memory."""
    start = time.monotonic()
    for attempt in range(20):
        try:
            with open(stdin_path, "rb") as fin, open(out_path, "wb") as fout, open(err_path, "wb") as ferr:
                proc = subprocess.Popen(argv, cwd=cwd, stdin=fin, stdout=fout, stderr=ferr, env=child_env(),
                                        start_new_session=True)
            break
        except OSError as e:
            # the executable being replaced by a build meanwhile ("text file busy", or briefly absent)
            if e.errno not in (errno.ETXTBSY, errno.EACCES, errno.ENOENT) or attempt == 19:
                raise
            time.sleep(1)
    start = time.monotonic()
    timed_out = over = False
    delay = 0.002
    while True:
        pid, status, usage = os.wait4(proc.pid, os.WNOHANG)
        if pid:
            break
        over = resident_bytes(proc.pid) > bound
        if over or time.monotonic() - start > timeout:
            timed_out = not over
            try:
                os.killpg(proc.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
            pid, status, usage = os.wait4(proc.pid, 0)
            break
        time.sleep(delay)
        delay = min(delay * 2, 0.05)
    code = os.waitstatus_to_exitcode(status)
    proc.returncode = code
    return code, timed_out, over, usage.ru_maxrss * 1024, time.monotonic() - start


def normalise(case, stdout, work):
    text = stdout.replace(os.fsencode(str(work)), b"<WORK>")
    if case.command == "eval" and text.strip():
        try:
            value = json.loads(text)
        except ValueError:
            return text

        def strip(v):
            if isinstance(v, dict):
                return {k: strip(x) for k, x in v.items() if not k.endswith("seconds")}
            if isinstance(v, list):
                return [strip(x) for x in v]
            return v
        text = json.dumps(strip(value), sort_keys=True).encode()
    return text


def result_of(case, work):
    parts = [case._stdout]
    for rel in case.outputs:
        p = work / rel
        parts.append(b"\n--- " + rel.encode() + b"\n" + (p.read_bytes() if p.is_file() else b"<absent>"))
    return b"".join(parts)


def last_line(err):
    lines = [l for l in err.decode(errors="replace").splitlines() if l.strip() and not l.startswith("Run with --help")]
    return lines[-1][:300] if lines else ""


def check_error(case, rc, stdout, err, expected_line):
    if rc == 0:
        return "exit status 0 where an error was expected"
    text = err.decode(errors="replace")
    if not text.strip():
        return "exit status %d with nothing on standard error" % rc
    if case.names and not any(n in text for n in case.names):
        return "the error does not name %s" % " or ".join(repr(n) for n in case.names)
    if expected_line is not None:
        numbers = set()
        for n in case.names:
            numbers.update(int(m) for m in re.findall(re.escape(n) + r":(\d+):", text))
        if not numbers:
            return "the error names no line (expected %s:%s:)" % (case.names[0], expected_line)
        if expected_line != "any" and expected_line not in numbers:
            return "the error names line %s, expected %s" % (", ".join(map(str, sorted(numbers))), expected_line)
    if case.command in ("stats", "eval", "compare", "index", "export") and stdout.strip():
        return "an error and output on standard output"
    return None


def run_case(index):
    case = CASES[index]
    seeds = SEEDS
    case_dir = Path(TMP_ROOT) / ("%04d" % index)
    work = case_dir / "work"
    work.mkdir(parents=True)
    result = {"name": case.name, "kind": case.kind, "command": case.command, "index": index}
    try:
        input_bytes = materialise(case, work, seeds)
        stdin = case.stdin
        if isinstance(stdin, Gen):
            stdin = stdin.fn(seeds)
        stdin = stdin or b""
        stdin_path = case_dir / "stdin"
        stdin_path.write_bytes(stdin)
        input_bytes += len(stdin)
        out_path, err_path = case_dir / "stdout", case_dir / "stderr"
        argv = [CLI] + case.argv
        timeout = TIMEOUT * case.time_factor
        bound = MEM_FACTOR * input_bytes + MEM_BASE + EXTRA_MEMORY
        before = snapshot(case_dir, work / "out", TMP_ROOT) if case.outside else None
        rc, timed_out, over, peak, seconds = run_process(argv, work, stdin_path, out_path, err_path, timeout, bound)
        stdout, err = out_path.read_bytes(), err_path.read_bytes()
        result.update(rc=rc, seconds=seconds, peak=peak, last=last_line(err), argv=" ".join(case.argv))
        problem = None
        if over:
            problem = "memory: killed at %d MiB resident, above the bound %d MiB" % (peak >> 20, bound >> 20)
        elif timed_out:
            problem = "hang: no exit within %d s" % timeout
        elif rc < 0:
            try:
                name = signal.Signals(-rc).name
            except ValueError:
                name = "?"
            problem = "killed by signal %d (%s)" % (-rc, name)
        elif peak > bound:
            problem = "peak memory %d MiB above the bound %d MiB" % (peak >> 20, bound >> 20)
        if problem is None and case.outside:
            after = snapshot(case_dir, work / "out", TMP_ROOT)
            created = sorted(after - before)
            if created:
                problem = "wrote outside the out folder: " + ", ".join(created[:3])
            for escaped in ESCAPES:
                if escaped not in ESCAPES_BEFORE and os.path.lexists(escaped):
                    problem = "wrote outside the out folder: " + escaped
        expected_line = case.line.fn(seeds) if isinstance(case.line, Gen) else case.line
        if problem is None:
            problem = judge(case, rc, stdout, err, expected_line, work)
        if problem is None and case.after:
            problem = case.after(work)
        result["problem"] = problem
    except Exception as e:  # a mistake of the suite itself is a failure too
        import traceback
        result.update(problem="suite error: %s" % traceback.format_exc(limit=3).strip().splitlines()[-1],
                      rc=None, last="", argv=" ".join(case.argv), seconds=0, peak=0)
    finally:
        if KEEP is None:
            shutil.rmtree(case_dir, ignore_errors=True)
    return result


def judge(case, rc, stdout, err, expected_line, work):
    if case.expect == "error":
        return check_error(case, rc, stdout, err, expected_line)
    if case.expect in ("ok", "clean") and rc != 0:
        return "exit status %d where success was expected" % rc
    if rc != 0:  # either
        return check_error(case, rc, stdout, err, expected_line)
    case._stdout = normalise(case, stdout, work)
    if case.expect == "clean" or (case.expect == "either" and case.ref):
        reference = REF_RESULTS.get(case.ref)
        if reference is None:
            return "its clean reference (control.%s) failed" % case.ref
        if result_of(case, work) != reference:
            return "output differs from the clean input's (control.%s)" % case.ref
        return None
    if case.expect == "ok" and case.kind == "control":
        return None
    if case.check:
        try:
            return case.check(stdout, work)
        except Exception as e:
            return "output not as expected: %s: %s" % (type(e).__name__, e)
    return None


def run_case_keep_output(index):
    """A control: its normalised output becomes the reference of the 'clean' cases."""
    case = CASES[index]
    case_dir = Path(TMP_ROOT) / ("%04d" % index)
    global KEEP
    keep, KEEP = KEEP, "control"
    try:
        result = run_case(index)
        work = case_dir / "work"
        if result.get("problem") is None and result.get("rc") == 0:
            stdout = (case_dir / "stdout").read_bytes()
            case._stdout = normalise(case, stdout, work)
            result["reference"] = result_of(case, work)
    finally:
        KEEP = keep
        if KEEP is None:
            shutil.rmtree(case_dir, ignore_errors=True)
    return result


# Where an absolute or ../ split name of an export case would land outside the case folder.
ESCAPES = ["/tmp/hostile-escaped" + s for s in ("", ".pubtator.txt", ".bioc.xml")]
ESCAPES_BEFORE = set()
CLI = None
SEEDS = None
TMP_ROOT = None
KEEP = None
TIMEOUT = DEFAULT_TIMEOUT
EXTRA_MEMORY = 0
HAVE_TORCH = True
REF_RESULTS = {}


def main():
    global CLI, SEEDS, TMP_ROOT, KEEP, TIMEOUT, ESCAPES_BEFORE, EXTRA_MEMORY, HAVE_TORCH
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--cli", default=str(REPO / "build" / "default" / "bin" / "linkscope-cli"))
    parser.add_argument("--list", action="store_true", help="print the case names and exit")
    parser.add_argument("--only", action="append", default=[], metavar="SUBSTRING",
                        help="run only the cases whose name contains SUBSTRING (repeatable; core and extended)")
    parser.add_argument("--keep", metavar="DIR", help="generate into DIR and keep every file")
    parser.add_argument("--full", action="store_true", help="also run the extended cases (EXTENDED)")
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--timeout", type=float, default=DEFAULT_TIMEOUT,
                        help="seconds per case (half of it for train, pretrain and init-model)")
    parser.add_argument("--sanitized", action="store_true",
                        help="the CLI is an ASan/UBSan build: 5 x the time limits, 1 GiB more memory (shadow, quarantine)")
    args = parser.parse_args()
    define_cases()
    missing = [n for n in EXTENDED if not any(c.name == n for c in CASES)]
    if missing:
        raise SystemExit("EXTENDED names no case: " + " ".join(missing))
    # --only picks among all cases (core and extended); without it, --full adds the extended ones
    selected = [i for i, c in enumerate(CASES) if any(s in c.name for s in args.only)] if args.only else \
        [i for i, c in enumerate(CASES) if args.full or not c.full]
    if args.list:
        for i in selected:
            c = CASES[i]
            print("%-62s %-10s %-18s %-7s%s" % (c.name, c.kind, c.command, c.expect, " (full)" if c.full else ""))
        print("%d cases" % len(selected))
        return 0
    CLI = os.path.abspath(args.cli)
    TIMEOUT = args.timeout * (5 if args.sanitized else 1)
    EXTRA_MEMORY = GIB if args.sanitized else 0
    if not os.access(CLI, os.X_OK):
        print("hostile_inputs: no executable linkscope-cli at %s" % CLI, file=sys.stderr)
        return 2
    HAVE_TORCH = subprocess.run([CLI, "init-model", "--help"], stdout=subprocess.DEVNULL,
                                stderr=subprocess.DEVNULL, env=child_env()).returncode == 0
    skipped = []
    if not HAVE_TORCH:
        skipped = [i for i in selected if TORCH_CASES.match(CASES[i].name)]
        selected = [i for i in selected if i not in set(skipped)]
    # the controls the selected cases compare with run too
    needed = {CASES[i].ref for i in selected if CASES[i].ref}
    selected = sorted(set(selected) | {i for i, c in enumerate(CASES) if c.kind == "control" and
                                       c.name[len("control."):] in needed})
    if args.keep:
        root = Path(args.keep).resolve()
        root.mkdir(parents=True, exist_ok=True)
        KEEP = str(root)
    else:
        root = Path(tempfile.mkdtemp(prefix="linkscope-hostile-"))
    started = time.monotonic()
    try:
        seeds_dir = root / "seeds"
        if seeds_dir.exists():
            shutil.rmtree(seeds_dir)
        build_seeds(CLI, seeds_dir)
        SEEDS = Seeds(seeds_dir)
        TMP_ROOT = str(root / "cases")
        if os.path.exists(TMP_ROOT):
            shutil.rmtree(TMP_ROOT)
        os.makedirs(TMP_ROOT)
        setup_seconds = time.monotonic() - started
        ESCAPES_BEFORE = {e for e in ESCAPES if os.path.lexists(e)}
        controls = [i for i in selected if CASES[i].kind == "control"]
        others = [i for i in selected if CASES[i].kind != "control"]
        ctx = multiprocessing.get_context("fork")
        results = []
        with ctx.Pool(args.jobs) as pool:
            for r in pool.imap_unordered(run_case_keep_output, controls):
                results.append(r)
                if "reference" in r:
                    REF_RESULTS[r["name"][len("control."):]] = r.pop("reference")
        # heaviest first, so that the pool ends together
        others.sort(key=lambda i: (CASES[i].kind not in ("gzipbomb", "overlong"), i))
        with ctx.Pool(args.jobs) as pool:
            for r in pool.imap_unordered(run_case, others, chunksize=1):
                results.append(r)
    finally:
        if KEEP is None:
            shutil.rmtree(root, ignore_errors=True)
    if skipped:
        print("linkscope-cli was built without LibTorch: %d cases of its model commands skipped" % len(skipped))
    return report(results, time.monotonic() - started, setup_seconds)


def report(results, seconds, setup_seconds):
    results.sort(key=lambda r: r["index"])
    failed = [r for r in results if r["problem"] and r["name"] not in KNOWN_FAILURES]
    known = [r for r in results if r["problem"] and r["name"] in KNOWN_FAILURES]
    fixed = [r for r in results if not r["problem"] and r["name"] in KNOWN_FAILURES]
    for r in failed:
        status = "signal %d" % -r["rc"] if r.get("rc") is not None and r["rc"] < 0 else "exit %s" % r.get("rc")
        print("FAIL %s: %s; linkscope-cli %s; %s; stderr: %s" % (r["name"], r["problem"], r["argv"][:200], status,
                                                                  r["last"]))
    if known:
        print("\nknown failures (KNOWN_FAILURES, not counted):")
        for r in known:
            print("  KNOWN %s: %s -- %s; stderr: %s" % (r["name"], KNOWN_FAILURES[r["name"]], r["problem"], r["last"]))
    for r in fixed:
        print("  FIXED %s passes now: remove it from KNOWN_FAILURES" % r["name"])

    def table(key):
        counts = {}
        for r in results:
            c = counts.setdefault(r[key], [0, 0, 0])
            c[0] += 1
            if r["problem"] and r["name"] in KNOWN_FAILURES:
                c[2] += 1
            elif r["problem"]:
                c[1] += 1
        return ", ".join("%s %d%s%s" % (k, v[0], " (%d failed)" % v[1] if v[1] else "",
                                         " (%d known)" % v[2] if v[2] else "") for k, v in sorted(counts.items()))

    slowest = sorted(results, key=lambda r: -r.get("seconds", 0))[:3]
    heaviest = max(results, key=lambda r: r.get("peak", 0)) if results else None
    print("\nhostile inputs: %d cases run, %d passed, %d failed, %d known failures; %.0f s (set-up %.0f s)" % (
        len(results), len(results) - len(failed) - len(known), len(failed), len(known), seconds, setup_seconds))
    print("by kind: " + table("kind"))
    print("by command: " + table("command"))
    print("slowest: " + ", ".join("%s %.1f s" % (r["name"], r.get("seconds", 0)) for r in slowest))
    if heaviest:
        print("largest peak memory: %s %d MiB" % (heaviest["name"], heaviest.get("peak", 0) >> 20))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
