#!/usr/bin/env python3
"""Seed corpora of the fuzz targets (tests/fuzz/fuzz_*.cpp), generated, not copied.

Text inputs are taken from the string constants of the test suites (parsed out of tests/*.cpp
and tests/*.h as C++ string literals, so they follow the tests when those change) and from the
demo project in resources/demo/; formats that core writes (BioC, brat, the sparse index, the kNN
datastore, the SQLite project file, safetensors, tokenizer folders, config.json, the decisions
log, run folders, a checkpoint's tables) are written by core's own writers: this script puts the
corpus and dictionary fixtures in a folder and runs linkscope_fuzz_seeds (tests/fuzz/seed_writer.cpp)
on it.

    tests/fuzz/make_seeds.py [--out build/fuzz/seeds] [--seed-writer build/fuzz/bin/linkscope_fuzz_seeds]

writes OUT/<target>/<name> for every target (the target's name without "fuzz_"). Inputs that
stand for several files join them with NUL bytes, as tests/fuzz/fuzz_support.h splits them. A
fixture that has disappeared from the tests is reported and skipped; the script fails only when
a target would be left without any seed.
"""
import argparse
import gzip
import io
import json
import os
import re
import shutil
import sqlite3
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
TESTS = ROOT / "tests"
DEMO = ROOT / "resources" / "demo"

TARGETS = [
    "pubtator", "bioc", "brat", "medic", "ctd", "umls", "spelling_map", "pmid_list", "project_manifest",
    "project_store", "decision_log", "per_mention", "bert_config", "tokenizer", "safetensors", "sparse_index",
    "knn_datastore", "dense_index", "run_directory", "line_reader", "mention_facts", "curation_curve",
    "resume_tables", "sentencepiece", "torch_pickle", "bioc_json", "bigbio", "tokenizer_json", "shard_manifest",
]

warnings = []


# ----- C++ string literals ----------------------------------------------------------------------

_SIMPLE_ESCAPES = {"n": b"\n", "t": b"\t", "r": b"\r", "0": b"\0", "\\": b"\\", '"': b'"', "'": b"'",
                   "?": b"?", "a": b"\a", "b": b"\b", "f": b"\f", "v": b"\v"}


def _skip_space(text, i):
    """Skips whitespace and comments."""
    while i < len(text):
        if text[i].isspace():
            i += 1
        elif text.startswith("//", i):
            end = text.find("\n", i)
            i = len(text) if end < 0 else end + 1
        elif text.startswith("/*", i):
            end = text.find("*/", i + 2)
            i = len(text) if end < 0 else end + 2
        else:
            break
    return i


def _ordinary_literal(text, i):
    """The bytes of the "..." literal whose opening quote is at i, and the index after it."""
    assert text[i] == '"'
    out = bytearray()
    i += 1
    while True:
        c = text[i]
        if c == '"':
            return bytes(out), i + 1
        if c == "\n":
            raise ValueError("newline inside a string literal")
        if c != "\\":
            out += c.encode("utf-8")
            i += 1
            continue
        e = text[i + 1]
        if e == "x":  # as C++ does: every hex digit that follows belongs to the escape
            j = i + 2
            while j < len(text) and text[j] in "0123456789abcdefABCDEF":
                j += 1
            out.append(int(text[i + 2:j], 16) & 0xFF)
            i = j
        elif e in "01234567":
            j = i + 1
            while j < len(text) and j < i + 4 and text[j] in "01234567":
                j += 1
            out.append(int(text[i + 1:j], 8) & 0xFF)
            i = j
        elif e in _SIMPLE_ESCAPES:
            out += _SIMPLE_ESCAPES[e]
            i += 2
        else:
            raise ValueError("unknown escape \\" + e)


def _one_literal(text, i):
    """A literal at i (ordinary, raw, or u8-prefixed), or None when there is none."""
    if text.startswith("u8", i):
        i += 2
    if text.startswith('R"', i):
        open_paren = text.index("(", i)
        delimiter = text[i + 2:open_paren]
        close = text.index(")" + delimiter + '"', open_paren)
        return text[open_paren + 1:close].encode("utf-8"), close + len(delimiter) + 2
    if i < len(text) and text[i] == '"':
        return _ordinary_literal(text, i)
    return None


