#pragma once
// Transparent huge pages for the C library's large blocks, so that a worker's big allocations
// do not stall the GUI thread.
//
// Why: on a 2-CPU VM, a worker thread that faults in or unmaps a large block of ordinary 4 KiB
// pages (a 1 GiB block: 262,144 page faults, then as many entries torn down) stops the *other*
// CPU too: a real-time probe pinned there wakes up late by most of the GUI's 100 ms while the
// block is unmapped (benchmarks/page_fault_stall measures it). That is the signature of the "CPU
// pauses" that came with every GUI stall over 100 ms that benchmarks/ui_stall found while the KB
// and its indexes were built. With the block advised for 2 MiB pages (MADV_HUGEPAGE) the unmap
// is short and the probe stays on time. Debian's kernels set transparent huge pages to
// "madvise": only blocks that ask get them. glibc (2.35 on) asks for every block malloc maps when
// started with GLIBC_TUNABLES=glibc.malloc.hugetlb=1, which covers our vectors and also
// LibTorch's, FAISS's and Qt's allocations; a tunable is read once, when the program starts,
// hence the restart.
//
// Cost: the 2 MiB granularity can keep a little more memory resident; at MedMentions + UMLS
// size the peak of benchmarks/ui_stall stays within its run-to-run spread with and without them.
#include <string>
#include <string_view>

namespace linkscope::util {

/// What restartWithHugePages() would do, decided from the kernel's THP setting (the line of
/// /sys/kernel/mm/transparent_hugepage/enabled, e.g. "always [madvise] never") and the
/// environment (GLIBC_TUNABLES; LINKSCOPE_HUGE_PAGES, "0" to opt out). Pure, for the tests.
struct HugePagePlan {
    bool restart = false;
    std::string tunables;  ///< the GLIBC_TUNABLES value to restart with (when restart)
    std::string reason;    ///< why (not), for a log line
};
HugePagePlan planHugePages(std::string_view thpEnabledLine, const char* glibcTunables, const char* optOut);

/// Call first thing in main(), before any thread starts: where the plan says so (glibc 2.35 or
/// later on Linux, THP "madvise", the tunable not yet set, no opt-out), replaces this process
/// with the same program and arguments (execv of /proc/self/exe) with the tunable added.
/// Otherwise, or if the restart fails, returns and the program runs as it is.
void restartWithHugePages(char** argv) noexcept;

/// Whether this process runs with malloc's huge pages asked for (the tunable is set).
bool hugePagesRequested() noexcept;

/// The transparent-huge-page mode in effect: "always", "madvise" or "never" (the bracketed word
/// of /sys/kernel/mm/transparent_hugepage/enabled); "" where it cannot be read.
std::string transparentHugePagesMode();

/// The anonymous memory this process holds in huge pages, in kB (AnonHugePages of
/// /proc/self/smaps_rollup); -1 where it cannot be read. For the tests and benchmarks that check
/// that huge pages were given.
long anonHugePagesKb();

}  // namespace linkscope::util
