#!/usr/bin/env bash
# Fails when a tracked C++ file differs from what clang-format makes of it under .clang-format.
# Pinned to clang-format 14 (Debian bookworm's), since other versions lay out some constructs
# differently. `tools/check_format.sh --fix` rewrites the files instead.
set -euo pipefail
cd "$(dirname "$0")/.."
tool=clang-format-14
command -v "$tool" >/dev/null || { echo "check_format: $tool not found (packaging/install-deps.sh installs it)" >&2; exit 1; }
mapfile -t files < <(git ls-files '*.cpp' '*.h')
if [ "${1:-}" = "--fix" ]; then
  "$tool" -i "${files[@]}"
  exit 0
fi
if "$tool" --dry-run --Werror "${files[@]}" 2>/tmp/check_format.$$; then
  echo "check_format: ${#files[@]} files formatted as .clang-format says"
  rm -f /tmp/check_format.$$
else
  grep -E '^[^ ].*: error:' /tmp/check_format.$$ | cut -d: -f1 | sort -u | sed 's/^/check_format: not formatted: /' >&2
  rm -f /tmp/check_format.$$
  echo "check_format: run tools/check_format.sh --fix" >&2
  exit 1
fi