def _literals(text, i):
    """Adjacent literals from i on, concatenated as the compiler does; (bytes, index after)."""
    out = b""
    found = False
    while True:
        i = _skip_space(text, i)
        literal = _one_literal(text, i)
        if literal is None:
            break
        out += literal[0]
        i = literal[1]
        found = True
    if not found:
        raise ValueError("no string literal")
    return out, i


def _source(path):
    return (ROOT / path).read_text(encoding="utf-8")


def literal_after(path, anchor):
    """The literal(s) right after the regular expression `anchor` in the file, or None."""
    try:
        text = _source(path)
        match = re.search(anchor, text)
        if match is None:
            raise ValueError("anchor not found: " + anchor)
        return _literals(text, match.end())[0]
    except (OSError, ValueError) as e:
        warnings.append(f"{path}: {e}")
        return None


def constant(path, name):
    """The string constant `name` (constexpr std::string_view, const std::string, ...)."""
    return literal_after(path, r"\b" + re.escape(name) + r"\s*=\s*")


def literal_list(path, name):
    """The literals of a braced list `name = { "a", "b", ... }`, or None."""
    try:
        text = _source(path)
        match = re.search(r"\b" + re.escape(name) + r"\s*=\s*\{", text)
        if match is None:
            raise ValueError("list not found: " + name)
        i, items = match.end(), []
        while True:
            i = _skip_space(text, i)
            if text[i] == "}":
                return items
            value, i = _literals(text, i)
            items.append(value)
            i = _skip_space(text, i)
            if text[i] == ",":
                i += 1
    except (OSError, ValueError, IndexError) as e:
        warnings.append(f"{path}: {e}")
        return None


def demo(name):
    return (DEMO / name).read_bytes()


# ----- seeds ------------------------------------------------------------------------------------

class Seeds:
    def __init__(self, out):
        self.out = out
        self.count = {}

    def add(self, target, name, data):
        if data is None:
            return
        folder = self.out / target
        folder.mkdir(parents=True, exist_ok=True)
        (folder / name).write_bytes(data)
        self.count[target] = self.count.get(target, 0) + 1


def joined(*parts):
    return b"\0".join(parts)


def umls_rows():
    """MRCONSO rows built the way tests/kb/test_kb_umls.cpp builds its fixture (mrconso())."""
    def row(cui, string, lat="ENG", ts="S", stt="VO", ispref="N", sab="MSH", suppress="N"):
        return (f"{cui}|{lat}|{ts}|L0000001|{stt}|S0000001|{ispref}|A0000001||M0000001|D000001|{sab}|PT|D000001|"
                f"{string}|0|{suppress}|256|\n").encode("utf-8")

    def preferred(cui, string, lat="ENG"):
        return row(cui, string, lat=lat, ts="P", stt="PF", ispref="Y")

    return (row("C0030685", "Discharge, Patient") + preferred("C0600083", "Body Fluid Discharge") +
            row("C0030685", "Discharge") + row("C0030685", "Sortie du patient", lat="FRE") +
            preferred("C0030685", "Patient Discharge") + row("C0600083", "Discharge") +
            row("C0600083", "Obsolete discharge", suppress="O") + row("C0600083", "Editor suppressed", suppress="E") +
            row("C0600083", "Source suppressed", suppress="Y") + row("C0000005", "Only French", lat="FRE") +
            row("C0000010", "From SNOMED", sab="SNOMEDCT_US") + row("C0000010", "Zeta first kept"))


