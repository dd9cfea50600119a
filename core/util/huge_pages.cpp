#include "util/huge_pages.h"

#include <cstdlib>
#include <fstream>

#if defined(__linux__)
#include <unistd.h>
#endif

namespace linkscope::util {

namespace {

constexpr std::string_view kTunable = "glibc.malloc.hugetlb";

// The bracketed word of the sysfs line: the mode in effect.
std::string_view selectedMode(std::string_view line) {
    const auto open = line.find('[');
    const auto close = line.find(']', open == std::string_view::npos ? 0 : open);
    if (open == std::string_view::npos || close == std::string_view::npos) return {};
    return line.substr(open + 1, close - open - 1);
}

std::string sysfsLine() {
    std::ifstream sysfs("/sys/kernel/mm/transparent_hugepage/enabled");
    std::string line;
    std::getline(sysfs, line);
    return line;
}

bool glibcHasTheTunable() {
#if defined(__GLIBC__) && defined(__GLIBC_PREREQ)
#if __GLIBC_PREREQ(2, 35)
    return true;
#endif
#endif
    return false;
}

}  // namespace

HugePagePlan planHugePages(std::string_view thpEnabledLine, const char* glibcTunables, const char* optOut) {
    HugePagePlan plan;
    const std::string_view tunables = glibcTunables ? glibcTunables : "";
    if (optOut && std::string_view(optOut) == "0") {
        plan.reason = "LINKSCOPE_HUGE_PAGES=0";
        return plan;
    }
    if (tunables.find(kTunable) != std::string_view::npos) {
        plan.reason = "GLIBC_TUNABLES already sets " + std::string(kTunable);
        return plan;
    }
    const std::string_view mode = selectedMode(thpEnabledLine);
    if (mode != "madvise") {
        plan.reason = mode.empty() ? "transparent huge pages unknown here"
                                   : "transparent huge pages are \"" + std::string(mode) + "\"";
        return plan;
    }
    plan.restart = true;
    plan.tunables = std::string(tunables.empty() ? "" : std::string(tunables) + ":") + std::string(kTunable) + "=1";
    plan.reason = "transparent huge pages are \"madvise\": restarting with GLIBC_TUNABLES=" + plan.tunables;
    return plan;
}

void restartWithHugePages(char** argv) noexcept {
#if defined(__linux__)
    if (!glibcHasTheTunable() || !argv || !argv[0]) return;
    try {
        const HugePagePlan plan =
            planHugePages(sysfsLine(), std::getenv("GLIBC_TUNABLES"), std::getenv("LINKSCOPE_HUGE_PAGES"));
        if (!plan.restart) return;
        // A second guard against a loop, should a C library drop the tunable from the environment.
        if (std::getenv("LINKSCOPE_HUGE_PAGES_RESTARTED")) return;
        const char* before = std::getenv("GLIBC_TUNABLES");
        const std::string original = before ? before : "";
        const bool had = before != nullptr;
        if (::setenv("GLIBC_TUNABLES", plan.tunables.c_str(), 1) != 0) return;
        (void)::setenv("LINKSCOPE_HUGE_PAGES_RESTARTED", "1", 1);
        ::execv("/proc/self/exe", argv);
        // Still here: the restart failed. Run as we are, with the environment as it was.
        (void)::unsetenv("LINKSCOPE_HUGE_PAGES_RESTARTED");
        if (had)
            (void)::setenv("GLIBC_TUNABLES", original.c_str(), 1);
        else
            (void)::unsetenv("GLIBC_TUNABLES");
    } catch (...) {
        // Nothing to undo: run without huge pages.
    }
#else
    (void)argv;
#endif
}

bool hugePagesRequested() noexcept {
    const char* value = std::getenv("GLIBC_TUNABLES");
    if (!glibcHasTheTunable() || !value) return false;
    // The last setting wins, as glibc reads the list: "glibc.malloc.hugetlb=N", N not 0.
    const std::string_view tunables = value;
    const std::string key = std::string(kTunable) + "=";
    const auto at = tunables.rfind(key);
    if (at == std::string_view::npos) return false;
    const std::string_view setting = tunables.substr(at + key.size(), tunables.find(':', at) - at - key.size());
    return !setting.empty() && setting != "0";
}

std::string transparentHugePagesMode() { return std::string(selectedMode(sysfsLine())); }

long anonHugePagesKb() {
    std::ifstream smaps("/proc/self/smaps_rollup");
    for (std::string key; smaps >> key;) {
        long kb = -1;
        if (key == "AnonHugePages:") return (smaps >> kb) ? kb : -1;
        smaps.ignore(1 << 20, '\n');
    }
    return -1;
}

}  // namespace linkscope::util
