// Does one thread's memory work stall the other CPUs? (benchmarks/ui_stall found its GUI stalls
// over 100 ms each coming with its real-time probe late by about as much.)
//
// One thread, pinned to CPU 0, maps a large anonymous block, touches every page (page faults
// bring it in) and unmaps it, as a worker does with a big temporary vector. Meanwhile a probe
// thread pinned to the last CPU, at real-time priority (SCHED_FIFO 1) when allowed, asks to wake
// every millisecond and records how late each wake-up comes. On a machine whose CPUs run
// independently the probe is never late by more than a fraction of a millisecond: the worker's
// page faults and unmapping take the worker's CPU only. It is run twice: with ordinary 4 KiB
// pages, and with the block advised for transparent huge pages (madvise(MADV_HUGEPAGE): 2 MiB
// pages, 512 times fewer faults and page-table entries), which is what glibc's malloc does for
// its own blocks with GLIBC_TUNABLES=glibc.malloc.hugetlb=1 (util/huge_pages.h).
//
// A third figure: a read pass over another block, 256 MiB, resident all along (faulted in once,
// never unmapped), timed warm and again right after each unmap. On a machine whose page tables
// the hardware walks, both passes take the same time; where the host keeps its own copy of them
// (a paravirtualized guest's shadow page tables), an unmap elsewhere in the process may drop that
// copy, and every page of the resident block costs a fault the guest does not see (no page fault
// counted) on the next pass: a first pass after such work was several times slower in
// model_linking (the reach pass) and feedback_latency (the first search).
//
// Usage: page_fault_stall [--mb 1024] [--rounds 5] [--json]
// Prints a Markdown table: per page size, the time to fault the block in and to unmap it
// (median and max over the rounds), the probe's longest lateness in each phase, the resident
// block's pass warm and after the unmap (medians), and the AnonHugePages the process held with
// the block in, the resident one included (so that a "huge" row that got no huge pages, e.g.
// with THP off, shows it). With --json, the same rows as one JSON object (json_report.h).
#include "json_report.h"

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include <pthread.h>
#include <sys/mman.h>

#include "cpu_pause_probe.h"
#include "util/huge_pages.h"

namespace {

using linkscope::bench::CpuPauseProbe;

// This thread onto one CPU (the probe pins its own threads).
void pinTo(unsigned cpu) {
    cpu_set_t set;
    CPU_ZERO(&set);
    CPU_SET(cpu, &set);
    (void)::pthread_setaffinity_np(::pthread_self(), sizeof set, &set);
}

struct Phase {
    std::vector<double> ms, lateMs;
    double median() {
        std::sort(ms.begin(), ms.end());
        return ms[ms.size() / 2];
    }
    double max() const { return *std::max_element(ms.begin(), ms.end()); }
    double maxLate() const { return *std::max_element(lateMs.begin(), lateMs.end()); }
};

}  // namespace

