#!/usr/bin/env bash
# Runs the libFuzzer targets of tests/fuzz (one per reader of outside data).
#
#   tests/fuzz/run_fuzzers.sh [--build-if-missing] SECONDS [TARGET...]
#       Configures and builds the `fuzz` preset (incrementally; with --build-if-missing only when
#       the fuzz build has no targets yet), writes the seeds (make_seeds.py), then runs every
#       target (or the ones named, e.g. fuzz_pubtator) for SECONDS each. New inputs that add
#       coverage are kept in build/fuzz/corpus/<target>/; a crash, time-out, out-of-memory or
#       leak is written to build/fuzz/artifacts/<target>/. Prints per target the executions and
#       libFuzzer's final cov: / ft: figures, and exits non-zero naming each target that found
#       something and its input.
#   tests/fuzz/run_fuzzers.sh --regressions [--build-if-missing]
#       Replays every file of tests/fuzz/regressions/<target>/ through fuzz_<target> once (the
#       inputs of past findings: each one is a regression test) and exits non-zero when any of
#       them still fails.
#
# Each target's libFuzzer options (-max_len, -rss_limit_mb, -malloc_limit_mb, -timeout) and its
# dictionary are in the "// fuzz-options:" and "// fuzz-dict:" lines of its .cpp, next to the
# reasons for them. Environment: JOBS (build parallelism, default 2), FUZZ_NICE (niceness of the
# build and the fuzzers, default 10), TMPDIR (scratch files; /dev/shm when unset and writable),
# FUZZ_KEEP_SEEDS (1: do not rewrite the seeds), FUZZ_SUMMARY (where the summary table goes,
# default build/fuzz/fuzz-summary.txt).
set -uo pipefail
cd "$(dirname "$0")/../.."
ROOT=$PWD
BUILD=$ROOT/build/fuzz
FUZZ_SRC=$ROOT/tests/fuzz
JOBS=${JOBS:-2}
NICE=${FUZZ_NICE:-10}

mode=fuzz
build_if_missing=0
seconds=
targets=()
while [ $# -gt 0 ]; do
  case "$1" in
    --regressions) mode=regressions ;;
    --build-if-missing) build_if_missing=1 ;;
    -h|--help) sed -n '2,24p' "$0"; exit 0 ;;
    fuzz_*) targets+=("$1") ;;
    *)
      if [[ "$1" =~ ^[0-9]+$ ]] && [ -z "$seconds" ]; then seconds=$1
      else echo "run_fuzzers.sh: unexpected argument '$1' (see --help)" >&2; exit 2; fi ;;
  esac
  shift
done
if [ "$mode" = fuzz ] && [ -z "$seconds" ]; then
  echo "usage: tests/fuzz/run_fuzzers.sh [--build-if-missing] SECONDS [TARGET...] | --regressions" >&2
  exit 2
fi

all_targets=()
for source in "$FUZZ_SRC"/fuzz_*.cpp; do
  name=$(basename "$source" .cpp)
  all_targets+=("$name")
