#!/usr/bin/env python3
"""Writes a UMLS-size knowledge base and a MedMentions-size corpus linked to it.

Neither UMLS nor the MedMentions corpus may be shipped or downloaded here, so the scale figures of
docs/benchmarks.md are measured on files this script generates, seeded, so every run writes the same
bytes:

  OUT/MRCONSO.RRF   ~3.5 M concepts, ~8 M rows (UMLS 2017AA: 3.4 M concepts and 7.9 M English names
                    are what MedMentions links to), in the RRF layout loadUmls() reads: several source
                    vocabularies (SAB), term types, suppressible and other-language rows, names shared
                    by several concepts (abbreviations) and the rows of a concept scattered over the file.
  OUT/MRSTY.RRF     one or two semantic types per concept, real TUIs / tree numbers / names, most of
                    them in or under MedMentions' ST21pv set.
  OUT/corpus_pubtator.txt(.gz)  4,392 abstracts with the PMIDs of MedMentions' own split lists,
                    ~80 mentions each (~350 k), MedMentions' PubTator layout (T-code types, bare CUIs).
  OUT/corpus_pubtator_pmids_{trng,dev,test}.txt   the official lists, copied.

Names are not numbered strings: they are drawn from a word-bigram model of a real vocabulary (MEDIC's
names by default), so their character n-grams, lengths and shared words look like those of a
biomedical vocabulary, and a TF-IDF or n-gram index sees the term statistics it would see on UMLS.
Mentions follow a long-tailed (Zipf) distribution over concepts, as MedMentions' do (a few concepts
very often, most once), and are written as one of their concept's names, sometimes lower-cased,
pluralised or shortened, as mentions are.

  benchmarks/generate_umls_medmentions.py --out /tmp/umls-mm            # full size (about 4 GB free)
  benchmarks/generate_umls_medmentions.py --out /tmp/umls-mm --scale 0.01   # a quick one

The vocabulary and the split lists are read in place from ../shared/data (DATA_DIR overrides it).
"""
from __future__ import annotations

import argparse
import bisect
import gzip
import os
import random
import re
import sys
import time
from collections import Counter, defaultdict
from pathlib import Path

# MedMentions' ST21pv types (Mohan and Li 2019, Table 3): TUI, tree number, name.
ST21PV = [
    ("T005", "A1.1.1", "Virus"), ("T007", "A1.1.2", "Bacterium"), ("T017", "A1.2", "Anatomical Structure"),
    ("T022", "A2.1.4", "Body System"), ("T031", "A1.4.2", "Body Substance"), ("T033", "A2.2", "Finding"),
    ("T037", "B2.3", "Injury or Poisoning"), ("T038", "B2.2.1", "Biologic Function"),
    ("T058", "B1.3.1.1", "Health Care Activity"), ("T062", "B1.3.1.2", "Research Activity"),
    ("T074", "A1.3.1", "Medical Device"), ("T082", "A2.1.5", "Spatial Concept"),
    ("T091", "A2.6", "Biomedical Occupation or Discipline"), ("T092", "A2.7", "Organization"),
    ("T097", "A2.9.2", "Professional or Occupational Group"), ("T098", "A2.9.4", "Population Group"),
    ("T103", "A1.4.1", "Chemical"), ("T168", "A1.3.3", "Food"), ("T170", "A2.4", "Intellectual Product"),
    ("T201", "A2.3", "Clinical Attribute"), ("T204", "A1.1.3", "Eukaryote"),
]
# Types under ST21pv ones (their tree numbers start with an ST21pv tree number) and types outside it.
DESCENDANTS = [
    ("T047", "B2.2.1.2.1", "Disease or Syndrome"), ("T191", "B2.2.1.2.1.2", "Neoplastic Process"),
    ("T121", "A1.4.1.1.1", "Pharmacologic Substance"), ("T116", "A1.4.1.2.1.7", "Amino Acid, Peptide, or Protein"),
    ("T023", "A1.2.3.1", "Body Part, Organ, or Organ Component"), ("T184", "A2.2.2", "Sign or Symptom"),
    ("T061", "B1.3.1.3", "Therapeutic or Preventive Procedure"), ("T109", "A1.4.1.2.1", "Organic Chemical"),
    ("T046", "B2.2.1.2", "Pathologic Function"), ("T060", "B1.3.1.2", "Diagnostic Procedure"),
]
OUTSIDE = [
    ("T071", "A", "Entity"), ("T051", "B1", "Event"), ("T169", "A2.1.1", "Functional Concept"),
    ("T080", "A2.1.2", "Qualitative Concept"), ("T081", "A2.1.3", "Quantitative Concept"),
]
SOURCES = [("MSH", 0.16), ("SNOMEDCT_US", 0.22), ("NCI", 0.12), ("MDR", 0.08), ("ICD10CM", 0.05),
           ("MTH", 0.10), ("LNC", 0.10), ("RXNORM", 0.07), ("GO", 0.04), ("HPO", 0.03), ("OMIM", 0.03)]
