// kb_memory: how much memory and time a UMLS-sized knowledge base costs.
//
// Writes a synthetic MRCONSO.RRF + MRSTY.RRF of UMLS size (default 3.5 M concepts, 8 M names
// of 25-40 bytes, ~2 % of names shared between concepts so that homonyms exist, the rows of a
// concept scattered through the file, some rows in other languages or suppressed) to a
// temporary folder, loads it through the real UMLS loader, runs the homonym expansion (exact
// and normalized names), and prints peak resident memory (getrusage) and wall time per step.
//
//   kb_memory [--scale S] [--dir DIR] [--keep] [--no-normalized] [--json]
//     --scale S        fraction of the UMLS size (0.01 for a quick run); default 1
//     --dir DIR        where to write the RRF files; default a new folder under $TMPDIR or /tmp
//     --keep           keep the generated files
//     --no-normalized  skip the homonym run on normalized names
//     --json           the figures as one JSON object on standard output (json_report.h)
#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <string>
#include <string_view>
#include <vector>

#include "json_report.h"
#include "kb/homonyms.h"
#include "kb/umls_loader.h"
#include "util/error.h"

namespace {

using Clock = std::chrono::steady_clock;
namespace fs = std::filesystem;
using linkscope::kb::HomonymOptions;
using linkscope::kb::HomonymStatistics;

double seconds(Clock::time_point since) { return std::chrono::duration<double>(Clock::now() - since).count(); }

double peakRssMiB() {
    rusage usage{};
    getrusage(RUSAGE_SELF, &usage);
    return static_cast<double>(usage.ru_maxrss) / 1024.0;  // Linux reports KiB
}

double currentRssMiB() {
    std::ifstream statm("/proc/self/statm");
    long pages = 0, resident = 0;
    statm >> pages >> resident;
    return static_cast<double>(resident) * static_cast<double>(sysconf(_SC_PAGESIZE)) / (1024.0 * 1024.0);
}

double mib(std::size_t bytes) { return static_cast<double>(bytes) / (1024.0 * 1024.0); }

// SplitMix64: a fixed, fast generator, so that every run writes the same file.
std::uint64_t mix(std::uint64_t x) {
    x += 0x9E3779B97F4A7C15ull;
    x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
    x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
    return x ^ (x >> 31);
}

constexpr std::array<std::string_view, 24> kStems{
    "cardio", "neuro", "hepat", "nephr",    "oste",  "derm", "gastr", "pulmon", "hemat",  "immun",  "onco",   "endo",
    "myo",    "arthr", "angi",  "encephal", "lymph", "thyr", "adren", "retin",  "cerebr", "vascul", "muscul", "cyt"};
constexpr std::array<std::string_view, 12> kEndings{"itis",   "opathy", "oma",  "osis",     "algia", "ectomy",
                                                    "plasia", "emia",   "uria", "ogenesis", "otomy", "ase"};
constexpr std::array<std::string_view, 16> kWords{
    "acute",     "chronic",  "familial",   "type",    "syndrome", "disorder", "deficiency", "primary",
    "secondary", "juvenile", "congenital", "protein", "receptor", "kinase",   "factor",     "complex"};
constexpr std::array<std::string_view, 8> kSemanticTypes{"T047|B2.2.1.2.1|Disease or Syndrome",
                                                         "T121|A1.4.1.1.1|Pharmacologic Substance",
                                                         "T116|A1.4.1.2.1.7|Amino Acid, Peptide, or Protein",
                                                         "T023|A1.2.3.1|Body Part, Organ, or Organ Component",
                                                         "T033|A2.2|Finding",
                                                         "T061|B1.3.1.3|Therapeutic or Preventive Procedure",
                                                         "T109|A1.4.1.2.1|Organic Chemical",
                                                         "T191|B2.2.1.2.1.2|Neoplastic Process"};

// A name of 25-40 bytes built from the concept, the name's position and a seed; unique per
// (concept, position) because the concept number is spelled into it.
std::string uniqueName(std::uint64_t conceptNumber, std::uint64_t position) {
    const std::uint64_t r = mix(conceptNumber * 16 + position);
    std::string name(kWords[r % kWords.size()]);
    name += ' ';
    name += kStems[(r >> 8) % kStems.size()];
    name += kEndings[(r >> 16) % kEndings.size()];
    name += ' ';
    name += kStems[(r >> 24) % kStems.size()];
    name += ' ';
    name += std::to_string(conceptNumber);
    if (position > 0) name += std::string_view("-abcdefgh").substr(position % 9, 1);
    while (name.size() < 25) name += " x";
    if (name.size() > 40) name.resize(40);
    return name;
}

// One of a limited set of names that several concepts share (abbreviations, short forms):
// one per 58 concepts, so that the 2 % of rows drawing from it hit each about 2.7 times.
std::string sharedName(std::uint64_t r, std::size_t concepts) {
    const std::uint64_t k = r % std::max<std::uint64_t>(concepts / 58, 1);
    std::string name(kStems[k % kStems.size()]);
    name += kEndings[(k / kStems.size()) % kEndings.size()];
    name += " variant ";
    name += std::to_string(k);
    while (name.size() < 25) name += " x";
    return name;
}

// "C0000042": a UMLS CUI is C and exactly 7 digits.
std::string cuiOf(std::uint64_t number) {
    const std::string digits = std::to_string(number);
    std::string cui(1, 'C');
    if (digits.size() < 7) cui.append(7 - digits.size(), '0');
    cui += digits;
    return cui;
}

struct Generated {
    std::size_t concepts = 0;
    std::size_t rows = 0;
    std::size_t keptRows = 0;
    std::uintmax_t consoBytes = 0;
};

// Rows are written name position by name position (first names of all concepts, then second
// names, ...), so the rows of one concept are far apart, as the loader must allow for.
Generated writeRrf(const fs::path& conso, const fs::path& sty, double scale) {
    Generated g;
    g.concepts = static_cast<std::size_t>(3'500'000 * scale);
    std::ofstream out(conso, std::ios::binary);
    std::vector<char> buffer(1 << 20);
    out.rdbuf()->pubsetbuf(buffer.data(), static_cast<std::streamsize>(buffer.size()));
    // 1 + (0..2) names, plus one more for 2 in 7 concepts: 16/7 = 2.29 names on average,
    // 8 M names for 3.5 M concepts.
    const auto namesOf = [](std::uint64_t c) {
        const std::uint64_t r = mix(c ^ 0xABCDEFull);
        return 1 + r % 3 + ((r >> 32) % 7 < 2 ? 1 : 0);
    };
    std::string row;
    for (std::uint64_t position = 0; position < 4; ++position) {
        for (std::uint64_t c = 0; c < g.concepts; ++c) {
            const std::uint64_t count = namesOf(c);
            if (position >= count) continue;
            const std::uint64_t r = mix(c * 31 + position);
            const bool preferred = position == (r >> 40) % count;
            // ~2 % of names are shared (homonyms), as in UMLS (Table 2 of BELHD: 2.07 %); never
            // a concept's only name, so that most can be disambiguated, as in UMLS.
            const bool shared = count > 1 && r % 1000 < 24;
            const std::string_view language = (r >> 8) % 100 < 3 ? "FRE" : "ENG";
            const std::string_view suppress = (r >> 16) % 100 < 2 ? "O" : "N";
            row.clear();
            row += cuiOf(c);
            row += '|';
            row += language;
            row += preferred ? "|P|L0000001|PF|S0000001|Y|A" : "|S|L0000002|VO|S0000002|N|A";
            row += std::to_string(c * 4 + position);
            row += "||M0000001|D000001|MSH|PT|D000001|";
            row += shared ? sharedName(r >> 24, g.concepts) : uniqueName(c, position);
            row += "|0|";
            row += suppress;
            row += "|256|\n";
            out << row;
            ++g.rows;
            if (language == "ENG" && suppress == "N") ++g.keptRows;
        }
    }
    out.close();
    if (!out) throw linkscope::Error("cannot write " + conso.string());
    g.consoBytes = fs::file_size(conso);

    std::ofstream types(sty, std::ios::binary);
    for (std::uint64_t c = 0; c < g.concepts; ++c) {
        const std::string cui = cuiOf(c);
        const std::uint64_t r = mix(c ^ 0x5151ull);
        for (std::uint64_t k = 0; k < 1 + r % 2; ++k)
            types << cui << '|' << kSemanticTypes[(r >> 8 >> k) % kSemanticTypes.size()] << "|AT" << c * 2 + k
                  << "|256|\n";
    }
    if (!types) throw linkscope::Error("cannot write " + sty.string());
    return g;
}

// ASCII lower-casing with punctuation and whitespace runs as one space (BioSyn's normalization
// for ASCII text); the benchmark needs no dependency on the text layer for this.
std::string normalize(std::string_view text) {
    std::string out;
    out.reserve(text.size());
    bool space = false;
    for (const char c : text) {
        const auto u = static_cast<unsigned char>(c);
        const bool separator = u < 0x80 && !std::isalnum(u);
        if (separator) {
            space = !out.empty();
            continue;
        }
        if (space) out += ' ';
        space = false;
        out += static_cast<char>(u < 0x80 ? std::tolower(u) : u);
    }
    return out;
}

void printHomonyms(const char* title, const HomonymStatistics& s, double time, std::size_t bytes,
                   nlohmann::ordered_json& figures) {
    figures = {{"seconds", time},
               {"peak_rss_mib", peakRssMiB()},
               {"expansion_mib", mib(bytes)},
               {"pairs", s.pairs},
               {"distinct_names", s.distinctNames},
               {"homonym_names", s.homonymNames},
               {"homonym_pairs", s.homonymPairs},
               {"expanded_pairs", s.expandedPairs},
               {"failed_pairs", s.failedPairs},
               {"success_rate", s.successRate()}};
    std::printf("%s: %.1f s, peak RSS %.0f MiB, expansion holds %.0f MiB\n", title, time, peakRssMiB(), mib(bytes));
    std::printf("  pairs %zu, distinct names %zu, homonym names %zu, homonym pairs %zu (%.2f %%)\n", s.pairs,
                s.distinctNames, s.homonymNames, s.homonymPairs,
                100.0 * static_cast<double>(s.homonymPairs) / static_cast<double>(s.pairs));
    std::printf("  pref. name %zu (unexpandable %zu), other %zu, expanded %zu, failed %zu, success rate %.4f %%\n",
                s.preferredNamePairs, s.unexpandablePairs, s.otherNamePairs, s.expandedPairs, s.failedPairs,
                100.0 * s.successRate());
}

}  // namespace

