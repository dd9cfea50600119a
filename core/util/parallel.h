#pragma once
// Running a function on several threads and passing the first exception on to the caller (the
// sparse index, the TF-IDF fit, the evaluation dictionary).
#include <algorithm>
#include <exception>
#include <mutex>
#include <thread>
#include <vector>

namespace linkscope::util {

/// 0 means one thread per hardware thread.
inline unsigned threadCount(unsigned requested) noexcept {
    return requested != 0 ? requested : std::max(1u, std::thread::hardware_concurrency());
}

/// Calls work(t) for t in [0, threads) on `threads` threads (the calling thread included) and
/// waits for all of them; rethrows the first exception any of them threw.
template <typename Work>
void runOnThreads(unsigned threads, Work&& work) {
    if (threads <= 1) {
        work(0u);
        return;
    }
    std::exception_ptr failure;
    std::mutex failureMutex;
    const auto guarded = [&](unsigned t) {
        try {
            work(t);
        } catch (...) {
            const std::lock_guard lock(failureMutex);
            if (!failure) failure = std::current_exception();
        }
    };
    {
        std::vector<std::jthread> workers;
        workers.reserve(threads - 1);
        for (unsigned t = 1; t < threads; ++t) workers.emplace_back(guarded, t);
        guarded(0);
    }
    if (failure) std::rethrow_exception(failure);
}

}  // namespace linkscope::util