done
[ ${#targets[@]} -gt 0 ] || targets=("${all_targets[@]}")
for t in "${targets[@]}"; do
  [ -f "$FUZZ_SRC/$t.cpp" ] || { echo "run_fuzzers.sh: no target $t (tests/fuzz/$t.cpp)" >&2; exit 2; }
done

# ----- build ------------------------------------------------------------------------------------
have_all_binaries() {
  local t
  [ -x "$BUILD/bin/linkscope_fuzz_seeds" ] || return 1
  for t in "${all_targets[@]}"; do [ -x "$BUILD/bin/$t" ] || return 1; done
}
if [ "$build_if_missing" = 1 ] && have_all_binaries; then
  echo "run_fuzzers.sh: using the existing fuzz build in build/fuzz (--build-if-missing)"
else
  if [ ! -f "$BUILD/build.ninja" ]; then
    cmake --preset fuzz >/dev/null || { echo "run_fuzzers.sh: cmake --preset fuzz failed" >&2; exit 1; }
  fi
  start=$(date +%s)
  nice -n "$NICE" cmake --build --preset fuzz -j "$JOBS" || { echo "run_fuzzers.sh: the fuzz build failed" >&2; exit 1; }
  echo "run_fuzzers.sh: fuzz build ready ($(( $(date +%s) - start )) s)"
fi

if [ -z "${TMPDIR:-}" ] && [ -d /dev/shm ] && [ -w /dev/shm ]; then export TMPDIR=/dev/shm; fi
# Leaks are findings too; UBSan already aborts (-fno-sanitize-recover), print its stack.
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}

# The libFuzzer flags of a target from its .cpp ("// fuzz-options:" and "// fuzz-dict:").
target_flags() {
  local source=$FUZZ_SRC/$1.cpp dict
  sed -n 's|^// fuzz-options:||p' "$source"
  dict=$(sed -n 's|^// fuzz-dict:[[:space:]]*||p' "$source")
  [ -n "$dict" ] && echo "-dict=$FUZZ_SRC/dicts/$dict"
}

# ----- regressions ------------------------------------------------------------------------------
if [ "$mode" = regressions ]; then
  failed=0 replayed=0
  shopt -s nullglob
  for folder in "$FUZZ_SRC"/regressions/*/; do
    target=fuzz_$(basename "$folder")
    inputs=("$folder"*)
    [ ${#inputs[@]} -gt 0 ] || continue
    if [ ! -x "$BUILD/bin/$target" ]; then
      echo "FAIL $folder: no target $target"; failed=1; continue
    fi
    read -r -a flags <<<"$(target_flags "$target" | tr '\n' ' ')"
    for input in "${inputs[@]}"; do
      [ -f "$input" ] || continue
      case "$(basename "$input")" in README*|*.md) continue ;; esac
      replayed=$((replayed + 1))
      log=$(mktemp)
      if nice -n "$NICE" "$BUILD/bin/$target" "${flags[@]}" -runs=1 "$input" >"$log" 2>&1; then
        echo "ok   $target ${input#"$ROOT"/}"
      else
        echo "FAIL $target ${input#"$ROOT"/}"
        grep -m3 -E 'ERROR: |fuzz finding|runtime error|ALARM|out-of-memory|malloc\(' "$log" | sed 's/^/       /'
        failed=1
      fi
      rm -f "$log"
    done
  done
  echo "run_fuzzers.sh: $replayed regression input(s) replayed"
  exit $failed
fi

# ----- fuzzing ----------------------------------------------------------------------------------
# FUZZ_KEEP_SEEDS=1 keeps build/fuzz/seeds as they are (run_long.sh writes them once and runs
# several of these side by side: a second writer would empty the folder a fuzzer is reading).
if [ "${FUZZ_KEEP_SEEDS:-0}" = 1 ] && [ -d "$BUILD/seeds" ]; then
  echo "run_fuzzers.sh: keeping the seeds in build/fuzz/seeds (FUZZ_KEEP_SEEDS=1)"
else
  echo "run_fuzzers.sh: writing seeds"
  python3 "$FUZZ_SRC/make_seeds.py" --out "$BUILD/seeds" --seed-writer "$BUILD/bin/linkscope_fuzz_seeds" ||
    { echo "run_fuzzers.sh: make_seeds.py failed" >&2; exit 1; }
fi

mkdir -p "$BUILD/logs"
summary=()
findings=()
for target in "${targets[@]}"; do
  short=${target#fuzz_}
  corpus=$BUILD/corpus/$target
  artifacts=$BUILD/artifacts/$target
  log=$BUILD/logs/$target.log
  mkdir -p "$corpus" "$artifacts" "$BUILD/seeds/$short"
  read -r -a flags <<<"$(target_flags "$target" | tr '\n' ' ')"
  echo "== $target (${seconds} s) ${flags[*]}"
  # The first folder receives the new inputs; the seeds and the past findings
  # (tests/fuzz/regressions/<target>/, where there are any) are only read.
  inputs=("$corpus" "$BUILD/seeds/$short")
  [ -d "$FUZZ_SRC/regressions/$short" ] && inputs+=("$FUZZ_SRC/regressions/$short")
  nice -n "$NICE" "$BUILD/bin/$target" "${inputs[@]}" "${flags[@]}" \
    -max_total_time="$seconds" -print_final_stats=1 -artifact_prefix="$artifacts/" >"$log" 2>&1
  status=$?
  last=$(grep -E '^#[0-9]+' "$log" | tail -1)
  execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
  [ -n "$execs" ] || execs=$(sed -E -n 's/^#([0-9]+).*/\1/p' <<<"$last")
  rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log" | tail -1)
  rss=$(sed -n 's/^stat::peak_rss_mb: *//p' "$log" | tail -1)
  cov=$(sed -E -n 's/.* cov: ([0-9]+).*/\1/p' <<<"$last")
  ft=$(sed -E -n 's/.* ft: ([0-9]+).*/\1/p' <<<"$last")
  entries=$(find "$corpus" -type f | wc -l)
  verdict=ok
  if [ $status -ne 0 ]; then
    artifact=$(sed -E -n 's/.*Test unit written to (.*)$/\1/p' "$log" | tail -1)
    kind=crash
    grep -q 'ERROR: libFuzzer: timeout' "$log" && kind=timeout
    grep -q 'ERROR: libFuzzer: out-of-memory' "$log" && kind=oom
    grep -q 'ERROR: LeakSanitizer' "$log" && kind=leak
    verdict="$kind"
    findings+=("$target: $kind, input ${artifact:-(none written; see build/fuzz/logs/$target.log)}")
    grep -m4 -E 'ERROR: |fuzz finding|runtime error|SUMMARY: ' "$log" | sed 's/^/   /'
  fi
  line=$(printf '%-24s %-8s execs %-10s cov %-6s ft %-7s corpus %-6s exec/s %-7s rss %s MB' \
    "$target" "$verdict" "${execs:-?}" "${cov:-?}" "${ft:-?}" "$entries" "${rate:-?}" "${rss:-?}")
  echo "$line"
  summary+=("$line")
done

echo
echo "== summary (${seconds} s per target; logs in build/fuzz/logs/)"
printf '%s\n' "${summary[@]}" | tee "${FUZZ_SUMMARY:-$BUILD/fuzz-summary.txt}"
if [ ${#findings[@]} -gt 0 ]; then
  echo
  echo "run_fuzzers.sh: findings:" >&2
  printf '  %s\n' "${findings[@]}" >&2
  exit 1
fi
echo "run_fuzzers.sh: no findings"