def cuis_far_apart():
    """MRCONSO and MRSTY rows whose CUIs lie on far-apart pages of the loader's CUI index (4,096
    CUIs a page): the lowest and highest CUI numbers, both sides of a page boundary, and a CUI
    seen again after others, as in tests/kb/test_kb_umls.cpp's cuisFarApartAndSeenAgain."""
    def row(cui, string):
        return (f"{cui}|ENG|P|L0000001|PF|S0000001|Y|A0000001||M0000001|D000001|MSH|PT|D000001|"
                f"{string}|0|N|256|\n").encode("utf-8")

    def sty(cui, tui, name):
        return f"{cui}|{tui}|A1.2|{name}|AT0000001|256|\n".encode("utf-8")

    cuis = ["C0000000", "C9999999", "C0004095", "C0004096", "C5000000"]
    conso = b"".join(row(cui, f"Name {i}") for i, cui in enumerate(cuis)) + row("C0000000", "Seen again")
    types = b"".join(sty(cui, "T047", "Disease or Syndrome") for cui in reversed(cuis))
    return joined(conso, types)


def sentencepiece_seed():
    """A tiny SentencePiece model's bytes from tests/encoder/xlmr_reference.py, or None."""
    import subprocess
    import tempfile
    with tempfile.TemporaryDirectory() as folder:
        run = subprocess.run(["/usr/bin/python3", str(TESTS / "encoder" / "xlmr_reference.py"), "corpus", folder],
                             capture_output=True)
        model = Path(folder) / "sentencepiece.bpe.model"
        if run.returncode != 0 or not model.exists():
            warnings.append("no SentencePiece seed model (/usr/bin/python3 with python3-sentencepiece needed)")
            return None
        return model.read_bytes()


TORCH_SEED_SCRIPT = r"""
import io, sys, zipfile, torch
out = sys.argv[1]
w = torch.arange(12, dtype=torch.float32).reshape(3, 4)
state = {"bert.embeddings.word_embeddings.weight": w, "cls.predictions.decoder.weight": w,
         "bert.t": w.t(), "bert.view": torch.arange(20.0)[5:9], "bert.h": w.half(), "bert.b": w.bfloat16()}
torch.save(state, out + "/zip.bin")
torch.save(state, out + "/legacy.bin", _use_new_zipfile_serialization=False)
torch.save(torch.nn.Parameter(torch.tensor([0.5])), out + "/parameter.pt")
with zipfile.ZipFile(out + "/zip.bin") as archive:
    pickle = [name for name in archive.namelist() if name.endswith("/data.pkl")][0]
    open(out + "/data.pkl", "wb").write(archive.read(pickle))
"""


def torch_pickle_seeds():
    """torch.save files written by Debian's python3-torch, and the pickle of the zip one, or {}."""
    import tempfile
    with tempfile.TemporaryDirectory() as folder:
        run = subprocess.run(["/usr/bin/python3", "-c", TORCH_SEED_SCRIPT, folder], capture_output=True)
        if run.returncode != 0:
            warnings.append("no torch.save seeds (/usr/bin/python3 with python3-torch needed)")
            return {}
        # The target's first byte: 0 the file as is, 1 a zip's data.pkl (fuzz_torch_pickle.cpp).
        seeds = {name: b"\0" + (Path(folder) / name).read_bytes() for name in ["zip.bin", "legacy.bin", "parameter.pt"]}
        seeds["data.pkl"] = b"\1" + (Path(folder) / "data.pkl").read_bytes()
        return seeds