FOREIGN = [("SPA", "MSHSPA"), ("FRE", "MSHFRE"), ("GER", "MSHGER")]
QUALIFIERS = ["NOS", "(disorder)", "(finding)", "(procedure)", "(substance)", "[Ambiguous]", "unspecified"]

DOCUMENTS = 4392          # MedMentions' abstracts
MENTIONS_PER_DOC = 80     # 352,496 mentions in 4,392 abstracts
CONCEPTS = 3_500_000
NAMES = 8_000_000


def data_dir() -> Path:
    return Path(os.environ.get("DATA_DIR", Path(__file__).resolve().parents[1].parent / "shared" / "data"))


class WordModel:
    """A word-bigram model of a vocabulary's names: names it draws look like the vocabulary's own."""

    def __init__(self, names: list[str], rng: random.Random):
        self.rng = rng
        follow: dict[str, Counter] = defaultdict(Counter)
        for name in names:
            words = re.findall(r"[A-Za-z][A-Za-z0-9\-']*|\d+", name)
            if not words:
                continue
            chain = ["<s>"] + words + ["</s>"]
            for a, b in zip(chain, chain[1:]):
                follow[a][b] += 1
        self.table: dict[str, tuple[list[str], list[int]]] = {}
        for word, counts in follow.items():
            items = list(counts.items())
            total, cumulative = 0, []
            for _, c in items:
                total += c
                cumulative.append(total)
            self.table[word] = ([w for w, _ in items], cumulative)
        words = Counter(w for name in names for w in re.findall(r"[a-z]{3,}", name.lower()))
        self.text_words = [w for w, _ in words.most_common(4000)]
        # Every word of the vocabulary, for the variety UMLS has beyond one vocabulary's phrasing.
        self.all_words = sorted({w for name in names for w in re.findall(r"[A-Za-z][A-Za-z\-']{2,}", name)})

    def next_word(self, word: str) -> str:
        choices, cumulative = self.table.get(word, self.table["<s>"])
        return choices[bisect.bisect_right(cumulative, self.rng.randrange(cumulative[-1]))]

    def name(self, max_words: int = 7) -> str:
        words, word = [], "<s>"
        while len(words) < max_words:
            word = self.next_word(word)
            if word == "</s>":
                if words:
                    break
                word = "<s>"
                continue
            words.append(word)
        # A bigram model of 70 k names repeats itself long before 8 M: a word from anywhere in
        # the vocabulary, or a qualifier as UMLS sources write them, makes names as distinct as
        # UMLS's (8 M strings, few of them repeated).
        roll = self.rng.random()
        if roll < 0.45:
            words.insert(self.rng.randrange(len(words) + 1), self.rng.choice(self.all_words))
        elif roll < 0.60:
            words.append(self.rng.choice(("type", "class", "group", "stage", "grade", "form")))
            words.append(str(self.rng.randint(1, 40)) if self.rng.random() < 0.7 else self.rng.choice("ABCDEFGH"))
        if self.rng.random() < 0.25:
            words.append(self.rng.choice(self.all_words))
        return " ".join(words)


def read_vocabulary_names(path: Path) -> list[str]:
    opener = gzip.open if path.suffix == ".gz" else open
    names: list[str] = []
    with opener(path, "rt", encoding="utf-8") as f:
        for line in f:
            if line.startswith("#"):
                continue
            if "||" in line:  # MEDIC / BioSyn dictionary: IDS||name|name
                names += [n for n in line.rstrip("\n").split("||", 1)[1].split("|") if n]
            else:              # CTD TSV: the first column is the name
                names.append(line.split("\t", 1)[0])
    return names


def cui(number: int) -> str:
    return f"C{number:07d}"


