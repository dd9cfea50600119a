#!/bin/sh
# Refreshes docs/screenshots/: one PNG per main view of the GUI on NCBI Disease with MEDIC, taken
# under Xvfb (no display needed). Run from the repository root after building (cmake --build
# --preset default); needs ../shared/data and xvfb-run (package xvfb, installed by
# packaging/install-deps.sh). A fresh settings and data folder is used, so the shots show the
# default layout and no earlier decisions. With LINKSCOPE_SCREENSHOT_RUN=RUN_DIR (a training run,
# e.g. `linkscope-cli train --preset triplet --schedule short --out RUN_DIR ...`) it also links the
# project with that run and saves curation-trained-run.png. Each view may take
# LINKSCOPE_SCREENSHOT_TIMEOUT seconds (default 300) to become ready; one that does not is named on
# standard error and passed over, and the script then fails (exit status 3).
set -eu
DATA=${LINKSCOPE_DATA_DIR:-../shared/data}
APP=${LINKSCOPE_APP:-build/default/bin/linkscope}
OUT=${1:-docs/screenshots}
for f in ncbi-disease/NCBItrainset_corpus.txt ncbi-disease/NCBIdevelopset_corpus.txt \
         ncbi-disease/NCBItestset_corpus.txt medic/medic_06Jul2012.txt; do
  [ -f "$DATA/$f" ] || { echo "take-screenshots: $DATA/$f is absent" >&2; exit 1; }
done
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
DATA=$(cd "$DATA" && pwd)
cat > "$TMP/ncbi-disease.json" <<JSON
{ "format": "linkscope-project-manifest", "version": 1, "name": "NCBI Disease",
  "description": "NCBI Disease corpus linked to MEDIC (06 Jul 2012)",
  "knowledgeBase": { "path": "$DATA/medic/medic_06Jul2012.txt", "format": "medic" },
  "corpora": [
    { "split": "train", "path": "$DATA/ncbi-disease/NCBItrainset_corpus.txt", "format": "pubtator" },
    { "split": "dev", "path": "$DATA/ncbi-disease/NCBIdevelopset_corpus.txt", "format": "pubtator" },
    { "split": "test", "path": "$DATA/ncbi-disease/NCBItestset_corpus.txt", "format": "pubtator" } ] }
JSON
mkdir -p "$OUT"
set -- --screenshots "$OUT"
set -- "$@" --screenshot-timeout "${LINKSCOPE_SCREENSHOT_TIMEOUT:-300}"
[ -n "${LINKSCOPE_SCREENSHOT_RUN:-}" ] && set -- "$@" --screenshot-run "$LINKSCOPE_SCREENSHOT_RUN"
XDG_CONFIG_HOME="$TMP/config" XDG_DATA_HOME="$TMP/data" \
  xvfb-run -a -s "-screen 0 1600x1000x24" "$APP" "$@" "$TMP/ncbi-disease.json"
ls -l "$OUT"
