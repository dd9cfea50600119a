#!/usr/bin/env bash
# Builds benchmarks/string_pool_intern.cpp against core/kb/string_pool.{h,cpp} as each given
# commit has them and runs it on each: the pool's work in loading UMLS, before and after a change
# to the pool, on one machine in one go. The pool needs nothing of core but util/error.h, so each
# build is one g++ call (-O2, as the default preset's RelWithDebInfo), not a build of core.
#
#   benchmarks/string_pool_ab.sh [--scale S] [--reserve] COMMIT [COMMIT ...]
#   e.g. benchmarks/string_pool_ab.sh 31398f8 HEAD
set -euo pipefail
cd "$(dirname "$0")/.."
options=()
while [ "${1:-}" = "--scale" ] || [ "${1:-}" = "--reserve" ]; do
  if [ "$1" = "--scale" ]; then options+=(--scale "$2"); shift 2; else options+=(--reserve); shift; fi
done
[ $# -ge 1 ] || { echo "usage: $0 [--scale S] [--reserve] COMMIT [COMMIT ...]" >&2; exit 2; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
for commit in "$@"; do
  dir="$work/$commit"
  mkdir -p "$dir/kb"
  git show "$commit:core/kb/string_pool.h" > "$dir/kb/string_pool.h"
  git show "$commit:core/kb/string_pool.cpp" > "$dir/kb/string_pool.cpp"
  # The benchmark's own source is this checkout's, so that every commit runs the same program.
  g++ -std=c++20 -O2 -DNDEBUG -I"$dir" -Icore benchmarks/string_pool_intern.cpp "$dir/kb/string_pool.cpp" \
      -o "$dir/string_pool_intern"
  echo "## core/kb/string_pool at $(git rev-parse --short "$commit")"
  echo
  "$dir/string_pool_intern" "${options[@]}"
  echo
done
