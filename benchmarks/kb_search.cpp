// kb_search: how fast the GUI's entity search answers on MEDIC while a user types.
//
// Loads MEDIC (the vocabulary of NCBI Disease), runs the homonym expansion, builds the entity
// search index over names and expanded names (core/kb/entity_search.h), then replays queries
// as they are typed, one character at a time ("n", "ne", "neo", ...), timing each search
// `reps` times. Prints markdown tables: one row per typed prefix (median / p90 / max ms, hits,
// class of the best hit), then the same figures per query length over all queries.
//
//   kb_search [--kb FILE | --umls MRCONSO.RRF] [--reps R] [--limit N] [--json]
//     --kb FILE   a MEDIC file; default $LINKSCOPE_DATA_DIR (or the configured shared data)
//                 /medic/medic_06Jul2012.txt. Without it the benchmark says so and exits 0.
//     --umls FILE a UMLS MRCONSO.RRF instead (English names, as a project loads it): the search
//                 at UMLS size, e.g. the generate_umls_medmentions.py output
//     --reps R    timings per typed prefix; default 50
//     --limit N   hits per search, as the search box asks; default 50
//     --json      the figures as one JSON object on standard output (json_report.h)
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "json_report.h"
#include "kb/dictionary_loader.h"
#include "kb/entity_search.h"
#include "kb/homonyms.h"
#include "kb/umls_loader.h"
#include "util/error.h"

namespace {

using Clock = std::chrono::steady_clock;
namespace fs = std::filesystem;

double millisecondsSince(Clock::time_point since) {
    return std::chrono::duration<double, std::milli>(Clock::now() - since).count();
}

// Nearest-rank percentile of sorted values.
double percentile(const std::vector<double>& sorted, double p) {
    if (sorted.empty()) return 0;
    const auto rank = static_cast<std::size_t>(p * static_cast<double>(sorted.size() - 1) + 0.5);
    return sorted[std::min(rank, sorted.size() - 1)];
}

fs::path defaultKb() {
    const char* env = std::getenv("LINKSCOPE_DATA_DIR");
    const fs::path data = env && *env ? fs::path(env) : fs::path(LINKSCOPE_DEFAULT_DATA_DIR);
    return data / "medic" / "medic_06Jul2012.txt";
}

// What users type: prefixes of names, two words, an id, a long phrase; "plasm" and "qxz" make
// the search fall through to the substring scan (a hit deep inside names, and no hit at all).
const std::vector<std::string> kQueries{"neoplasm", "breast canc", "D0093", "hereditary nonpolyposis", "plasm", "qxz"};

}  // namespace