def synonym(model: WordModel, base: str, rng: random.Random) -> str:
    """Another name of the concept whose first name is `base`: the variations UMLS sources give."""
    words = base.split()
    roll = rng.random()
    if roll < 0.25 and len(words) > 1:             # inverted: "Diabetes, Type 2" style
        return f"{words[-1]}, {' '.join(words[:-1])}"
    if roll < 0.40:
        return f"{base} {rng.choice(QUALIFIERS)}"
    if roll < 0.50 and len(words) > 1:             # an abbreviation of the initials
        return "".join(w[0] for w in words).upper()
    if roll < 0.70:
        return base.lower() if base.lower() != base else base.upper()
    if roll < 0.85 and len(words) > 1:             # one word replaced by a word the model puts there
        i = rng.randrange(1, len(words))
        replacement = model.next_word(words[i - 1])
        words[i] = replacement if replacement != "</s>" else rng.choice(model.all_words)
        return " ".join(words)
    return model.name()                             # an unrelated-looking synonym


def write_kb(out: Path, concepts: int, names: int, model: WordModel, rng: random.Random) -> list[list[str]]:
    """Writes MRCONSO.RRF and MRSTY.RRF; returns the English names of every concept (for the corpus)."""
    mean_extra = max(names / concepts - 1.0, 0.0)
    continue_odds = mean_extra / (1.0 + mean_extra)
    concept_names: list[list[str]] = []
    rows: list[str] = []
    sab_names, sab_weights = zip(*SOURCES)
    aui = 0
    for c in range(concepts):
        base = model.name()
        own = [base]
        extra = 0  # geometric, mean per_concept - 1: most concepts have one or two names, a few dozens
        while extra < 40 and rng.random() < continue_odds:
            extra += 1
        for _ in range(extra):
            own.append(synonym(model, base, rng))
        concept_names.append(own)
        for i, name in enumerate(own):
            aui += 1
            sab = rng.choices(sab_names, sab_weights)[0]
            suppress = "N" if rng.random() > 0.02 else rng.choice("OEY")
            tty = "PT" if i == 0 else ("AB" if name.isupper() and " " not in name else "SY")
            ts, stt, ispref = ("P", "PF", "Y") if i == 0 else ("S", "VO", "N")
            rows.append(f"{cui(c + 1)}|ENG|{ts}|L{c:07d}|{stt}|S{aui:07d}|{ispref}|"
                         f"A{aui:08d}||{c}||{sab}|{tty}|{c}|{name}|0|{suppress}|256|")
        if rng.random() < 0.08:                      # another language's name, for the language filter
            lat, sab = rng.choice(FOREIGN)
            aui += 1
            rows.append(f"{cui(c + 1)}|{lat}|P|L{c:07d}|PF|S{aui:07d}|Y|"
                         f"A{aui:08d}||{c}||{sab}|PT|{c}|{base} ({lat.lower()})|3|N|256|")
    rng.shuffle(rows)  # the rows of a concept anywhere in the file, as in real releases
    with open(out / "MRCONSO.RRF", "w", encoding="utf-8") as f:
        f.writelines(row + "\n" for row in rows)
    del rows
    all_types = ST21PV + DESCENDANTS + OUTSIDE
    weights = [1.0] * len(ST21PV) + [3.0] * len(DESCENDANTS) + [0.6] * len(OUTSIDE)
    with open(out / "MRSTY.RRF", "w", encoding="utf-8") as f:
        for c in range(concepts):
            for t, (tui, stn, sty) in enumerate(rng.choices(all_types, weights, k=1 if rng.random() < 0.9 else 2)):
                f.write(f"{cui(c + 1)}|{tui}|{stn}|{sty}|AT{c:07d}{t}|256|\n")
    return concept_names


def zipf_sampler(n: int, exponent: float, rng: random.Random):
    """Draws concept numbers with P(rank r) ~ 1 / (r + 1)^exponent over a seeded random order of them."""
    ranks = 200_000 if n > 200_000 else n  # the head; MedMentions' 350 k mentions name ~35 k concepts
    cumulative, total = [], 0.0
    for r in range(ranks):
        total += 1.0 / (r + 1) ** exponent
        cumulative.append(total)
    order = rng.sample(range(n), ranks)

    def draw() -> int:
        return order[bisect.bisect_left(cumulative, rng.random() * total)]
    return draw


def mention_text(name: str, rng: random.Random) -> str:
    roll = rng.random()
    if roll < 0.55:
        return name
    if roll < 0.80:
        return name.lower()
    if roll < 0.90:
        return name + "s" if not name.endswith("s") else name
    words = name.split()
    return " ".join(words[1:]) if len(words) > 2 else name


