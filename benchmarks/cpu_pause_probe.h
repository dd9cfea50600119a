#pragma once
// One thread per CPU, each pinned to its CPU, that asks to wake every millisecond at real-time
// priority (SCHED_FIFO, priority 1) and records how late each wake-up came (ui_stall's
// stalls). No thread of normal priority can keep it from its core, so a late wake-up of tens of
// milliseconds means that the CPU did not run at all: in a virtual machine, the host did not run
// that virtual CPU (time the guest cannot see as steal when it reports none). Pinned, because an
// unpinned real-time thread would simply wake on the other CPU while one is paused. SCHED_FIFO needs CAP_SYS_NICE (root, or a raised
// RLIMIT_RTPRIO); without it the probe runs at normal priority and says so (realtime() false),
// and its lateness then includes ordinary waits for a core.
//
// Cost: about a thousand short wake-ups a second. The stall meter takes the longest lateness seen
// since its previous tick with takeLongestLateMs().
#include <algorithm>
#include <atomic>
#include <cstdint>
#include <thread>
#include <vector>

#include <pthread.h>
#include <sched.h>
#include <time.h>

namespace linkscope::bench {

class CpuPauseProbe {
public:
    /// A probe on every CPU.
    CpuPauseProbe() : CpuPauseProbe(allCpus()) {}
    /// A probe on each of the CPUs given (page_fault_stall: only those its worker leaves alone).
    explicit CpuPauseProbe(const std::vector<unsigned>& cpus) {
        realtime_ = true;
        for (const unsigned cpu : cpus) {
            threads_.emplace_back([this] { run(); });
            cpu_set_t set;
            CPU_ZERO(&set);
            CPU_SET(cpu, &set);
            (void)::pthread_setaffinity_np(threads_.back().native_handle(), sizeof set, &set);
            sched_param param{};
            param.sched_priority = 1;
            if (::pthread_setschedparam(threads_.back().native_handle(), SCHED_FIFO, &param) != 0) realtime_ = false;
        }
    }
    ~CpuPauseProbe() {
        stop_.store(true);
        for (std::thread& thread : threads_) thread.join();
    }
    CpuPauseProbe(const CpuPauseProbe&) = delete;
    CpuPauseProbe& operator=(const CpuPauseProbe&) = delete;

    bool realtime() const noexcept { return realtime_; }
    /// The latest wake-up of any of the probes since the previous call, in milliseconds past its
    /// due time.
    double takeLongestLateMs() noexcept { return double(longestLateNs_.exchange(0)) / 1e6; }

    /// CLOCK_MONOTONIC in nanoseconds, the probes' clock.
    static std::int64_t nowNs() noexcept {
        timespec now{};
        ::clock_gettime(CLOCK_MONOTONIC, &now);
        return std::int64_t(now.tv_sec) * 1'000'000'000 + now.tv_nsec;
    }

private:
    static std::vector<unsigned> allCpus() {
        std::vector<unsigned> cpus(std::max(1u, std::thread::hardware_concurrency()));
        for (unsigned cpu = 0; cpu < cpus.size(); ++cpu) cpus[cpu] = cpu;
        return cpus;
    }
    void run() {
        constexpr std::int64_t kPeriodNs = 1'000'000;
        while (!stop_.load(std::memory_order_relaxed)) {
            const std::int64_t due = nowNs() + kPeriodNs;
            timespec wait{0, kPeriodNs};
            ::clock_nanosleep(CLOCK_MONOTONIC, 0, &wait, nullptr);
            const std::int64_t late = nowNs() - due;
            std::int64_t seen = longestLateNs_.load(std::memory_order_relaxed);
            while (late > seen && !longestLateNs_.compare_exchange_weak(seen, late)) {
            }
        }
    }

    std::atomic<bool> stop_{false};
    std::atomic<std::int64_t> longestLateNs_{0};
    bool realtime_ = false;
    std::vector<std::thread> threads_;
};

}  // namespace linkscope::bench