int main(int argc, char** argv) {
    linkscope::bench::JsonReport report("kb_memory", argc, argv);
    double scale = 1.0;
    fs::path dir;
    bool keep = false;
    bool normalized = true;
    for (int i = 1; i < argc; ++i) {
        const std::string_view arg = argv[i];
        if (arg == "--scale" && i + 1 < argc)
            scale = std::atof(argv[++i]);
        else if (arg == "--dir" && i + 1 < argc)
            dir = argv[++i];
        else if (arg == "--keep")
            keep = true;
        else if (arg == "--no-normalized")
            normalized = false;
        else {
            std::cerr << "usage: kb_memory [--scale S] [--dir DIR] [--keep] [--no-normalized] [--json]\n";
            return 2;
        }
    }
    // Above 2.85 the concept numbers would need 8 digits, which no CUI has.
    if (!(scale > 0.0 && scale <= 2.5)) {
        std::cerr << "kb_memory: --scale must be in (0, 2.5]\n";
        return 2;
    }
    try {
        if (dir.empty()) {
            const char* tmp = std::getenv("TMPDIR");
            dir = fs::path(tmp && *tmp ? tmp : "/tmp") / ("kb_memory-" + std::to_string(getpid()));
        }
        fs::create_directories(dir);
        const fs::path conso = dir / "MRCONSO.RRF";
        const fs::path sty = dir / "MRSTY.RRF";

        auto start = Clock::now();
        const Generated g = writeRrf(conso, sty, scale);
        std::printf("generated %zu concepts, %zu MRCONSO rows (%zu kept by the default filters), %.0f MiB, in %.1f s\n",
                    g.concepts, g.rows, g.keptRows, mib(g.consoBytes), seconds(start));
        std::printf("baseline: peak RSS %.0f MiB\n", peakRssMiB());
        report.parameters()["scale"] = scale;
        report.parameters()["normalized"] = normalized;
        auto& figures = report.figures();
        figures["concepts"] = g.concepts;
        figures["mrconso_rows"] = g.rows;
        figures["rows_kept"] = g.keptRows;
        figures["baseline_peak_rss_mib"] = peakRssMiB();

        start = Clock::now();
        const auto result = linkscope::kb::loadUmls(conso, sty);
        const double loadTime = seconds(start);
        const auto stats = result.kb.statistics();
        std::printf("load (MRCONSO + MRSTY through loadUmls): %.1f s, peak RSS %.0f MiB, RSS after %.0f MiB\n",
                    loadTime, peakRssMiB(), currentRssMiB());
        std::printf(
            "  entities %zu, name pairs %zu, distinct names %zu, string bytes %.0f MiB, KB containers %.0f MiB "
            "(%.1f bytes per name pair)\n",
            stats.entities, stats.namePairs, stats.distinctNames, mib(stats.stringBytes), mib(stats.memoryBytes),
            static_cast<double>(stats.memoryBytes) / static_cast<double>(stats.namePairs));
        std::printf("  rows filtered %zu, diagnostics %zu, semantic types %zu\n", result.linesFiltered,
                    result.diagnostics.size(), stats.semanticTypes);
        figures["load"] = {{"seconds", loadTime},
                           {"peak_rss_mib", peakRssMiB()},
                           {"rss_after_mib", currentRssMiB()},
                           {"entities", stats.entities},
                           {"name_pairs", stats.namePairs},
                           {"distinct_names", stats.distinctNames},
                           {"string_mib", mib(stats.stringBytes)},
                           {"kb_containers_mib", mib(stats.memoryBytes)}};

        start = Clock::now();
        const auto exact = linkscope::kb::expandHomonyms(result.kb);
        printHomonyms("homonyms, exact names", exact.statistics(), seconds(start), exact.memoryBytes(),
                      figures["homonyms_exact"]);
        if (normalized) {
            HomonymOptions options;
            options.normalizer = normalize;
            start = Clock::now();
            const auto normal = linkscope::kb::expandHomonyms(result.kb, options);
            printHomonyms("homonyms, normalized names", normal.statistics(), seconds(start), normal.memoryBytes(),
                          figures["homonyms_normalized"]);
        }
        std::printf("final: peak RSS %.0f MiB\n", peakRssMiB());
        figures["final_peak_rss_mib"] = peakRssMiB();
        if (!keep)
            fs::remove_all(dir);
        else
            std::printf("files kept in %s\n", dir.string().c_str());
        return 0;
    } catch (const std::exception& e) {
        std::cerr << "kb_memory: " << e.what() << '\n';
        return 1;
    }
}
