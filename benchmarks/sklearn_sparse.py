#!/usr/bin/python3
"""sklearn_sparse.py: BioSyn's sparse (TF-IDF) NCBI Disease test evaluation with scikit-learn.

The reference for benchmarks/sparse_ncbi.cpp: the same data, the same steps, timed the same way.
  - load BioSyn's test_dictionary.txt (`IDS||name`) and processed_test/*.concept as BioSyn's
    load_dictionary / load_queries(filter_composite=False, filter_duplicate=False,
    filter_cuiless=True) do;
  - build: TfidfVectorizer(analyzer='char', ngram_range=(1, 2)).fit_transform(dictionary names)
    (BioSyn's SparseEncoder);
  - search: transform every query part (composite mentions split on '|' and '+'), scores =
    queries @ dictionary.T (one sparse product for all parts), then per part np.argpartition for
    the top k and argsort of those k (BioSyn's retrieve_candidate);
  - Acc@1 / Acc@5 as BioSyn's evaluate(): a candidate is correct when its ids ('|'-split)
    intersect the gold ids ('|'- and '+'-split); a query is correct when every part is.
Build and search are timed with time.perf_counter() (wall) and time.process_time() (CPU of the
process, all threads); the median of --repeat runs is reported.

Needs scikit-learn for /usr/bin/python3 (Debian: apt-get install python3-sklearn).

  /usr/bin/python3 benchmarks/sklearn_sparse.py [--archive FILE.tar.gz] [--k 20] [--repeat 5]
"""
import argparse
import glob
import os
import statistics
import sys
import tarfile
import tempfile
import time

import numpy as np
import sklearn
from sklearn.feature_extraction.text import TfidfVectorizer


def default_archive():
    data = os.environ.get("LINKSCOPE_DATA_DIR") or os.path.join(
        os.path.dirname(os.path.abspath(__file__)), "..", "..", "shared", "data")
    return os.path.join(data, "biosyn-ncbi-disease", "ncbi-disease.tar.gz")


def load_dictionary(path):
    data = []
    with open(path, encoding="utf-8") as f:
        for line in f:
            line = line.strip()
            if line == "":
                continue
            cui, name = line.split("||")
            data.append((name, cui))
    return np.array(data)


def load_queries(folder):
    data = []
    for concept_file in sorted(glob.glob(os.path.join(folder, "*.concept"))):
        with open(concept_file, encoding="utf-8") as f:
            for concept in f.readlines():
                concept = concept.split("||")
                mention = concept[3].strip()
                cui = concept[4].strip()
                if cui == "-1":
                    continue
                data.append((mention, cui))
    return data


def check_label(predicted_cui, golden_cui):
    return int(len(set(predicted_cui.split("|")).intersection(set(golden_cui.split("|")))) > 0)


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--archive", default=default_archive())
    parser.add_argument("--k", type=int, default=20)
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()

    with tempfile.TemporaryDirectory(prefix="sklearn_sparse-") as tmp:
        with tarfile.open(args.archive) as archive:
            members = [m for m in archive.getmembers()
                       if m.name == "ncbi-disease/test_dictionary.txt" or m.name.startswith("ncbi-disease/processed_test/")]
            archive.extractall(tmp, members=members)
        start = time.perf_counter()
        dictionary = load_dictionary(os.path.join(tmp, "ncbi-disease", "test_dictionary.txt"))
        queries = load_queries(os.path.join(tmp, "ncbi-disease", "processed_test"))
        load_seconds = time.perf_counter() - start

    parts, owner = [], []
    for i, (mention, _) in enumerate(queries):
        for part in mention.replace("+", "|").split("|"):
            parts.append(part)
            owner.append(i)
    names = dictionary[:, 0]
    k = args.k

    build_times, search_times, build_cpu, search_cpu = [], [], [], []
    for _ in range(args.repeat):
        start, cpu = time.perf_counter(), time.process_time()
        vectorizer = TfidfVectorizer(analyzer="char", ngram_range=(1, 2))
        dictionary_matrix = vectorizer.fit_transform(names)
        build_times.append(time.perf_counter() - start)
        build_cpu.append(time.process_time() - cpu)

        start, cpu = time.perf_counter(), time.process_time()
        query_matrix = vectorizer.transform(parts)
        scores = (query_matrix @ dictionary_matrix.T).toarray()
        top = np.argpartition(scores, -k, axis=1)[:, -k:]
        top_scores = np.take_along_axis(scores, top, axis=1)
        order = np.argsort(-top_scores, axis=1)
        ranked = np.take_along_axis(top, order, axis=1)
        search_times.append(time.perf_counter() - start)
        search_cpu.append(time.process_time() - cpu)

    hits = {1: [True] * len(queries), 5: [True] * len(queries)}
    for p, candidates in enumerate(ranked):
        golden_cui = queries[owner[p]][1].replace("+", "|")
        labels = [check_label(dictionary[c][1], golden_cui) for c in candidates]
        for at in (1, 5):
            if not any(labels[:at]):
                hits[at][owner[p]] = False

    build, search = statistics.median(build_times), statistics.median(search_times)
    cpu_build, cpu_search = statistics.median(build_cpu), statistics.median(search_cpu)
    print(f"scikit-learn {sklearn.__version__}, numpy {np.__version__}, python {sys.version.split()[0]}")
    print(f"dictionary:      {len(names)} names, {len(vectorizer.vocabulary_)} terms, "
          f"{dictionary_matrix.nnz} non-zeros")
    print(f"queries:         {len(queries)} mentions, {len(parts)} parts, k = {k}")
    print(f"load files:      {load_seconds:.4f} s")
    print(f"build index:     {build:.4f} s (median of {args.repeat}; CPU {cpu_build:.4f} s)")
    print(f"search:          {search:.4f} s (median of {args.repeat}; CPU {cpu_search:.4f} s)")
    print(f"build + search:  {build + search:.4f} s (CPU {cpu_build + cpu_search:.4f} s)")
    print(f"Acc@1 {sum(hits[1]) / len(queries):.4f}  Acc@5 {sum(hits[5]) / len(queries):.4f}")


if __name__ == "__main__":
    main()
