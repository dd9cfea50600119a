// Helper of test_project_store's crash test: records crashDecision(0), crashDecision(1), ... into
// an existing project, one committed record() at a time, and prints "saved <id>" (flushed) after
// each, until it has recorded N or is killed. Whatever it printed must be in the file afterwards.
//
//   project_store_crash_writer PROJECT N
#include <cstdio>
#include <exception>
#include <string>

#include "crash_decisions.h"
#include "project/project_store.h"

int main(int argc, char** argv) {
    if (argc != 3) {
        std::fprintf(stderr, "usage: %s PROJECT N\n", argv[0]);
        return 2;
    }
    try {
        auto store = linkscope::project::ProjectStore::open(argv[1]);
        const std::size_t count = std::stoull(argv[2]);
        for (std::size_t index = 0; index < count; ++index) {
            const auto saved = store.record(linkscope::test::crashDecision(index));
            std::printf("saved %lld\n", static_cast<long long>(saved.id));
            std::fflush(stdout);
        }
    } catch (const std::exception& e) {
        std::fprintf(stderr, "%s\n", e.what());
        return 1;
    }
    return 0;
}
