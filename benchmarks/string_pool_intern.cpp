// string_pool_intern: the string pool's part of loading UMLS (the GUI's window at UMLS size).
//
// The UMLS loader interns every MRCONSO row's CUI (the entity's key) and name into StringPools,
// and a CPU profile of the GUI loading a UMLS-size KB found a large share of the loader's time
// in StringPool::slotOf. This program does the pools' work alone, on strings of UMLS's
// shape, so that two versions of core/kb/string_pool.cpp can be compared on it
// (benchmarks/string_pool_ab.sh builds it against each commit's pool):
//   - rows in concept order, as MRCONSO lists them: 3.5 M CUIs of 8 characters ("C0000042"), each
//     looked up on every one of its 1 to 4 rows (2.29 on average, 8 M rows), as the loader did
//     before it kept the last row's CUI;
//   - one name of 25 to 40 bytes per row, interned;
//   - every name looked up again (the name index and the homonym pass read them back).
// Prints wall time per phase, the pools' sizes and memory, and the machine.
//
//   string_pool_intern [--scale S] [--reserve] [--json]
//     --scale S    fraction of UMLS's 3.5 M concepts; default 1
//     --reserve    reserve both pools for the strings and bytes they will hold first (what a
//                  loader could do from the file's size), instead of growing them
//     --json       the figures as one JSON object on standard output (json_report.h)
#include <sys/utsname.h>
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <string>
#include <string_view>
#include <vector>

#include "generated_data.h"
#include "json_report.h"
#include "kb/string_pool.h"

namespace {

using linkscope::bench::Clock;
using linkscope::bench::seconds;
using linkscope::kb::StringPool;

// SplitMix64: the same strings on every run.
std::uint64_t mix(std::uint64_t x) {
    x += 0x9E3779B97F4A7C15ull;
    x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
    x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
    return x ^ (x >> 31);
}

std::string cuiOf(std::uint64_t number) {
    char text[24];  // room for any 64-bit number, so no truncation warning
    std::snprintf(text, sizeof text, "C%07llu", static_cast<unsigned long long>(number));
    return text;
}

constexpr std::string_view kWords[] = {"acute",      "chronic",    "familial",   "type",    "syndrome", "disorder",
                                       "deficiency", "primary",    "cardio",     "neuro",   "hepat",    "nephr",
                                       "osteitis",   "dermatosis", "gastralgia", "lymphoma"};

// 25 to 40 bytes, distinct per (concept, position): the concept number is spelled into it.
std::string nameOf(std::uint64_t conceptNumber, std::uint64_t position) {
    const std::uint64_t r = mix(conceptNumber * 8 + position);
    std::string name(kWords[r % 16]);
    name += ' ';
    name += kWords[(r >> 8) % 16];
    name += ' ';
    name += std::to_string(conceptNumber);
    name += '-';
    name += std::to_string(position);
    while (name.size() < 25) name += " x";
    if (name.size() > 40) name.resize(40);
    return name;
}

}  // namespace

