#!/usr/bin/env python3
"""Drops the given files' pages from the page cache, so that the next run reads them from disk.

A cold start of `ui_stall` at UMLS size (docs/benchmarks.md) reads gigabytes of KB files; whether
they are still cached from an earlier run changes the window's time by seconds. No root needed:
posix_fadvise(POSIX_FADV_DONTNEED) drops a file's clean pages. `fincore FILE` shows the result.

    benchmarks/evict_page_cache.py /tmp/umls-mm/MRCONSO.RRF /tmp/umls-mm/MRSTY.RRF /tmp/umls-mm/corpus_pubtator.txt.gz
"""
import os
import sys


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    for path in sys.argv[1:]:
        fd = os.open(path, os.O_RDONLY)
        try:
            os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
        finally:
            os.close(fd)


if __name__ == "__main__":
    main()
