#pragma once
// Measuring what one read adds to a process's peak resident size, for the reader-memory suites
// (test_reader_memory, test_json_reader_memory): the read runs in a child process whose peak is
// reset just before it (/proc/self/clear_refs) and read just after (VmHWM).
#include <QtTest>

#include <sys/wait.h>
#include <unistd.h>

#include <cstddef>
#include <exception>
#include <fstream>
#include <functional>
#include <string>

namespace linkscope::test {

inline constexpr std::size_t kMiB = std::size_t{1} << 20;
// What a read may add whatever its input: buffers, the allocator's arenas, code paged in.
inline constexpr std::size_t kFixedBytes = 24 * kMiB;

inline std::size_t statusBytes(const char* field) {
    std::ifstream status("/proc/self/status");
    std::string line;
    const std::string prefix = std::string(field) + ":";
    while (std::getline(status, line))
        if (line.starts_with(prefix)) return std::stoull(line.substr(prefix.size())) * 1024;  // "NNN kB"
    return 0;
}

inline bool canResetPeak() {
    std::ofstream clear("/proc/self/clear_refs");
    clear << "5";
    clear.flush();
    return static_cast<bool>(clear);
}

struct Measured {
    std::size_t peakGrowth = 0;  // bytes
    std::string outcome;         // "ok" or the error's what()
};

// Runs `read` in a child; its peak resident growth and how it ended.
inline Measured measure(const std::function<void()>& read) {
    int fds[2];
    if (::pipe(fds) != 0) qFatal("pipe failed");
    const pid_t pid = ::fork();
    if (pid < 0) qFatal("fork failed");
    if (pid == 0) {
        ::close(fds[0]);
        std::string outcome = "ok";
        canResetPeak();
        const std::size_t before = statusBytes("VmRSS");
        try {
            read();
        } catch (const std::exception& e) {
            outcome = e.what();
        }
        const std::size_t peak = statusBytes("VmHWM");
        const std::string report = std::to_string(peak > before ? peak - before : 0) + " " + outcome;
        const ssize_t written = ::write(fds[1], report.data(), report.size());
        ::_exit(written == static_cast<ssize_t>(report.size()) ? 0 : 1);
    }
    ::close(fds[1]);
    std::string report;
    char chunk[4096];
    for (ssize_t got; (got = ::read(fds[0], chunk, sizeof chunk)) > 0;)
        report.append(chunk, static_cast<std::size_t>(got));
    ::close(fds[0]);
    int status = 0;
    ::waitpid(pid, &status, 0);
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0 || report.find(' ') == std::string::npos)
        return {0, "the child did not report (status " + std::to_string(status) + ")"};
    const auto space = report.find(' ');
    return {std::stoull(report.substr(0, space)), report.substr(space + 1)};
}

/// Why a peak cannot be measured in this process (nullptr when it can): for QSKIP.
inline const char* peakNotMeasurable() {
#if defined(__SANITIZE_ADDRESS__)
    return "AddressSanitizer's shadow memory and quarantine make resident sizes say nothing of the reader";
#else
    if (!canResetPeak()) return "/proc/self/clear_refs cannot be written here: the peak cannot be measured";
    return nullptr;
#endif
}

/// Fails the test when the read's peak grew by more than `bound` bytes; logs the figures.
inline void expectPeakWithin(const Measured& measured, std::size_t bound, const char* what) {
    qInfo("%s: peak grew by %.1f MiB (bound %.1f MiB): %s", what, double(measured.peakGrowth) / double(kMiB),
          double(bound) / double(kMiB), measured.outcome.substr(0, 160).c_str());
    QVERIFY2(measured.peakGrowth <= bound, what);
}

}  // namespace linkscope::test
