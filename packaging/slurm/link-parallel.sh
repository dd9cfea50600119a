#!/usr/bin/env bash
# Links a corpus in shards on one workstation, with GNU parallel: the same steps as submit-link.sh
# on a Slurm cluster (the indexes built once, N shards linked P at a time, then merged).
#
#   packaging/slurm/link-parallel.sh --shards N --jobs P --out SHARDS_DIR --merged FILE [OPTIONS] \
#       [-- index INDEX_ARGS...] -- link LINK_ARGS...
#
#   --shards N           the number of shards (required)
#   --jobs P             shards linked at a time (parallel -j P; default: 1)
#   --out SHARDS_DIR     the folder of the shards' outputs and manifests (required)
#   --merged FILE        the merged corpus (required)
#   --cli PATH           the linkscope-cli to run (default: the one on PATH)
#
# `-- index INDEX_ARGS...` runs `linkscope-cli index INDEX_ARGS` first; `-- link LINK_ARGS...`
# gives link's arguments for every shard, to which this script adds --shard I/N and
# --out SHARDS_DIR, and --threads (the cores divided among the P shards) unless they name it.
# Each shard's output is printed at its end, every line prefixed with the shard's number. When a
# shard fails the others still run to their end and nothing is merged: the exit status is then
# the number of failed shards (at most 100), and running the same command again links only the
# shards without a complete manifest. docs/cluster.md has a worked example.
set -euo pipefail

die() {
  echo "link-parallel.sh: $*" >&2
  exit 2
}

shards="" jobs=1 out="" merged="" cli=""
while [ $# -gt 0 ] && [ "$1" != "--" ]; do
  case "$1" in
    --shards) shards=${2:?--shards needs a value}; shift 2 ;;
    --shards=*) shards=${1#*=}; shift ;;
    --jobs | -j) jobs=${2:?--jobs needs a value}; shift 2 ;;
    --jobs=*) jobs=${1#*=}; shift ;;
    --out) out=${2:?--out needs a value}; shift 2 ;;
    --out=*) out=${1#*=}; shift ;;
    --merged) merged=${2:?--merged needs a value}; shift 2 ;;
    --merged=*) merged=${1#*=}; shift ;;
    --cli) cli=${2:?--cli needs a value}; shift 2 ;;
    --cli=*) cli=${1#*=}; shift ;;
    -h | --help) sed -n '2,/^set -euo/{/^set -euo/d;s/^# \{0,1\}//;p}' "${BASH_SOURCE[0]}"; exit 0 ;;
    *) die "unknown option $1 (see --help)" ;;
  esac
done

# The command groups: "-- index ARGS..." and "-- link ARGS...", each up to the next lone "--".
index_args=() link_args=() have_index=0 have_link=0
while [ $# -gt 0 ]; do
  shift  # the "--"
  [ $# -gt 0 ] || die "a lone -- must be followed by index or link"
  group=$1
  shift
  args=()
  while [ $# -gt 0 ] && [ "$1" != "--" ]; do
    args+=("$1")
    shift
  done
  case "$group" in
    index) [ $have_index -eq 0 ] || die "two index groups"; have_index=1; index_args=("${args[@]}") ;;
    link) [ $have_link -eq 0 ] || die "two link groups"; have_link=1; link_args=("${args[@]}") ;;
    *) die "after --, expected index or link, not $group" ;;
  esac
done

[ -n "$shards" ] || die "--shards N is required"
[ -n "$out" ] || die "--out SHARDS_DIR is required"
[ -n "$merged" ] || die "--merged FILE is required"
[ $have_link -eq 1 ] || die "the link arguments are required: -- link LINK_ARGS..."
[[ "$shards" =~ ^[1-9][0-9]*$ ]] || die "--shards takes a positive number, not $shards"
[[ "$jobs" =~ ^[1-9][0-9]*$ ]] || die "--jobs takes a positive number, not $jobs"
command -v parallel >/dev/null || die "GNU parallel is not installed (Debian: apt-get install parallel)"
if [ -z "$cli" ]; then
  cli=$(command -v linkscope-cli) || die "linkscope-cli is not on PATH: give --cli PATH"
fi
[ -x "$cli" ] || die "$cli is not an executable"

# The search threads of each shard: the cores shared among the shards that run at once.
case " ${link_args[*]} " in
  *" --threads "* | *" --threads="*) ;;
  *)
    cores=$(nproc)
    link_args+=(--threads "$((cores / jobs > 0 ? cores / jobs : 1))")
    ;;
esac

if [ $have_index -eq 1 ]; then
  echo "+ linkscope-cli index ${index_args[*]}" >&2
  "$cli" index "${index_args[@]}"
fi

echo "+ $shards shards, $jobs at a time: linkscope-cli link --shard I/$shards --out $out ${link_args[*]}" >&2
mkdir -p -- "$out"
# -q quotes every argument for the shell parallel starts; {} is the shard's number.
parallel -q -j "$jobs" --tag "$cli" link --shard "{}/$shards" --out "$out" "${link_args[@]}" \
  ::: $(seq 0 $((shards - 1)))

echo "+ linkscope-cli merge-shards $out --out $merged" >&2
"$cli" merge-shards "$out" --out "$merged"
