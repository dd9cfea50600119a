#pragma once
// What the GUI thread is doing while it does not answer (ui_stall's stalls over 100 ms that no
// long event delivery explains). A watchdog thread notices that the GUI thread's timer
// has not ticked for kQuietMs and then samples it every kEveryMs until it ticks again:
//   - the system call it is blocked in and the kernel function it waits in
//     (/proc/self/task/TID/syscall and wchan): a futex is a lock, poll or epoll_wait the event
//     loop waiting for something to do, "running" its own work;
//   - its user-space stack: the watchdog sends it SIGUSR2, whose handler takes backtrace() (a
//     blocking system call is restarted or, for poll, retried by the event loop: the sample
//     costs the thread microseconds, and only during a stall). Frames in shared libraries carry
//     their exported names; the executable's own (which exports nothing: cmake/executable-
//     symbols.map) read "ui_stall(+0xOFFSET)": `addr2line -f -C -e ui_stall 0xOFFSET` names them.
// Linux only (procfs, gettid); elsewhere it samples nothing. Benchmark code: the signal handler
// writes to one process-wide slot, so there is one sampler per process.
#include <array>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <fstream>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#ifdef __linux__
#include <execinfo.h>
#include <pthread.h>
#include <signal.h>
#include <unistd.h>
#endif

namespace linkscope::bench {

class ThreadSampler {
public:
    static constexpr std::int64_t kQuietMs = 40;  ///< no tick for this long: start sampling
    static constexpr std::int64_t kEveryMs = 20;  ///< then one sample this often
    static constexpr int kFrames = 40;

    struct Sample {
        std::int64_t atNs = 0;            ///< steady_clock
        std::string syscall;              ///< /proc/.../syscall: "running", or the call number and arguments
        std::string wchan;                ///< the kernel function it waits in ("0" when running)
        std::vector<std::string> frames;  ///< backtrace_symbols() of its stack, innermost first
    };

    /// Samples the calling thread (the GUI thread) from now on.
    ThreadSampler() {
#ifdef __linux__
        tid_ = static_cast<long>(::gettid());
        thread_ = ::pthread_self();
        void* warm[4];
        (void)::backtrace(warm, 4);  // loads libgcc's unwinder now, not inside the handler
        struct sigaction action {};
        action.sa_handler = &ThreadSampler::onSignal;
        action.sa_flags = SA_RESTART;
        sigemptyset(&action.sa_mask);
        ::sigaction(SIGUSR2, &action, nullptr);
        lastBeatNs_.store(nowNs());
        watchdog_ = std::thread([this] { watch(); });
#endif
    }
    ~ThreadSampler() {
        stop_.store(true);
        if (watchdog_.joinable()) watchdog_.join();
    }
    ThreadSampler(const ThreadSampler&) = delete;
    ThreadSampler& operator=(const ThreadSampler&) = delete;

    static std::int64_t nowNs() {
        return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch())
            .count();
    }
    /// The sampled thread answered (call it on each tick of its timer).
    void beat() { lastBeatNs_.store(nowNs(), std::memory_order_relaxed); }
    /// Sampling only while a measurement runs.
    void setActive(bool active) {
        beat();
        active_.store(active);
    }
    /// The samples taken between two steady_clock times, removed from the sampler.
    std::vector<Sample> take(std::int64_t fromNs, std::int64_t toNs) {
        const std::lock_guard lock(mutex_);
        std::vector<Sample> taken, kept;
        for (auto& sample : samples_)
            (sample.atNs >= fromNs && sample.atNs <= toNs ? taken : kept).push_back(std::move(sample));
        samples_ = std::move(kept);
        return taken;
    }

private:
#ifdef __linux__
    static inline std::array<void*, kFrames> frames_{};
    static inline std::atomic<int> frameCount_{-1};

    static void onSignal(int) {
        const int saved = errno;
        frameCount_.store(::backtrace(frames_.data(), kFrames), std::memory_order_release);
        errno = saved;
    }

    static std::string firstLine(const std::string& path) {
        std::ifstream in(path);
        std::string line;
        std::getline(in, line);
        return line;
    }

    void watch() {
        const std::string task = "/proc/self/task/" + std::to_string(tid_) + "/";
        std::int64_t lastSampleNs = 0;
        while (!stop_.load()) {
            std::this_thread::sleep_for(std::chrono::milliseconds(5));
            const std::int64_t now = nowNs();
            if (!active_.load() || now - lastBeatNs_.load(std::memory_order_relaxed) < kQuietMs * 1'000'000 ||
                now - lastSampleNs < kEveryMs * 1'000'000)
                continue;
            lastSampleNs = now;
            Sample sample;
            sample.atNs = now;
            sample.syscall = firstLine(task + "syscall");
            sample.wchan = firstLine(task + "wchan");
            frameCount_.store(-1);
            ::pthread_kill(thread_, SIGUSR2);
            for (int waited = 0; waited < 200 && frameCount_.load(std::memory_order_acquire) < 0; ++waited)
                std::this_thread::sleep_for(std::chrono::microseconds(100));
            if (const int count = frameCount_.load(std::memory_order_acquire); count > 0) {
                char** names = ::backtrace_symbols(frames_.data(), count);
                // Frame 0 is the handler and 1 the signal trampoline.
                for (int i = 2; names && i < count; ++i) sample.frames.emplace_back(names[i]);
                std::free(names);
            }
            const std::lock_guard lock(mutex_);
            samples_.push_back(std::move(sample));
        }
    }

    long tid_ = 0;
    pthread_t thread_{};
#endif
    std::atomic<std::int64_t> lastBeatNs_{0};
    std::atomic<bool> active_{false};
    std::atomic<bool> stop_{false};
    std::mutex mutex_;
    std::vector<Sample> samples_;
    std::thread watchdog_;
};

}  // namespace linkscope::bench