def write_text_seeds(seeds):
    corpus_h = "tests/corpus/corpus_fixtures.h"
    export_h = "tests/corpus/export_fixtures.h"
    pubtator = {
        "ncbi-style.txt": constant(corpus_h, "kNcbiStyle"),
        "bc5cdr-document.txt": constant(corpus_h, "kBc5cdrDocument"),
        "padded-mention.txt": constant(corpus_h, "kPaddedMention"),
        "export-fixture.txt": constant(export_h, "kExportFixture"),
        "demo-train.txt": demo("demo-train.txt"),
        "demo-test.txt": demo("demo-test.txt"),
    }
    for name, data in pubtator.items():
        seeds.add("pubtator", name, data)

    dictionary_cpp = "tests/kb/test_kb_dictionary.cpp"
    kbs = {
        "medic.txt": constant(dictionary_cpp, "kMedic"),
        "biosyn.txt": constant(dictionary_cpp, "kBiosyn"),
        "eval-kb.txt": constant("tests/eval/eval_fixtures.h", "kFixtureKb"),
        "demo-kb.txt": demo("demo-kb.txt"),
    }
    for name, data in kbs.items():
        seeds.add("medic", name, data)

    ctd_cpp = "tests/kb/test_kb_ctd.cpp"
    preamble = constant(ctd_cpp, "kPreamble")
    disease_header, disease_rows = constant(ctd_cpp, "kDiseaseHeader"), constant(ctd_cpp, "kDiseaseRows")
    chemical_header, chemical_rows = constant(ctd_cpp, "kChemicalHeader"), constant(ctd_cpp, "kChemicalRows")
    if None not in (preamble, disease_header, disease_rows, chemical_header, chemical_rows):
        seeds.add("ctd", "diseases.tsv", preamble + disease_header + disease_rows)
        seeds.add("ctd", "chemicals.tsv", preamble + chemical_header + chemical_rows)
        seeds.add("ctd", "diseases-no-header.tsv", disease_rows)

    umls_cpp = "tests/kb/test_kb_umls.cpp"
    mrsty = literal_after(umls_cpp, r"std::string mrsty\(\)\s*\{\s*return")
    seeds.add("umls", "mrconso-only", umls_rows())
    if mrsty is not None:
        seeds.add("umls", "mrconso-mrsty", joined(umls_rows(), mrsty))
    seeds.add("umls", "cuis-far-apart", cuis_far_apart())

    spelling_cpp = "tests/text/test_spelling_map.cpp"
    seeds.add("spelling_map", "ok.txt", literal_after(spelling_cpp, r'write\(\s*"ok\.txt",'))
    seeds.add("spelling_map", "dup.txt", literal_after(spelling_cpp, r'write\(\s*"dup\.txt",'))

    seeds.add("pmid_list", "trng.txt",
              literal_after("tests/corpus/test_corpus_splits.cpp", r'write\("corpus_pubtator_pmids_trng\.txt",'))
    demo_pmids = sorted({line.split(b"|")[0] for line in demo("demo-train.txt").splitlines() if b"|t|" in line})
    seeds.add("pmid_list", "demo-train-pmids.txt", b"\n".join(demo_pmids) + b"\n")

    # Manifests: the demo's (its files exist beside the harness's manifest, see
    # fuzz_project_manifest.cpp), the test's, and one per vocabulary format.
    seeds.add("project_manifest", "demo-project.json", demo("demo-project.json"))
    seeds.add("project_manifest", "relative-ctd.json",
              literal_after("tests/project/test_project_manifest.cpp", r"relativePathsResolveAgainstTheManifest\(\)[\s\S]*?manifest\("))
    for name, kb in {"umls": {"path": "MRCONSO.RRF", "format": "umls", "semanticTypes": "MRSTY.RRF"},
                     "ctd": {"path": "CTD_diseases.tsv", "format": "ctd"}}.items():
        manifest = {"format": "linkscope-project-manifest", "version": 1, "name": name, "description": "seed",
                    "knowledgeBase": kb,
                    "corpora": [{"split": "train", "path": "train.txt", "format": "pubtator"},
                                {"split": "dev", "path": "c.txt"}]}
        seeds.add("project_manifest", name + ".json", json.dumps(manifest, indent=1).encode())

    # Shard manifests as link --shard writes them (app/cli/shard_manifest.cpp), PubTator and BioC.
    for name, fmt, ext, header, footer in [("pubtator", "pubtator", "pubtator", 0, 0),
                                           ("bioc", "bioc", "bioc.xml", 120, 14)]:
        shard = {"format": "linkscope-link-shard", "version": 2, "shard": 1, "shards": 4,
                 "input": {"path": "/data/corpus", "size": 123456, "mtimeNs": 1795962464120705239, "crc32": 1318717711},
                 "range": {"bytes": 40000, "crc32": 17}, "corpusFormat": fmt,
                 "linker": {"description": "sparse char 1-2", "fingerprint": "dictionary 95 names"},
                 "linkerArguments": ["--kb", "kb.txt", [1931, 1795910584623826133]],
                 "settings": {"top": 1, "nilBelow": None, "keepGold": False, "format": fmt},
                 "part": {"file": "shard-00001-of-00004." + ext, "bytes": 5000, "crc32": 4294967295,
                          "headerBytes": header, "footerBytes": footer, "documents": 12},
                 "counts": {"documents": 12, "mentions": 300, "linked": 250, "nilBelow": 20, "unranked": 10,
                            "withoutCandidate": 20},
                 "command": ["linkscope-cli", "link", "--shard", "1/4"], "complete": True}
        seeds.add("shard_manifest", name + ".json", json.dumps(shard, indent=2).encode())

    seeds.add("decision_log", "good-line.jsonl", (constant("tests/curation/test_decision_log.cpp", "kGoodLine") or b"") + b"\n")
    seeds.add("per_mention", "runs.jsonl",
              literal_after("tests/eval/test_eval_per_mention.cpp", r'write\("runs\.jsonl",'))
    # The group fields are read from the same files.
    seeds.add("mention_facts", "runs.jsonl",
              literal_after("tests/eval/test_eval_per_mention.cpp", r'write\("runs\.jsonl",'))
    # simulate-curation --csv curves as the repository keeps them (docs/data).
    for curve in sorted((ROOT / "docs" / "data").glob("curation-*.csv")):
        seeds.add("curation_curve", curve.name, curve.read_bytes())

    config_cpp = "tests/encoder/test_bert_config.cpp"
    seeds.add("bert_config", "sapbert.json", constant(config_cpp, "kSapBertConfig"))
    seeds.add("bert_config", "required-only.json", constant(config_cpp, "kRequiredOnly"))

    tokenizer_cpp = "tests/encoder/test_tokenizer.cpp"
    vocabulary = literal_list(tokenizer_cpp, "kVocabulary")
    hf_config = literal_after(tokenizer_cpp, r'readsHuggingFaceConfig\(\)[\s\S]*?"tokenizer_config\.json",')
    if vocabulary:
        vocab = b"\n".join(vocabulary) + b"\n"
        seeds.add("tokenizer", "test-vocabulary", vocab)
        if hf_config is not None:
            seeds.add("tokenizer", "test-hf-config", joined(vocab, hf_config))
        added = literal_after(tokenizer_cpp, r'"added_tokens\.json",\s*(?=R"\(\{"\[E\])')
        special = literal_after(tokenizer_cpp, r'"special_tokens_map\.json",')
        config = literal_after(tokenizer_cpp, r'"tokenizer_config\.json",\s*(?=R"\(\{"do_lower_case": false)')
        if None not in (added, special, config):
            seeds.add("tokenizer", "test-all-files", joined(vocab, config, special, added))
        # tokenizer.json as tokenizers writes it for BertTokenizerFast, over the same vocabulary.
        tokens = [t.decode("utf-8") for t in vocabulary]
        tokenizer_json = {
            "version": "1.0",
            "added_tokens": [{"id": i, "content": t, "special": True, "normalized": False}
                             for i, t in enumerate(tokens) if t.startswith("[") and t.endswith("]")],
            "normalizer": {"type": "BertNormalizer", "clean_text": True, "handle_chinese_chars": True,
                           "strip_accents": None, "lowercase": True},
            "pre_tokenizer": {"type": "BertPreTokenizer"},
            "model": {"type": "WordPiece", "unk_token": "[UNK]", "continuing_subword_prefix": "##",
                      "max_input_chars_per_word": 100, "vocab": {t: i for i, t in enumerate(tokens)}},
        }
        seeds.add("tokenizer_json", "test-vocabulary.json", json.dumps(tokenizer_json).encode("utf-8"))

    # A small Unigram model trained by Debian's python3-sentencepiece (as test_xlmr's reference);
    # without it, the header bytes of a model file alone.
    spm_model = sentencepiece_seed()
    seeds.add("sentencepiece", "unigram.model", spm_model or b"\n\x0e\n\x05<unk>\x15\x00\x00\x00\x00\x18\x02")

    old_run = constant("tests/train/test_run_directory.cpp", "kOldRunJson")
    for preset in sorted((ROOT / "models").glob("*.json")):
        if old_run is not None and b'"method"' in preset.read_bytes():
            seeds.add("run_directory", "old-run-" + preset.stem, joined(old_run, preset.read_bytes()))
    if old_run is not None:
        seeds.add("run_directory", "run-json-only", old_run)
        # checkpoint/state.json as the trainer writes it (train/loop_state.cpp, toJson).
        state = (b'{\n  "collapsed_validations": 0,\n  "epoch": 1,\n  "epochs_without_improvement": 0,\n'
                 b'  "global_step": 12,\n  "log_bytes": 2048,\n  "scalars": {\n    "sparse_weight": 1.5\n  },\n'
                 b'  "step": 4,\n  "validated": false\n}\n')
        biosyn = ROOT / "models" / "biosyn.json"
        if biosyn.exists():
            seeds.add("run_directory", "run-with-checkpoint-state", joined(old_run, biosyn.read_bytes(), state))

    # What every reader reads through: plain, gzip (also two members), BOM + CRLF, CR only.
    ncbi, kb = pubtator["ncbi-style.txt"], kbs["medic.txt"]
    if ncbi is not None and kb is not None:
        seeds.add("line_reader", "plain.txt", ncbi)
        seeds.add("line_reader", "ncbi.txt.gz", gzip.compress(ncbi, mtime=0))
        seeds.add("line_reader", "two-members.gz", gzip.compress(kb, mtime=0) + gzip.compress(ncbi, mtime=0))
        seeds.add("line_reader", "bom-crlf.txt", b"\xef\xbb\xbf" + kb.replace(b"\n", b"\r\n"))
        seeds.add("line_reader", "cr-only.txt", kb.replace(b"\n", b"\r"))
    return pubtator, kbs


