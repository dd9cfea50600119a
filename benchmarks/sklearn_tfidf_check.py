#!/usr/bin/python3
"""sklearn_tfidf_check.py: Linkscope's TF-IDF (core/retrieval) against scikit-learn, term by term.

Fits both on a few hundred names (every 200th line of BioSyn's NCBI Disease test dictionary,
plus tricky strings: Unicode case, whitespace runs, non-ASCII letters and digits, combining
marks, underscores, stop words, an empty line) and vectorizes queries (the test mentions of
one in ten documents, plus the tricky strings), for several settings: BioSyn's char 1-2, Le &
Nguyen's char 2-5 and word unigrams without stop words, and variants of the weighting. For
each, checks that the vocabularies are the same list, that the analyzers give the same terms,
and reports the largest difference of idf and of weights (fitted rows and transformed
queries). Exits 1 when anything differs by more than 1e-6.

Needs scikit-learn for /usr/bin/python3 (Debian: apt-get install python3-sklearn) and the
sparse_dump benchmark executable (cmake --build BUILD --target sparse_dump).

  /usr/bin/python3 benchmarks/sklearn_tfidf_check.py --dump BUILD/bin/sparse_dump [--archive FILE.tar.gz]
"""
import argparse
import json
import os
import subprocess
import sys
import tarfile
import tempfile

import numpy as np
import sklearn
from sklearn.feature_extraction.text import TfidfVectorizer

TRICKY = [
    "Ataxia  Telangiectasia",
    "tab\there",
    "two\t\tseparators and\n",  # the newline is removed below: one document per line
    "nbsp\u00a0single",
    "nbsp\u00a0\u00a0double",
    "em\u2003space and  \u2003mixed run",
    "ΣΊΣΥΦΟΣ ΟΔΟΣ",
    "İstanbul",
    "Straße",
    "naïve café",
    "e\u0301 combining acute",
    "under_score x_y __",
    "a b c",
    "x",
    "",
    "12 345 6",
    "père-noël",
    "日本語テキスト",
    "emoji \U0001F642 ok",
    "MiXeD CaSe",
    "trailing space ",
    " leading space",
    "ｆｕｌｌｗｉｄｔｈ",
    "Ⅻ roman numeral",
    "²³ superscripts",
    "don't stop",
    "the of and",
    "type 2 diabetes mellitus",
]

SETTINGS = [
    ("char 1-2 (BioSyn)", ["--analyzer", "char", "--ngrams", "1-2"], dict(analyzer="char", ngram_range=(1, 2))),
    ("char 2-5 (Le & Nguyen)", ["--analyzer", "char", "--ngrams", "2-5"], dict(analyzer="char", ngram_range=(2, 5))),
    ("word 1-1, stop words (Le & Nguyen)", ["--analyzer", "word", "--ngrams", "1-1", "--stop-words"],
     dict(analyzer="word", ngram_range=(1, 1), stop_words="english")),
    ("word 1-3", ["--analyzer", "word", "--ngrams", "1-3"], dict(analyzer="word", ngram_range=(1, 3))),
    ("word 2-2, stop words", ["--analyzer", "word", "--ngrams", "2-2", "--stop-words"],
     dict(analyzer="word", ngram_range=(2, 2), stop_words="english")),
    ("char 1-3, no lowercase", ["--analyzer", "char", "--ngrams", "1-3", "--no-lowercase"],
     dict(analyzer="char", ngram_range=(1, 3), lowercase=False)),
    ("char 1-2, sublinear tf, l1", ["--analyzer", "char", "--ngrams", "1-2", "--sublinear", "--norm", "l1"],
     dict(analyzer="char", ngram_range=(1, 2), sublinear_tf=True, norm="l1")),
    ("char 3-3, plain idf", ["--analyzer", "char", "--ngrams", "3-3", "--no-smooth"],
     dict(analyzer="char", ngram_range=(3, 3), smooth_idf=False)),
    ("char 1-1, no idf, no norm", ["--analyzer", "char", "--ngrams", "1-1", "--no-idf", "--norm", "none"],
     dict(analyzer="char", ngram_range=(1, 1), use_idf=False, norm=None)),
]


