#!/bin/bash
# prototype-srn's linking weight of its first stage (prototype.first_stage_weight), tried on a
# finished run without training again: for each weight W, a copy of RUN whose preset.json has
# that weight (the model and the rest linked, not copied) is evaluated on NCBI Disease SPLIT.
#   tools/prototype_weight_grid.sh results-runs/runs/ncbi-pretrained-prototype-srn dev 0 1 2 5 10 20 40 80
# prints one line per weight: "w=W SPLIT acc@1 A acc@5 B". Runs of models/prototype-srn.json.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
data=${LINKSCOPE_DATA_DIR:-$root/../shared/data}
cli=${LINKSCOPE_CLI:-$root/build/default/bin/linkscope-cli}
run=$(readlink -f "$1"); split=$2; shift 2
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
ncbi=$data/ncbi-disease; medic=$data/medic
for w in "$@"; do
    copy=$work/w$w; mkdir -p "$copy"
    for f in "$run"/*; do [ "$(basename "$f")" = preset.json ] || ln -s "$f" "$copy/"; done
    python3 -c 'import json, sys
p = json.load(open(sys.argv[1])); p["prototype"]["first_stage_weight"] = float(sys.argv[3])
json.dump(p, open(sys.argv[2], "w"), indent=1)' "$run/preset.json" "$copy/preset.json" "$w"
    extra=(); [ "$split" = test ] && extra=(--test "$ncbi/NCBItestset_corpus.txt")
    "$cli" eval --run "$copy" --train "$ncbi/NCBItrainset_corpus.txt" --dev "$ncbi/NCBIdevelopset_corpus.txt" \
        --kb "$medic/medic_06Jul2012.txt" --spelling "$medic/ncbi-spell-check.txt" "${extra[@]}" --split "$split" \
        --report "$copy/report.json" > "$copy/eval.log" 2>&1
    python3 -c 'import json, sys
r = json.load(open(sys.argv[1]))
print("w=%s %s acc@1 %.4f acc@5 %.4f" % (sys.argv[2], sys.argv[3], r["acc@1"], r["acc@5"]))' \
        "$copy/report.json" "$w" "$split"
done