def shrink_sqlite(path):
    """Rewrites a project file with 512-byte pages and no WAL: the same content, a smaller seed."""
    connection = sqlite3.connect(path)
    try:
        connection.execute("PRAGMA journal_mode = DELETE")
        connection.execute("PRAGMA page_size = 512")
        connection.execute("VACUUM")
    finally:
        connection.close()


def faiss_payloads():
    """The FAISS payloads of the three index kinds DenseIndex::save writes, built field by field
    as FAISS 1.7.3's write_index lays them out (faiss/impl/index_write.cpp), small: the seeds of
    fuzz_dense_index (kind byte, 2-byte dimension - 1, payload). The fuzz build has no FAISS
    writer of its own when FAISS is absent, and these are what the walk must accept."""
    import struct
    import random
    rng = random.Random(7)

    def header(d, ntotal):
        # d, ntotal, two unused idx_t (1 << 20), is_trained, METRIC_INNER_PRODUCT
        return struct.pack("<iqqq?i", d, ntotal, 1 << 20, 1 << 20, True, 0)

    def floats(values):
        return struct.pack("<%df" % len(values), *values)

    def vector(fmt, values):
        return struct.pack("<Q", len(values)) + struct.pack("<%d%s" % (len(values), fmt), *values)

    def flat(d, n):
        values = [rng.uniform(-1, 1) for _ in range(d * n)]
        return b"IxFI" + header(d, n) + struct.pack("<Q", d * n) + floats(values)

    d = 4
    seeds = {"flat-3x4": (0, d, flat(d, 3)), "flat-empty": (0, d, flat(d, 0))}
    # HNSW of two nodes on level 0, M = 2 (four neighbour slots per node on level 0).
    slots = 4
    hnsw = (b"IHNf" + header(d, 2) + vector("d", [1.0]) + vector("i", [0, slots]) + vector("i", [1, 1]) +
            vector("Q", [0, slots, 2 * slots]) + vector("i", [1, -1, -1, -1, 0, -1, -1, -1]) +
            struct.pack("<iiiii", 0, 0, 40, 16, 1) + flat(d, 2))
    seeds["hnsw-2"] = (1, d, hnsw)
    # IVF-PQ: one list holding two vectors, M = 2 sub-quantizers of 8 bits (code size 2).
    m, nbits = 2, 8
    ivf = (b"IwPQ" + header(d, 2) + struct.pack("<QQ", 1, 1) + flat(d, 1) + b"\0" + vector("q", []) +
           struct.pack("<?Q", True, 2) + struct.pack("<QQQ", d, m, nbits) +
           vector("f", [rng.uniform(-1, 1) for _ in range(d << nbits)]) +
           b"ilar" + struct.pack("<QQ", 1, 2) + b"full" + vector("Q", [2]) + bytes([3, 4, 5, 6]) +
           struct.pack("<qq", 0, 1))
    seeds["ivfpq-1-list"] = (2, d, ivf)
    return {name: bytes([kind]) + struct.pack("<H", dim - 1) + payload for name, (kind, dim, payload) in seeds.items()}


