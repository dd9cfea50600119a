#!/usr/bin/env bash
# Links a corpus on a Slurm cluster: submits the index job (optional), the link array and the merge
# job, each depending on the one before, and returns at once.
#
#   packaging/slurm/submit-link.sh --shards N --out SHARDS_DIR --merged FILE [OPTIONS] \
#       [-- index INDEX_ARGS...] -- link LINK_ARGS...
#
#   --shards N           the number of shards, one array task each (required)
#   --out SHARDS_DIR     the folder of the shards' outputs and manifests (required)
#   --merged FILE        the merged corpus the last job writes (required)
#   --max-running P      at most P tasks of the array at a time (sbatch --array=0-(N-1)%P)
#   --cli PATH           the linkscope-cli the jobs run (default: the one on PATH)
#   --logs DIR           the jobs' logs (default: SHARDS_DIR.logs)
#   --sbatch-option OPT  an sbatch option for every job, e.g. --sbatch-option=--partition=batch
#                        (repeatable; it overrides the scripts' #SBATCH defaults)
#   --dry-run            print the sbatch commands instead of running them
#
# `-- index INDEX_ARGS...` submits `linkscope-cli index INDEX_ARGS` (build-index.sbatch) first,
# and the array waits for it; `-- link LINK_ARGS...` gives link's arguments for every task
# (link-array.sbatch adds --shard slurm and --out SHARDS_DIR). The merge job (merge-shards.sbatch)
# starts when every task has ended with status 0; a failed job cancels the ones after it.
#
# Prints the job ids on standard output, one "index_job=ID", "array_job=ID" and "merge_job=ID" line
# each. Paths are taken from the current directory, where the jobs run too. docs/cluster.md has a
# worked example; packaging/slurm/link-parallel.sh runs the same steps on one workstation.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
die() {
  echo "submit-link.sh: $*" >&2
  exit 2
}

shards="" out="" merged="" max_running="" cli="" logs="" dry_run=0
sbatch_options=()
while [ $# -gt 0 ] && [ "$1" != "--" ]; do
  case "$1" in
    --shards) shards=${2:?--shards needs a value}; shift 2 ;;
    --shards=*) shards=${1#*=}; shift ;;
    --out) out=${2:?--out needs a value}; shift 2 ;;
    --out=*) out=${1#*=}; shift ;;
    --merged) merged=${2:?--merged needs a value}; shift 2 ;;
    --merged=*) merged=${1#*=}; shift ;;
    --max-running) max_running=${2:?--max-running needs a value}; shift 2 ;;
    --max-running=*) max_running=${1#*=}; shift ;;
    --cli) cli=${2:?--cli needs a value}; shift 2 ;;
    --cli=*) cli=${1#*=}; shift ;;
    --logs) logs=${2:?--logs needs a value}; shift 2 ;;
    --logs=*) logs=${1#*=}; shift ;;
    --sbatch-option) sbatch_options+=("${2:?--sbatch-option needs a value}"); shift 2 ;;
    --sbatch-option=*) sbatch_options+=("${1#*=}"); shift ;;
    --dry-run) dry_run=1; shift ;;
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
[ -z "$max_running" ] || [[ "$max_running" =~ ^[1-9][0-9]*$ ]] ||
  die "--max-running takes a positive number, not $max_running"

if [ -z "$cli" ]; then
  cli=$(command -v linkscope-cli) || die "linkscope-cli is not on PATH: give --cli PATH"
fi
[ -x "$cli" ] || die "$cli is not an executable"
# The jobs may start in another directory layout than this shell's: an absolute path.
LINKSCOPE_CLI=$(cd "$(dirname "$cli")" && pwd)/$(basename "$cli")
export LINKSCOPE_CLI
[ -n "$logs" ] || logs="${out%/}.logs"

array="0-$((shards - 1))"
[ -z "$max_running" ] || array+="%$max_running"

# Runs one sbatch command and prints the job id; with --dry-run, prints the command and NAME.
submit() {
  local name=$1
  shift
  if [ $dry_run -eq 1 ]; then
    printf '%q ' sbatch "$@" >&2
    echo >&2
    echo "$name"
  else
    sbatch "$@"
  fi
}

if [ $dry_run -eq 0 ]; then
  command -v sbatch >/dev/null || die "sbatch is not on PATH (is this a Slurm login node?)"
  mkdir -p -- "$logs" "$out"
fi
common=(--parsable --export=ALL "${sbatch_options[@]}")

after=()
if [ $have_index -eq 1 ]; then
  index_job=$(submit INDEX_JOB "${common[@]}" --output="$logs/index-%j.log" "$here/build-index.sbatch" \
    "${index_args[@]}")
  index_job=${index_job%%;*}
  echo "index_job=$index_job"
  after=(--dependency="afterok:$index_job" --kill-on-invalid-dep=yes)
fi

array_job=$(submit ARRAY_JOB "${common[@]}" "${after[@]}" --array="$array" --output="$logs/link-%A_%a.log" \
  "$here/link-array.sbatch" "$out" "${link_args[@]}")
array_job=${array_job%%;*}
echo "array_job=$array_job"

merge_job=$(submit MERGE_JOB "${common[@]}" --dependency="afterok:$array_job" --kill-on-invalid-dep=yes \
  --output="$logs/merge-%j.log" "$here/merge-shards.sbatch" "$out" "$merged")
merge_job=${merge_job%%;*}
echo "merge_job=$merge_job"

echo "submit-link.sh: $shards shards of job $array_job into $out; job $merge_job merges them into" \
  "$merged (logs in $logs)" >&2