def default_archive():
    data = os.environ.get("LINKSCOPE_DATA_DIR") or os.path.join(
        os.path.dirname(os.path.abspath(__file__)), "..", "..", "shared", "data")
    return os.path.join(data, "biosyn-ncbi-disease", "ncbi-disease.tar.gz")


def read_inputs(archive_path):
    names, queries = [], []
    with tarfile.open(archive_path) as archive:
        dictionary = archive.extractfile("ncbi-disease/test_dictionary.txt").read().decode("utf-8")
        names = [line.split("||")[1] for line in dictionary.split("\n")[::200] if "||" in line]
        concept_files = sorted(m.name for m in archive.getmembers()
                               if m.name.startswith("ncbi-disease/processed_test/") and m.name.endswith(".concept"))
        for name in concept_files[::10]:
            for line in archive.extractfile(name).read().decode("utf-8").split("\n"):
                if line.count("||") == 4:
                    queries.append(line.split("||")[3].strip())
    tricky = [t.replace("\n", "") for t in TRICKY]
    return names + tricky, queries + tricky


def max_row_difference(ours, theirs_matrix):
    worst = 0.0
    for i, row in enumerate(ours):
        theirs = theirs_matrix.getrow(i)
        expected = dict(zip(theirs.indices.tolist(), theirs.data.tolist()))
        got = {term: weight for term, weight in row}
        if set(expected) != set(got):
            return float("inf"), i
        for term, weight in got.items():
            worst = max(worst, abs(weight - expected[term]))
    return worst, None


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--dump", required=True, help="the sparse_dump executable")
    parser.add_argument("--archive", default=default_archive())
    args = parser.parse_args()

    names, queries = read_inputs(args.archive)
    print(f"scikit-learn {sklearn.__version__}; {len(names)} names, {len(queries)} queries")
    failed = False
    with tempfile.TemporaryDirectory(prefix="tfidf_check-") as tmp:
        names_file, queries_file = os.path.join(tmp, "names.txt"), os.path.join(tmp, "queries.txt")
        with open(names_file, "w", encoding="utf-8", newline="\n") as f:
            f.write("\n".join(names) + "\n")
        with open(queries_file, "w", encoding="utf-8", newline="\n") as f:
            f.write("\n".join(queries) + "\n")
        for label, flags, params in SETTINGS:
            ours = json.loads(subprocess.run([args.dump, *flags, names_file, queries_file], check=True,
                                             capture_output=True).stdout.decode("utf-8"))
            vectorizer = TfidfVectorizer(**params)
            fitted = vectorizer.fit_transform(names)
            transformed = vectorizer.transform(queries)
            analyzer = vectorizer.build_analyzer()
            vocabulary = vectorizer.get_feature_names_out().tolist()
            same_vocabulary = ours["vocabulary"] == vocabulary
            same_terms = all(ours["analyzed"][i] == analyzer(q) for i, q in enumerate(queries))
            idf_difference = (float(np.max(np.abs(np.array(ours["idf"]) - vectorizer.idf_)))
                              if params.get("use_idf", True) else 0.0)
            row_difference, bad_row = max_row_difference(ours["rows"], fitted) if same_vocabulary else (float("inf"), None)
            query_difference, bad_query = (max_row_difference(ours["queries"], transformed) if same_vocabulary
                                           else (float("inf"), None))
            ok = (same_vocabulary and same_terms and idf_difference <= 1e-9 and row_difference <= 1e-6
                  and query_difference <= 1e-6)
            failed = failed or not ok
            print(f"{'ok  ' if ok else 'FAIL'} {label}: {len(vocabulary)} terms, vocabulary "
                  f"{'same' if same_vocabulary else 'DIFFERENT'}, analyzed terms {'same' if same_terms else 'DIFFERENT'}, "
                  f"max |idf diff| {idf_difference:.2e}, max |weight diff| fitted {row_difference:.2e}, "
                  f"transformed {query_difference:.2e}")
            if bad_row is not None:
                print(f"     first different fitted row: {names[bad_row]!r}")
            if bad_query is not None:
                print(f"     first different query: {queries[bad_query]!r}")
            if not same_terms:
                for i, q in enumerate(queries):
                    if ours["analyzed"][i] != analyzer(q):
                        print(f"     {q!r}: ours {ours['analyzed'][i][:12]} sklearn {analyzer(q)[:12]}")
                        break
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