int main(int argc, char** argv) {
    linkscope::bench::JsonReport report("string_pool_intern", argc, argv);
    double scale = 1.0;
    bool reserve = false;
    for (int i = 1; i < argc; ++i) {
        const std::string_view argument = argv[i];
        if (argument == "--scale" && i + 1 < argc) {
            scale = std::strtod(argv[++i], nullptr);
        } else if (argument == "--reserve") {
            reserve = true;
        } else {
            std::fprintf(stderr, "usage: string_pool_intern [--scale S] [--reserve] [--json]\n");
            return 2;
        }
    }
    if (!(scale > 0.0 && scale <= 2.5)) {
        std::fprintf(stderr, "string_pool_intern: --scale must be in (0, 2.5]\n");
        return 2;
    }
    const auto concepts = static_cast<std::uint64_t>(3'500'000 * scale);

    // The strings first, so that only the pools are timed.
    std::vector<std::uint32_t> rowConcept;
    std::vector<std::string> names;
    for (std::uint64_t c = 0; c < concepts; ++c) {
        const std::uint64_t r = mix(c);
        const std::uint64_t rows = 1 + r % 3 + ((r >> 8) % 7 < 2 ? 1 : 0);  // 2 + 2/7 = 2.29 on average
        for (std::uint64_t p = 0; p < rows; ++p) {
            rowConcept.push_back(static_cast<std::uint32_t>(c));
            names.push_back(nameOf(c, p));
        }
    }
    std::vector<std::string> cuis(concepts);
    for (std::uint64_t c = 0; c < concepts; ++c) cuis[c] = cuiOf(c);

    StringPool keys;
    StringPool pool;
    if (reserve) {
        std::size_t bytes = 0;
        for (const auto& name : names) bytes += name.size();
        keys.reserve(cuis.size(), cuis.size() * 8);
        pool.reserve(names.size(), bytes);
    }
    auto start = Clock::now();
    std::uint64_t checksum = 0;
    for (std::size_t row = 0; row < rowConcept.size(); ++row) {
        const std::string& cui = cuis[rowConcept[row]];
        // As KnowledgeBaseBuilder::entity: a lookup, then an intern when the key is new.
        const auto known = keys.find(cui);
        checksum += known ? *known : keys.intern(cui);
    }
    const double cuiSeconds = seconds(start);
    start = Clock::now();
    for (const auto& name : names) checksum += pool.intern(name);
    const double internSeconds = seconds(start);
    start = Clock::now();
    std::size_t found = 0;
    for (const auto& name : names) found += pool.find(name).has_value() ? 1 : 0;
    const double findSeconds = seconds(start);

    utsname machine{};
    uname(&machine);
    const std::time_t now = std::time(nullptr);
    char date[32];
    std::strftime(date, sizeof date, "%Y-%m-%dT%H:%M:%S", std::localtime(&now));
    std::printf("# StringPool at UMLS shape (scale %.2f%s)\n\n", scale, reserve ? ", reserved first" : "");
    std::printf("Machine: %s %s, %ld hardware threads. Date: %s.\n\n", machine.sysname, machine.machine,
                sysconf(_SC_NPROCESSORS_ONLN), date);
    std::printf("| phase | count | wall time |\n| --- | ---: | ---: |\n");
    std::printf("| CUI of every row looked up, interned when new | %zu rows, %zu CUIs | %.2f s |\n", rowConcept.size(),
                keys.size(), cuiSeconds);
    std::printf("| names interned | %zu | %.2f s |\n", pool.size(), internSeconds);
    std::printf("| names looked up again | %zu found | %.2f s |\n", found, findSeconds);
    std::printf("\nPools' memory: CUIs %.0f MiB, names %.0f MiB; peak RSS %.2f GiB; checksum %llu\n",
                static_cast<double>(keys.memoryBytes()) / (1024.0 * 1024.0),
                static_cast<double>(pool.memoryBytes()) / (1024.0 * 1024.0), linkscope::bench::peakRssGiB(),
                static_cast<unsigned long long>(checksum));
    report.parameters()["scale"] = scale;
    report.parameters()["reserve"] = reserve;
    report.figures() = {{"rows", rowConcept.size()},
                        {"cuis", keys.size()},
                        {"cui_lookup_intern_s", cuiSeconds},
                        {"names", pool.size()},
                        {"names_intern_s", internSeconds},
                        {"names_found", found},
                        {"names_find_s", findSeconds},
                        {"cui_pool_mib", static_cast<double>(keys.memoryBytes()) / (1024.0 * 1024.0)},
                        {"name_pool_mib", static_cast<double>(pool.memoryBytes()) / (1024.0 * 1024.0)},
                        {"peak_rss_gib", linkscope::bench::peakRssGiB()}};
    return found == names.size() ? 0 : 1;
}