def write_corpus(out: Path, concept_names: list[list[str]], types: dict[int, str], splits: dict[str, list[str]],
                 model: WordModel, rng: random.Random, mentions_per_doc: int, compress: bool) -> tuple[int, int]:
    draw = zipf_sampler(len(concept_names), 1.05, rng)
    pmids = [p for split in ("trng", "dev", "test") for p in splits[split]]
    path = out / ("corpus_pubtator.txt.gz" if compress else "corpus_pubtator.txt")
    opener = gzip.open if compress else open
    mentions = 0
    distinct: set[int] = set()
    with opener(path, "wt", encoding="utf-8") as f:
        for pmid in pmids:
            title = " ".join(rng.choice(model.text_words) for _ in range(rng.randint(6, 14))).capitalize()
            text = []
            spans = []
            offset = len(title) + 1
            count = max(1, int(rng.gauss(mentions_per_doc, mentions_per_doc / 4)))
            for _ in range(count):
                filler = " ".join(rng.choice(model.text_words) for _ in range(rng.randint(1, 4)))
                text.append(filler + " ")
                offset += len(filler) + 1
                c = draw()
                name = mention_text(rng.choice(concept_names[c][:4]), rng)
                spans.append((offset, offset + len(name), name, types[c], cui(c + 1)))
                text.append(name + " ")
                offset += len(name) + 1
                distinct.add(c)
            text.append("and " + " ".join(rng.choice(model.text_words) for _ in range(5)) + ".")
            f.write(f"{pmid}|t|{title}\n{pmid}|a|{''.join(text)}\n")
            for start, end, name, tui, concept in spans:
                f.write(f"{pmid}\t{start}\t{end}\t{name}\t{tui}\t{concept}\n")
            f.write("\n")
            mentions += len(spans)
    return mentions, len(distinct)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", required=True, type=Path, help="folder to write into (created)")
    parser.add_argument("--scale", type=float, default=1.0, help="fraction of the UMLS size for the KB (default 1)")
    parser.add_argument("--documents", type=int, default=DOCUMENTS,
                        help="abstracts, the first of MedMentions' PMIDs (default all 4,392)")
    parser.add_argument("--mentions-per-document", type=int, default=MENTIONS_PER_DOC)
    parser.add_argument("--vocabulary", type=Path, help="real vocabulary whose names the words come from "
                        "(default DATA/medic/medic_06Jul2012.txt)")
    parser.add_argument("--splits", type=Path, help="MedMentions' PMID lists (default DATA/medmentions-splits)")
    parser.add_argument("--seed", type=int, default=17)
    parser.add_argument("--gzip", action="store_true", help="write the corpus as .gz, as MedMentions ships it")
    args = parser.parse_args()

    vocabulary = args.vocabulary or data_dir() / "medic" / "medic_06Jul2012.txt"
    split_dir = args.splits or data_dir() / "medmentions-splits"
    for needed in (vocabulary, split_dir):
        if not needed.exists():
            print(f"generate_umls_medmentions: {needed} is missing (set DATA_DIR to the shared data folder)",
                  file=sys.stderr)
            return 2
    rng = random.Random(args.seed)
    args.out.mkdir(parents=True, exist_ok=True)
    started = time.monotonic()

    splits: dict[str, list[str]] = {}
    budget = args.documents
    for split in ("trng", "dev", "test"):
        lines = (split_dir / f"corpus_pubtator_pmids_{split}.txt").read_text(encoding="utf-8").split()
        share = round(args.documents * len(lines) / DOCUMENTS) if args.documents < DOCUMENTS else len(lines)
        splits[split] = lines[:max(1, min(share, budget))]
        budget -= len(splits[split])
        (args.out / f"corpus_pubtator_pmids_{split}.txt").write_text("\n".join(splits[split]) + "\n",
                                                                    encoding="utf-8")

    model = WordModel(read_vocabulary_names(vocabulary), rng)
    concepts = max(1000, int(CONCEPTS * args.scale))
    names = max(2000, int(NAMES * args.scale))
    concept_names = write_kb(args.out, concepts, names, model, rng)
    # The corpus's type column: the first semantic type MRSTY gave the concept.
    types: dict[int, str] = {}
    with open(args.out / "MRSTY.RRF", encoding="utf-8") as f:
        for line in f:
            fields = line.split("|", 2)
            types.setdefault(int(fields[0][1:]) - 1, fields[1])
    mentions, distinct = write_corpus(args.out, concept_names, types, splits, model, rng,
                                      args.mentions_per_document, args.gzip)
    rows = sum(len(n) for n in concept_names)
    print(f"{concepts} concepts, {rows} English names (+ other languages) in {args.out / 'MRCONSO.RRF'}; "
          f"{sum(len(s) for s in splits.values())} documents, {mentions} mentions of {distinct} concepts; "
          f"{time.monotonic() - started:.0f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