int main(int argc, char** argv) {
    linkscope::bench::JsonReport report("page_fault_stall", argc, argv);
    std::size_t mb = 1024, rounds = 5;
    for (int i = 1; i + 1 < argc; i += 2) {
        const std::string_view flag = argv[i];
        const auto value = static_cast<std::size_t>(std::strtoull(argv[i + 1], nullptr, 10));
        if (flag == "--mb" && value > 0)
            mb = value;
        else if (flag == "--rounds" && value > 0)
            rounds = value;
        else {
            std::fprintf(stderr, "usage: page_fault_stall [--mb N] [--rounds N] [--json]\n");
            return 2;
        }
    }
    const unsigned cpus = std::max(1u, std::thread::hardware_concurrency());
    if (cpus < 2) {
        std::fprintf(stderr, "page_fault_stall: needs two CPUs (the worker on one, the probe on another)\n");
        return 2;
    }
    pinTo(0);
    // The probe on the last CPU only: the worker's own CPU would show its own kernel work.
    CpuPauseProbe probe(std::vector<unsigned>{cpus - 1});
    const std::size_t bytes = mb << 20;

    std::printf("# One thread's page faults and unmapping against a probe on another CPU\n\n");
    std::printf("CPUs: %u; worker on CPU 0, probe on CPU %u (%s). Block: %zu MiB, %zu rounds.\n", cpus, cpus - 1,
                probe.realtime() ? "real-time, SCHED_FIFO 1" : "normal priority: SCHED_FIFO refused", mb, rounds);
    const std::string mode = linkscope::util::transparentHugePagesMode();
    std::printf("Transparent huge pages: %s\n\n", mode.empty() ? "(unreadable)" : mode.c_str());
    std::printf(
        "| pages | fault in: median / max | probe late, fault in | unmap: median / max | probe late, unmap | idle: "
        "probe late | resident 256 MiB read: warm / after the unmap | AnonHugePages held |\n");
    std::printf("|---|---|---|---|---|---|---|---|\n");
    constexpr std::size_t kResidentBytes = std::size_t{256} << 20;
    report.parameters() = {{"mb", mb}, {"rounds", rounds}, {"cpus", cpus}};
    report.figures()["probe_realtime"] = probe.realtime();
    report.figures()["transparent_huge_pages"] = mode;
    auto& rows = report.figures()["pages"] = nlohmann::ordered_json::array();
    for (const bool huge : {false, true}) {
        Phase in, out, idle, warmPass, afterPass;
        long hugeKb = 0;
        void* resident = ::mmap(nullptr, kResidentBytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (resident == MAP_FAILED) {
            std::fprintf(stderr, "page_fault_stall: mmap of the resident block failed\n");
            return 1;
        }
        if (huge) (void)::madvise(resident, kResidentBytes, MADV_HUGEPAGE);
        std::memset(resident, 1, kResidentBytes);
        // One read per 4 KiB page and a sum the compiler cannot drop: the page walk is the cost.
        const auto readPass = [&] {
            const std::int64_t start = CpuPauseProbe::nowNs();
            const volatile unsigned char* page = static_cast<const unsigned char*>(resident);
            unsigned sum = 0;
            for (std::size_t at = 0; at < kResidentBytes; at += 4096) sum += page[at];
            if (sum == 0) std::fprintf(stderr, "(empty)\n");
            return double(CpuPauseProbe::nowNs() - start) / 1e6;
        };
        for (std::size_t r = 0; r < rounds; ++r) {
            // Idle, as long as a fault-in took: the probe's own baseline on this machine.
            probe.takeLongestLateMs();
            std::this_thread::sleep_for(std::chrono::milliseconds(r == 0 ? 200 : static_cast<long>(in.ms.back())));
            idle.lateMs.push_back(probe.takeLongestLateMs());
            idle.ms.push_back(0.0);

            void* block = ::mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
            if (block == MAP_FAILED) {
                std::fprintf(stderr, "page_fault_stall: mmap of %zu MiB failed\n", mb);
                return 1;
            }
            if (huge) (void)::madvise(block, bytes, MADV_HUGEPAGE);
            probe.takeLongestLateMs();
            std::int64_t start = CpuPauseProbe::nowNs();
            std::memset(block, 1, bytes);
            in.ms.push_back(double(CpuPauseProbe::nowNs() - start) / 1e6);
            in.lateMs.push_back(probe.takeLongestLateMs());
            hugeKb = std::max(hugeKb, linkscope::util::anonHugePagesKb());
            probe.takeLongestLateMs();
            start = CpuPauseProbe::nowNs();
            ::munmap(block, bytes);
            out.ms.push_back(double(CpuPauseProbe::nowNs() - start) / 1e6);
            out.lateMs.push_back(probe.takeLongestLateMs());
            afterPass.ms.push_back(readPass());
            warmPass.ms.push_back(readPass());
        }
        ::munmap(resident, kResidentBytes);
        std::printf(
            "| %s | %.1f / %.1f ms | %.1f ms | %.1f / %.1f ms | %.1f ms | %.1f ms | %.2f / %.2f ms | %ld kB |\n",
            huge ? "huge (MADV_HUGEPAGE)" : "4 KiB", in.median(), in.max(), in.maxLate(), out.median(), out.max(),
            out.maxLate(), idle.maxLate(), warmPass.median(), afterPass.median(), hugeKb);
        rows.push_back({{"pages", huge ? "huge (MADV_HUGEPAGE)" : "4 KiB"},
                        {"fault_in_median_ms", in.median()},
                        {"fault_in_max_ms", in.max()},
                        {"probe_late_fault_in_ms", in.maxLate()},
                        {"unmap_median_ms", out.median()},
                        {"unmap_max_ms", out.max()},
                        {"probe_late_unmap_ms", out.maxLate()},
                        {"probe_late_idle_ms", idle.maxLate()},
                        {"resident_read_warm_ms", warmPass.median()},
                        {"resident_read_after_unmap_ms", afterPass.median()},
                        {"anon_huge_pages_kb", hugeKb}});
    }
    return 0;
}