def write_core_seeds(seeds, seed_writer, pubtator, kbs):
    if not seed_writer.is_file():
        sys.exit(f"make_seeds.py: {seed_writer} is missing: build the fuzz preset first "
                 "(cmake --preset fuzz && cmake --build --preset fuzz)")
    with tempfile.TemporaryDirectory(prefix="linkscope-fuzz-fixtures-") as tmp:
        fixtures = Path(tmp)
        (fixtures / "pubtator").mkdir()
        (fixtures / "kb").mkdir()
        for name, data in pubtator.items():
            if data is not None:
                (fixtures / "pubtator" / name).write_bytes(data)
        for name, data in kbs.items():
            if data is not None:
                (fixtures / "kb" / name).write_bytes(data)
        env = dict(os.environ, ASAN_OPTIONS="detect_leaks=0")
        subprocess.run([str(seed_writer), str(fixtures), str(seeds.out), str(ROOT / "models")], check=True, env=env)
    write_bioc_reference_seeds(seeds.out / "bioc")
    for target in ["bioc", "brat", "sparse_index", "knn_datastore", "project_store", "safetensors", "tokenizer",
                   "bert_config", "decision_log", "run_directory", "resume_tables"]:
        folder = seeds.out / target
        if folder.is_dir():
            seeds.count[target] = sum(1 for _ in folder.iterdir())
    for project in (seeds.out / "project_store").glob("*.linkscope"):
        shrink_sqlite(project)


