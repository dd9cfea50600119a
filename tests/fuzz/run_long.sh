#!/usr/bin/env bash
# The long fuzz run of docs/reliability.md: every target (or the ones named) for SECONDS each,
# STREAMS targets at a time, each through run_fuzzers.sh. Seeds are written once; the streams
# start STAGGER seconds apart. Each target's summary line goes to build/fuzz/long/<target>.txt, and
# all of them, in target order, to build/fuzz/fuzz-long-summary.txt.
#
#   tests/fuzz/run_long.sh [SECONDS [STREAMS]] [TARGET...]     (defaults: 600 s, 2 streams)
#
# With more streams than cores the targets share the cores: each still runs SECONDS of wall time,
# with fewer executions. The fuzz build must exist (run_fuzzers.sh builds it).
set -uo pipefail
cd "$(dirname "$0")/../.."
ROOT=$PWD
BUILD=$ROOT/build/fuzz
seconds=600
streams=2
[[ ${1:-} =~ ^[0-9]+$ ]] && { seconds=$1; shift; }
[[ ${1:-} =~ ^[0-9]+$ ]] && { streams=$1; shift; }
stagger=${STAGGER:-30}

targets=("$@")
if [ ${#targets[@]} -eq 0 ]; then
  for source in tests/fuzz/fuzz_*.cpp; do targets+=("$(basename "$source" .cpp)"); done
fi
[ -x "$BUILD/bin/linkscope_fuzz_seeds" ] || { echo "run_long.sh: no fuzz build; run tests/fuzz/run_fuzzers.sh first" >&2; exit 1; }

python3 tests/fuzz/make_seeds.py --out "$BUILD/seeds" --seed-writer "$BUILD/bin/linkscope_fuzz_seeds" >/dev/null ||
  { echo "run_long.sh: make_seeds.py failed" >&2; exit 1; }
mkdir -p "$BUILD/long"

# Stream s runs targets s, s + streams, s + 2 * streams, ...
run_stream() {
  local s=$1 i
  sleep $((s * stagger))
  for ((i = s; i < ${#targets[@]}; i += streams)); do
    local target=${targets[$i]}
    FUZZ_KEEP_SEEDS=1 FUZZ_SUMMARY="$BUILD/long/$target.txt" \
      tests/fuzz/run_fuzzers.sh --build-if-missing "$seconds" "$target" >"$BUILD/long/$target.log" 2>&1
    echo "$(date -u +%H:%M:%S) $(cat "$BUILD/long/$target.txt" 2>/dev/null || echo "$target: no summary, see $BUILD/long/$target.log")"
  done
}
echo "run_long.sh: ${#targets[@]} targets, ${seconds} s each, ${streams} at a time, $(nproc) cores, started $(date -u '+%Y-%m-%d %H:%M') UTC"
for ((s = 0; s < streams; ++s)); do run_stream "$s" & done
wait

: >"$BUILD/fuzz-long-summary.txt"
found=0
for target in "${targets[@]}"; do
  if [ -f "$BUILD/long/$target.txt" ]; then cat "$BUILD/long/$target.txt" >>"$BUILD/fuzz-long-summary.txt"
  else echo "$target  no summary (see build/fuzz/long/$target.log)" >>"$BUILD/fuzz-long-summary.txt"; found=1; fi
  grep -q "run_fuzzers.sh: no findings" "$BUILD/long/$target.log" 2>/dev/null || found=1
done
echo "== long run summary (${seconds} s per target, ${streams} at a time): build/fuzz/fuzz-long-summary.txt"
cat "$BUILD/fuzz-long-summary.txt"
[ $found = 0 ] && echo "run_long.sh: no findings" || { echo "run_long.sh: findings or missing targets, see build/fuzz/long/" >&2; exit 1; }
