// Starts as the applications do (util::restartWithHugePages first), then reports on standard
// output what it runs with: its pid, GLIBC_TUNABLES, whether huge pages are asked for, and the
// AnonHugePages it holds with a 64 MiB block from malloc touched (test_huge_pages).
#include <cstdio>
#include <cstdlib>
#include <vector>

#include <unistd.h>

#include "util/huge_pages.h"

int main(int, char** argv) {
    linkscope::util::restartWithHugePages(argv);
    constexpr std::size_t kBytes = std::size_t{64} << 20;
    std::vector<char> block(kBytes, 1);  // malloc'd and touched: faulted in
    const long hugeKb = linkscope::util::anonHugePagesKb();
    const char* tunables = std::getenv("GLIBC_TUNABLES");
    std::printf("pid=%ld\ntunables=%s\nrequested=%d\nanon_huge_kb=%ld\nlast_byte=%d\n", static_cast<long>(::getpid()),
                tunables ? tunables : "", linkscope::util::hugePagesRequested() ? 1 : 0, hugeKb, block.back());
    return 0;
}
