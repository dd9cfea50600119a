// Helper of test_project_store's crash tests, killed with SIGKILL by the test.
//
//   project_store_crash_writer PROJECT N
// records crashDecision(0), crashDecision(1), ... into an existing project, one committed
// record() at a time, and prints "saved <id>" (flushed) after each, until it has recorded N or is
// killed. Whatever it printed must be in the file afterwards.
//
//   project_store_crash_writer merge INTO FROM K
// merges FROM into INTO (curation::mergeDecisions); when the merge asks whether it is cancelled
// for the K-th time (before writing its K-th decision, K - 1 written inside its transaction), it
// prints "merging <K>" (flushed) and waits to be killed. INTO must then be exactly as before.
#include <chrono>
#include <cstdio>
#include <exception>
#include <string>
#include <string_view>
#include <thread>

#include "crash_decisions.h"
#include "curation/curator_merge.h"
#include "project/project_store.h"

namespace {

int recordUntilKilled(const char* project, const char* count) {
    auto store = linkscope::project::ProjectStore::open(project);
    const std::size_t records = std::stoull(count);
    for (std::size_t index = 0; index < records; ++index) {
        const auto saved = store.record(linkscope::test::crashDecision(index));
        std::printf("saved %lld\n", static_cast<long long>(saved.id));
        std::fflush(stdout);
    }
    return 0;
}

int mergeUntilKilled(const char* into, const char* from, const char* pauseAt) {
    auto target = linkscope::project::ProjectStore::open(into);
    const auto source = linkscope::project::ProjectStore::open(from);
    const std::size_t pause = std::stoull(pauseAt);
    std::size_t asked = 0;
    linkscope::ProgressSink progress;
    progress.cancelled = [&] {
        if (++asked == pause) {
            std::printf("merging %zu\n", asked);
            std::fflush(stdout);
            std::this_thread::sleep_for(std::chrono::minutes(10));  // until the test kills it
        }
        return false;
    };
    (void)linkscope::curation::mergeDecisions(target, source, {}, progress);
    std::printf("merged\n");
    return 0;
}

}  // namespace

int main(int argc, char** argv) {
    const bool merge = argc == 5 && std::string_view(argv[1]) == "merge";
    if (argc != 3 && !merge) {
        std::fprintf(stderr, "usage: %s PROJECT N | %s merge INTO FROM K\n", argv[0], argv[0]);
        return 2;
    }
    try {
        return merge ? mergeUntilKilled(argv[2], argv[3], argv[4]) : recordUntilKilled(argv[1], argv[2]);
    } catch (const std::exception& e) {
        std::fprintf(stderr, "%s\n", e.what());
        return 1;
    }
}