int main(int argc, char** argv) {
    linkscope::bench::JsonReport report("kb_search", argc, argv);
    fs::path kbPath = defaultKb();
    bool umls = false;
    int reps = 50;
    std::size_t limit = 50;
    for (int i = 1; i < argc; ++i) {
        const std::string_view arg = argv[i];
        if (arg == "--kb" && i + 1 < argc)
            kbPath = argv[++i];
        else if (arg == "--umls" && i + 1 < argc) {
            kbPath = argv[++i];
            umls = true;
        } else if (arg == "--reps" && i + 1 < argc)
            reps = std::max(1, std::atoi(argv[++i]));
        else if (arg == "--limit" && i + 1 < argc)
            limit = static_cast<std::size_t>(std::max(1, std::atoi(argv[++i])));
        else {
            std::fprintf(stderr, "usage: kb_search [--kb FILE | --umls MRCONSO.RRF] [--reps R] [--limit N] [--json]\n");
            return 2;
        }
    }
    if (!fs::exists(kbPath)) {
        std::printf("kb_search: skipped, MEDIC not found at %s (set LINKSCOPE_DATA_DIR or pass --kb)\n",
                    kbPath.string().c_str());
        report.figures()["skipped"] = "knowledge base not found: " + kbPath.string();
        return 0;
    }
    try {
        auto start = Clock::now();
        const linkscope::kb::KnowledgeBase kb =
            umls ? linkscope::kb::loadUmls(kbPath, std::nullopt).kb : linkscope::kb::loadDictionary(kbPath).kb;
        const double loadMs = millisecondsSince(start);
        start = Clock::now();
        const linkscope::kb::HomonymExpansion homonyms = linkscope::kb::expandHomonyms(kb);
        const double homonymMs = millisecondsSince(start);
        start = Clock::now();
        const linkscope::kb::EntitySearchIndex namesOnly(kb);
        const double buildNamesMs = millisecondsSince(start);
        start = Clock::now();
        const linkscope::kb::EntitySearchIndex index(kb, &homonyms);
        const double buildMs = millisecondsSince(start);

        std::printf("# kb_search on %s\n\n", kbPath.filename().string().c_str());
        std::printf(
            "%zu entities, %zu names; index: %zu entries (names + expanded names), %zu words, %zu ids, %.1f MiB\n\n",
            kb.entityCount(), kb.pairCount(), index.entryCount(), index.wordCount(), index.idCount(),
            static_cast<double>(index.memoryBytes()) / (1024.0 * 1024.0));
        std::printf("| step | ms |\n| --- | ---: |\n");
        std::printf("| load %s | %.0f |\n| homonym expansion | %.0f |\n", umls ? "UMLS" : "MEDIC", loadMs, homonymMs);
        std::printf("| build index, names only | %.0f |\n| build index, names + expanded names | %.0f |\n\n",
                    buildNamesMs, buildMs);

        report.parameters() = {{"kb", kbPath.filename().string()}, {"umls", umls}, {"reps", reps}, {"limit", limit}};
        auto& figures = report.figures();
        figures["entities"] = kb.entityCount();
        figures["names"] = kb.pairCount();
        figures["index_entries"] = index.entryCount();
        figures["index_mib"] = static_cast<double>(index.memoryBytes()) / (1024.0 * 1024.0);
        figures["load_ms"] = loadMs;
        figures["homonym_expansion_ms"] = homonymMs;
        figures["build_names_only_ms"] = buildNamesMs;
        figures["build_with_expanded_names_ms"] = buildMs;
        figures["prefixes"] = nlohmann::ordered_json::array();
        figures["by_length"] = nlohmann::ordered_json::array();
        // Taken once both keys exist: no key is added to the figures after these.
        auto& prefixes = figures["prefixes"];
        auto& lengths = figures["by_length"];

        std::printf("Each typed prefix searched %d times, limit %zu:\n\n", reps, limit);
        std::printf("| typed | length | median ms | p90 ms | max ms | hits | best hit |\n");
        std::printf("| --- | ---: | ---: | ---: | ---: | ---: | --- |\n");
        std::map<std::size_t, std::vector<double>> byLength;
        std::vector<double> all;
        for (const std::string& query : kQueries) {
            for (std::size_t n = 1; n <= query.size(); ++n) {
                const std::string typed = query.substr(0, n);
                std::vector<double> times;
                std::size_t hits = 0;
                std::string best = "-";
                for (int r = 0; r < reps; ++r) {
                    const auto t = Clock::now();
                    const auto found = index.search(typed, limit);
                    times.push_back(millisecondsSince(t));
                    hits = found.size();
                    if (!found.empty())
                        best = std::string(linkscope::kb::toString(found.front().match)) + ": " +
                               std::string(kb.primaryId(found.front().entity)) + " " + std::string(found.front().text);
                }
                std::sort(times.begin(), times.end());
                std::printf("| `%s` | %zu | %.3f | %.3f | %.3f | %zu | %s |\n", typed.c_str(), n,
                            percentile(times, 0.5), percentile(times, 0.9), times.back(), hits, best.c_str());
                prefixes.push_back({{"typed", typed},
                                    {"median_ms", percentile(times, 0.5)},
                                    {"p90_ms", percentile(times, 0.9)},
                                    {"max_ms", times.back()},
                                    {"hits", hits},
                                    {"best_hit", best}});
                byLength[n].insert(byLength[n].end(), times.begin(), times.end());
                all.insert(all.end(), times.begin(), times.end());
            }
        }
        std::printf("\nPer query length, over all queries of that length:\n\n");
        std::printf("| length | searches | median ms | p90 ms | max ms |\n| ---: | ---: | ---: | ---: | ---: |\n");
        for (auto& [length, times] : byLength) {
            std::sort(times.begin(), times.end());
            std::printf("| %zu | %zu | %.3f | %.3f | %.3f |\n", length, times.size(), percentile(times, 0.5),
                        percentile(times, 0.9), times.back());
            lengths.push_back({{"length", std::to_string(length)},
                               {"searches", times.size()},
                               {"median_ms", percentile(times, 0.5)},
                               {"p90_ms", percentile(times, 0.9)},
                               {"max_ms", times.back()}});
        }
        std::sort(all.begin(), all.end());
        std::printf("| all | %zu | %.3f | %.3f | %.3f |\n", all.size(), percentile(all, 0.5), percentile(all, 0.9),
                    all.back());
        lengths.push_back({{"length", "all"},
                           {"searches", all.size()},
                           {"median_ms", percentile(all, 0.5)},
                           {"p90_ms", percentile(all, 0.9)},
                           {"max_ms", all.back()}});
    } catch (const std::exception& e) {
        std::fprintf(stderr, "kb_search: %s\n", e.what());
        return 1;
    }
    return 0;
}