# A BioC document whose title holds a character reference: valid, out of range, wrapping past
# 32 bits, long with leading zeros, malformed, and "&#0;" inside CDATA (text, not a reference).
# The reader checks every numeric reference itself (corpus/xml_prescan.h).
BIOC_REFERENCE_SEED = (b'<?xml version="1.0" encoding="UTF-8"?>\n<collection><source>seed</source>\n'
                       b'<document><id>7</id>\n<passage><infon key="type">title</infon><offset>0</offset>'
                       b'<text>F@REF@ver</text></passage>\n</document>\n</collection>\n')
BIOC_REFERENCES = [b"&#xe9;", b"&#x1F600;", b"&#0;", b"&#xD800;", b"&#x110000;", b"&#4294967296;",
                   b"&#x10000D800;", b"&#x100000041;", b"&#00000000000101;", b"&#x000000000065;", b"&#;",
                   b"&#x;", b"&#12a;", b"&#65", b"<![CDATA[&#0;]]>"]


BIOC_JSON_SEED = (
    b'{"source":"seed","date":"20260101","key":"k","infons":{},"documents":[\n'
    b'{"id":"1001","infons":{},"passages":[{"infons":{"type":"title"},"offset":0,"text":"BRCA1 causes '
    b'breast cancer.","sentences":[],"annotations":[{"id":"1","infons":{"type":"Disease","identifier":'
    b'"D001943|-1","individual_mentions":"breast|cancer"},"text":"breast cancer","locations":[{"offset":13,'
    b'"length":13}]}],"relations":[]},{"infons":{"type":"abstract"},"offset":28,"text":"\u03b1-synuclein '
    b'and naloxone.","annotations":[{"id":"2","infons":{"type":"Chemical","identifier":"MESH:D009270"},'
    b'"text":"naloxone","locations":[{"offset":44,"length":8}]}]}],"relations":[{"id":"R1","infons":'
    b'{"type":"CID","argument1":"D009270","argument2":"D001943"},"nodes":[]}]}\n]}\n')
