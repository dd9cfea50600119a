#!/bin/bash
# Prepares .devdeps/ (git-ignored) for tools/gpu_check.sh on a GPU machine that has CUDA, CMake, a
# C++ compiler and Python's torch but none of Linkscope's other libraries and no network: the
# Debian bookworm packages the engine needs, unpacked and pruned into one archive (static FAISS and
# SQLiteCpp, ICU 72, OpenBLAS, headers), and NCBI Disease, MEDIC and MedMentions' split lists from
# ../shared/data.
# Run here (Debian bookworm, apt reachable), then carry .devdeps and results-runs/medic-sap/model:
#   tools/gpu_bundle.sh && <device> bash tools/gpu_check.sh
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
data=${LINKSCOPE_DATA_DIR:-$root/../shared/data}
out=$root/.devdeps
grep -qx "/.devdeps/" "$root/.git/info/exclude" 2>/dev/null || echo "/.devdeps/" >> "$root/.git/info/exclude"
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
mkdir -p "$out/data" "$work/debs" "$work/root"
(cd "$work/debs" && apt-get download libfaiss-dev nlohmann-json3-dev libcli11-dev libsqlite3-dev libsqlite3-0 \
    libsqlitecpp-dev libpugixml-dev libpugixml1v5 libicu-dev libicu72 zlib1g-dev libopenblas0 \
    libopenblas0-pthread libgfortran5)
for deb in "$work"/debs/*.deb; do dpkg -x "$deb" "$work/root"; done
lib=$work/root/usr/lib/x86_64-linux-gnu
# What the build does not link: ICU's static archives and tools, docs. FAISS, SQLiteCpp and
# pugixml stay static (their CMake targets name the .a files).
rm -rf "$work/root/usr/share/doc" "$work/root/usr/share/man" "$work/root/usr/bin" "$work/root/usr/sbin" \
    "$lib"/libicu*.a "$lib"/libicutest* "$lib"/libicuio* "$lib"/libicutu* "$lib"/libsqlite3.a "$lib"/libz.a
tar -cJf "$out/deps.tar.xz" -C "$work/root" .
cp "$data"/ncbi-disease/NCBI*set_corpus.txt "$data"/medic/medic_06Jul2012.txt "$data"/medic/ncbi-spell-check.txt "$out/data/"
# MedMentions' split lists: benchmarks/generate_umls_medmentions.py writes the UMLS-size data there.
mkdir -p "$out/data/medmentions-splits"
cp "$data"/medmentions-splits/corpus_pubtator_pmids_{trng,dev,test}.txt "$out/data/medmentions-splits/"
du -sh "$out"
