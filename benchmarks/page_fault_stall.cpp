// Does one thread's memory work stall the other CPUs? (issue 17: every GUI stall over 100 ms
// that ui_stall found came with its real-time probe late by 62 to 119 ms.)
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
// model_linking (the reach pass, 124 ms against 17 ms) and feedback_latency (the first search).
//
// Usage: page_fault_stall [--mb 1024] [--rounds 5]
// Prints a Markdown table: per page size, the time to fault the block in and to unmap it
// (median and max over the rounds), the probe's longest lateness in each phase, the resident
// block's pass warm and after the unmap (medians), and the AnonHugePages the process held with
// the block in, the resident one included (so that a "huge" row that got no huge pages, e.g.
// with THP off, shows it).
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include <pthread.h>
#include <sched.h>
#include <sys/mman.h>
#include <time.h>

namespace {

std::int64_t nowNs() {
    timespec now{};
    ::clock_gettime(CLOCK_MONOTONIC, &now);
    return std::int64_t(now.tv_sec) * 1'000'000'000 + now.tv_nsec;
}

void pinTo(unsigned cpu) {
    cpu_set_t set;
    CPU_ZERO(&set);
    CPU_SET(cpu, &set);
    (void)::pthread_setaffinity_np(::pthread_self(), sizeof set, &set);
}

// The probe: a wake-up every millisecond on one CPU; the longest lateness since the last take.
class Probe {
public:
    explicit Probe(unsigned cpu) {
        thread_ = std::thread([this, cpu] {
            pinTo(cpu);
            sched_param param{};
            param.sched_priority = 1;
            realtime_ = ::pthread_setschedparam(::pthread_self(), SCHED_FIFO, &param) == 0;
            started_.store(true);
            while (!stop_.load(std::memory_order_relaxed)) {
                const std::int64_t due = nowNs() + 1'000'000;
                timespec wait{0, 1'000'000};
                ::clock_nanosleep(CLOCK_MONOTONIC, 0, &wait, nullptr);
                const std::int64_t late = nowNs() - due;
                std::int64_t seen = longest_.load(std::memory_order_relaxed);
                while (late > seen && !longest_.compare_exchange_weak(seen, late)) {
                }
            }
        });
        while (!started_.load()) std::this_thread::yield();
    }
    ~Probe() {
        stop_.store(true);
        thread_.join();
    }
    Probe(const Probe&) = delete;
    Probe& operator=(const Probe&) = delete;
    bool realtime() const { return realtime_; }
    double takeMs() { return double(longest_.exchange(0)) / 1e6; }

private:
    std::atomic<bool> stop_{false}, started_{false};
    std::atomic<std::int64_t> longest_{0};
    bool realtime_ = false;
    std::thread thread_;
};

std::string firstLine(const char* path) {
    std::ifstream in(path);
    std::string line;
    std::getline(in, line);
    return line.empty() ? "(unreadable)" : line;
}

long anonHugeKb() {
    std::ifstream in("/proc/self/smaps_rollup");
    std::string key;
    long value = 0;
    while (in >> key) {
        if (key == "AnonHugePages:" && (in >> value)) return value;
        in.ignore(1 << 20, '\n');
    }
    return -1;
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
    std::size_t mb = 1024, rounds = 5;
    for (int i = 1; i + 1 < argc; i += 2) {
        const std::string_view flag = argv[i];
        const auto value = static_cast<std::size_t>(std::strtoull(argv[i + 1], nullptr, 10));
        if (flag == "--mb" && value > 0) mb = value;
        else if (flag == "--rounds" && value > 0) rounds = value;
        else {
            std::fprintf(stderr, "usage: page_fault_stall [--mb N] [--rounds N]\n");
            return 2;
        }
    }
    const unsigned cpus = std::max(1u, std::thread::hardware_concurrency());
    if (cpus < 2) {
        std::fprintf(stderr, "page_fault_stall: needs two CPUs (the worker on one, the probe on another)\n");
        return 2;
    }
    pinTo(0);
    Probe probe(cpus - 1);
    const std::size_t bytes = mb << 20;

    std::printf("# One thread's page faults and unmapping against a probe on another CPU\n\n");
    std::printf("CPUs: %u; worker on CPU 0, probe on CPU %u (%s). Block: %zu MiB, %zu rounds.\n", cpus, cpus - 1,
                probe.realtime() ? "real-time, SCHED_FIFO 1" : "normal priority: SCHED_FIFO refused", mb, rounds);
    std::printf("Transparent huge pages: %s\n\n", firstLine("/sys/kernel/mm/transparent_hugepage/enabled").c_str());
    std::printf("| pages | fault in: median / max | probe late, fault in | unmap: median / max | probe late, unmap | idle: probe late | resident 256 MiB read: warm / after the unmap | AnonHugePages held |\n");
    std::printf("|---|---|---|---|---|---|---|---|\n");
    constexpr std::size_t kResidentBytes = std::size_t{256} << 20;
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
            const std::int64_t start = nowNs();
            const volatile unsigned char* page = static_cast<const unsigned char*>(resident);
            unsigned sum = 0;
            for (std::size_t at = 0; at < kResidentBytes; at += 4096) sum += page[at];
            if (sum == 0) std::fprintf(stderr, "(empty)\n");
            return double(nowNs() - start) / 1e6;
        };
        for (std::size_t r = 0; r < rounds; ++r) {
            // Idle, as long as a fault-in took: the probe's own baseline on this machine.
            probe.takeMs();
            std::this_thread::sleep_for(std::chrono::milliseconds(r == 0 ? 200 : static_cast<long>(in.ms.back())));
            idle.lateMs.push_back(probe.takeMs());
            idle.ms.push_back(0.0);

            void* block = ::mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
            if (block == MAP_FAILED) {
                std::fprintf(stderr, "page_fault_stall: mmap of %zu MiB failed\n", mb);
                return 1;
            }
            if (huge) (void)::madvise(block, bytes, MADV_HUGEPAGE);
            probe.takeMs();
            std::int64_t start = nowNs();
            std::memset(block, 1, bytes);
            in.ms.push_back(double(nowNs() - start) / 1e6);
            in.lateMs.push_back(probe.takeMs());
            hugeKb = std::max(hugeKb, anonHugeKb());
            probe.takeMs();
            start = nowNs();
            ::munmap(block, bytes);
            out.ms.push_back(double(nowNs() - start) / 1e6);
            out.lateMs.push_back(probe.takeMs());
            afterPass.ms.push_back(readPass());
            warmPass.ms.push_back(readPass());
        }
        ::munmap(resident, kResidentBytes);
        std::printf("| %s | %.1f / %.1f ms | %.1f ms | %.1f / %.1f ms | %.1f ms | %.1f ms | %.2f / %.2f ms | %ld kB |\n",
                    huge ? "huge (MADV_HUGEPAGE)" : "4 KiB", in.median(), in.max(), in.maxLate(), out.median(), out.max(),
                    out.maxLate(), idle.maxLate(), warmPass.median(), afterPass.median(), hugeKb);
    }
    return 0;
}
