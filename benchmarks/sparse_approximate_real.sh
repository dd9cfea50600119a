#!/usr/bin/env bash
# The approximate sparse search on the real corpora of docs/results.md: NCBI Disease test
# and BC5CDR-Disease dev against MEDIC, searched exactly and approximately (forced: their
# dictionaries of ~74,000 names are below the 500,000 at which `auto` switches), with the same
# preprocessing and protocol as the sparse rows of docs/results.md. Prints each run's "all" row and
# its recall@k line. Usage:
#   benchmarks/sparse_approximate_real.sh [CLI] [CANDIDATES...]   (default build/default/bin/linkscope-cli, 512)
set -euo pipefail
cd "$(dirname "$0")/.."
cli=${1:-build/default/bin/linkscope-cli}
shift || true
candidates=("${@:-512}")
D=${DATA_DIR:-../shared/data}
if [ ! -d "$D/ncbi-disease" ] || [ ! -d "$D/bc5cdr" ] || [ ! -d "$D/medic" ]; then
  echo "sparse_approximate_real.sh: $D lacks ncbi-disease, bc5cdr or medic; nothing measured" >&2
  exit 2
fi
ncbi=(--train "$D/ncbi-disease/NCBItrainset_corpus.txt" --dev "$D/ncbi-disease/NCBIdevelopset_corpus.txt"
      --test "$D/ncbi-disease/NCBItestset_corpus.txt" --kb "$D/medic/medic_06Jul2012.txt"
      --spelling "$D/medic/ncbi-spell-check.txt" --split test --method sparse)
bc5cdr=(--train "$D/bc5cdr/CDR_TrainingSet.PubTator.txt" --dev "$D/bc5cdr/CDR_DevelopmentSet.PubTator.txt"
        --kb "$D/medic/medic_06Jul2012.txt" --split dev --types Disease --method sparse)
run() {
  local label=$1
  shift
  echo "== $label"
  "$cli" eval "$@" | grep -E '^(all |recall@k)'
}
for corpus in ncbi bc5cdr; do
  declare -n args=$corpus
  run "$corpus exact" "${args[@]}" --sparse-search exact
  for c in "${candidates[@]}"; do
    run "$corpus approximate, $c candidates" "${args[@]}" --sparse-search approximate --sparse-candidates "$c"
  done
done
