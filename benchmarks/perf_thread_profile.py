#!/usr/bin/env python3
"""Where one thread's CPU samples went, from `perf script` output with call chains.

The profiles of the GUI at UMLS size (`git show 88e03ec:docs/benchmarks.md`) were read with it:

    perf record -F 200 --call-graph dwarf,8192 -o perf.cpu -- env QT_QPA_PLATFORM=offscreen \\
        build/default/bin/ui_stall --manifest /tmp/umls-mm/project.json --no-training
    perf script -i perf.cpu --tid TID -F tid,time,ip,sym > thread.txt
    benchmarks/perf_thread_profile.py thread.txt --hz 200 --until 36 \\
        --category 'string pool=StringPool::slotOf' --category 'homonyms=expandHomonyms|HomonymExpansion'

Each sample goes to the first category whose regular expression matches a frame of its call
chain; the others are counted by their leaf frame (the first 60 characters), so a leaf whose
callers perf could not unwind (libc's memcmp, say) shows as itself. --from and --until are
seconds after the thread's first sample. Prints samples and seconds (samples / hz) per line.
"""
import argparse
import collections
import re
import sys


def samples(lines):
    """Yields (time, frames) per sample of `perf script -F tid,time,ip,sym` output."""
    header = re.compile(r"^\s*\d+\s+(\d+\.\d+):")
    time, frames = None, []
    for line in lines:
        match = header.match(line)
        if match:
            if time is not None:
                yield time, frames
            time, frames = float(match.group(1)), []
        elif line.strip() and time is not None:
            parts = line.strip().split(None, 1)
            frames.append(parts[1].split(" (")[0] if len(parts) > 1 else parts[0])
    if time is not None:
        yield time, frames


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("script", help="perf script output of one thread (- for standard input)")
    parser.add_argument("--hz", type=float, required=True, help="perf record's -F")
    parser.add_argument("--from", dest="start", type=float, default=0.0)
    parser.add_argument("--until", type=float, default=float("inf"))
    parser.add_argument("--category", action="append", default=[], help="NAME=REGEX, first match wins")
    parser.add_argument("--top", type=int, default=15)
    args = parser.parse_args()
    categories = []
    for spec in args.category:
        name, _, pattern = spec.partition("=")
        categories.append((name, re.compile(pattern)))
    stream = sys.stdin if args.script == "-" else open(args.script, encoding="utf-8", errors="replace")
    counts, total, first = collections.Counter(), 0, None
    for time, frames in samples(stream):
        first = time if first is None else first
        if not args.start <= time - first < args.until:
            continue
        total += 1
        chain = "\n".join(frames)
        name = next((n for n, p in categories if p.search(chain)), None)
        counts[name or ("leaf: " + (frames[0][:60] if frames else "?"))] += 1
    print(f"{total} samples, {total / args.hz:.1f} s of CPU")
    for name, count in counts.most_common(args.top):
        print(f"{count:8d}  {count / args.hz:6.1f} s  {name}")


if __name__ == "__main__":
    main()