PUBTATOR3_SEED = (
    b'{"PubTator3":[{"_id":"1|None","id":"1","infons":{},"passages":[{"infons":{"type":"title"},"offset":0,'
    b'"text":"Metformin for diabetes.","annotations":[{"id":"1","infons":{"identifier":null,"type":"Disease",'
    b'"valid":true},"text":"diabetes","locations":[{"offset":14,"length":8}]}]}],"relations":[{"id":"R1",'
    b'"infons":{"role1":{"identifier":"@X"},"type":"Treat"},"nodes":[]}]}]}\n')
BIGBIO_SEED = (
    b'{"id":"0","document_id":"227508","passages":[{"id":"1","type":"title","text":["Naloxone reverses '
    b'hypertension."],"offsets":[[0,31]]},{"id":"2","type":"abstract","text":["\u03b1 too."],"offsets":'
    b'[[32,38]]}],"entities":[{"id":"3","type":"Chemical","text":["Naloxone"],"offsets":[[0,8]],'
    b'"normalized":[{"db_name":"MESH","db_id":"D009270"}]},{"id":"4","type":"Disease","text":'
    b'["hypertension"],"offsets":[[18,30]],"normalized":[{"db_name":"mesh","db_id":"D006973"},'
    b'{"db_name":"","db_id":"-1"}],"linkscope_join":"+"}],"events":[],"coreferences":[],"relations":'
    b'[{"id":"5","type":"CID","arg1_id":"3","arg2_id":"3","normalized":[]}]}\n'
    b'{"id":"1","document_id":"9","passages":[{"id":"1","type":"title","text":["T."],"offsets":[[0,2]]}],'
    b'"entities":[],"events":[{"id":"e"}],"coreferences":[],"relations":[]}\n')


def write_json_corpus_seeds(seeds):
    seeds.add("bioc_json", "collection.json", BIOC_JSON_SEED)
    seeds.add("bioc_json", "pubtator3.json", PUBTATOR3_SEED)
    seeds.add("bioc_json", "deep.json", b'{"documents":[{"id":"1","infons":' + b"[" * 80 + b"]" * 80 + b"}]}")
    seeds.add("bigbio", "bc5cdr.jsonl", BIGBIO_SEED)
    seeds.add("bigbio", "deep.jsonl", b'{"x":' + b"[" * 80 + b"]" * 80 + b"}\n")


def write_bioc_reference_seeds(folder):
    folder.mkdir(parents=True, exist_ok=True)
    for i, reference in enumerate(BIOC_REFERENCES):
        (folder / ("character-reference-%02d.xml" % i)).write_bytes(BIOC_REFERENCE_SEED.replace(b"@REF@", reference))


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=ROOT / "build" / "fuzz" / "seeds")
    parser.add_argument("--seed-writer", type=Path, default=ROOT / "build" / "fuzz" / "bin" / "linkscope_fuzz_seeds")
    args = parser.parse_args()

    if args.out.exists():
        shutil.rmtree(args.out)
    args.out.mkdir(parents=True)
    seeds = Seeds(args.out)
    pubtator, kbs = write_text_seeds(seeds)
    write_core_seeds(seeds, args.seed_writer, pubtator, kbs)
    write_json_corpus_seeds(seeds)
    for name, payload in faiss_payloads().items():
        seeds.add("dense_index", name, payload)
    for name, payload in torch_pickle_seeds().items():
        seeds.add("torch_pickle", name, payload)
    # A pickle that calls os.system (refused at its GLOBAL), with no torch needed to write it.
    seeds.add("torch_pickle", "os-system.pkl", b"\1\x80\x02cos\nsystem\nX\x04\x00\x00\x00true\x85R.")

    for warning in warnings:
        print("make_seeds.py: warning: " + warning, file=sys.stderr)
    missing = [t for t in TARGETS if seeds.count.get(t, 0) == 0]
    for target in TARGETS:
        print(f"  {target:18} {seeds.count.get(target, 0):3} seeds")
    if missing:
        sys.exit("make_seeds.py: no seed for " + ", ".join(missing))


if __name__ == "__main__":
    main()
