// sparse_ncbi: the sparse (TF-IDF) half of BioSyn's NCBI Disease test evaluation, timed.
//
// Reads BioSyn's preprocessed NCBI Disease test set (test_dictionary.txt, 73,024 `IDS||name`
// lines, and processed_test/*.concept, 960 mentions) from the BioSyn tarball in the shared data
// (extracted with `tar` into a temporary folder that is removed afterwards) or from files given
// on the command line, builds the character 1-2 gram TF-IDF index over the dictionary names,
// ranks every query and reports build time, query time and Acc@1 / Acc@5 computed as BioSyn's
// evaluate() does:
//  - CUI-less mentions ("-1") are left out; composite mentions ("a|b", ids "X|Y" or "X+Y") are
//    split on '|' and '+' and every part is searched on its own;
//  - a candidate is correct when its ids intersect the gold ids (check_label); a query is
//    correct at k when every one of its parts has a correct candidate among its top k.
// benchmarks/sklearn_sparse.py runs the same pipeline with scikit-learn.
//
//   sparse_ncbi [--archive FILE.tar.gz | --dictionary FILE --queries DIR] [--k K]
//               [--threads N] [--repeat R] [--ngrams MIN-MAX] [--dense F] [--json]
//     --archive FILE     BioSyn's ncbi-disease.tar.gz; default
//                        $LINKSCOPE_DATA_DIR/biosyn-ncbi-disease/ncbi-disease.tar.gz
//     --dictionary FILE  an `IDS||name` dictionary instead of the archive's test dictionary
//     --queries DIR      a folder of BioSyn .concept files instead of the archive's processed_test
//     --k K              candidates per query part (default 20, BioSyn's topk)
//     --threads N        build and search threads (default: one per hardware thread); the
//                        search is also timed on one thread
// The index is also saved to a temporary file and loaded again, timed.
//     --repeat R         timed repetitions; the median is reported (default 5)
//     --ngrams MIN-MAX   character n-gram range (default 1-2, BioSyn's)
//     --dense F          SparseIndexOptions::denseFraction (default 0.125; above 1: no dense columns)
//     --json             the figures as one JSON object on standard output (json_report.h)
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <memory>
#include <set>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "corpus/concept_id.h"
#include "json_report.h"
#include "retrieval/name_dictionary.h"
#include "retrieval/sparse_index.h"
#include "retrieval/sparse_index_io.h"
#include "util/error.h"
#include "util/line_reader.h"

namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;
using namespace linkscope;
using namespace linkscope::retrieval;

double seconds(Clock::time_point since) { return std::chrono::duration<double>(Clock::now() - since).count(); }

// CPU time of the whole process (all threads): on a shared machine it shows how much work a
// step did, while the wall time also counts the time other programs had the cores.
double cpuSeconds() {
    timespec now{};
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &now);
    return static_cast<double>(now.tv_sec) + static_cast<double>(now.tv_nsec) * 1e-9;
}

double median(std::vector<double> values) {
    std::sort(values.begin(), values.end());
    const std::size_t n = values.size();
    return n % 2 == 1 ? values[n / 2] : (values[n / 2 - 1] + values[n / 2]) / 2.0;
}

std::string_view strip(std::string_view s) {
    while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
    while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
    return s;
}

std::vector<std::string> split(std::string_view s, std::string_view separator) {
    std::vector<std::string> parts;
    for (std::size_t start = 0;;) {
        const auto at = s.find(separator, start);
        parts.emplace_back(s.substr(start, at == std::string_view::npos ? std::string_view::npos : at - start));
        if (at == std::string_view::npos) return parts;
        start = at + separator.size();
    }
}

std::string replaceAll(std::string s, char from, char to) {
    std::replace(s.begin(), s.end(), from, to);
    return s;
}

// A temporary folder that is removed with everything in it when the program leaves.
class TemporaryDir {
public:
    TemporaryDir() {
        std::string pattern = (fs::temp_directory_path() / "sparse_ncbi-XXXXXX").string();
        if (!mkdtemp(pattern.data())) throw Error("cannot create a temporary folder");
        path_ = pattern;
    }
    ~TemporaryDir() {
        std::error_code ignored;
        fs::remove_all(path_, ignored);
    }
    TemporaryDir(const TemporaryDir&) = delete;
    TemporaryDir& operator=(const TemporaryDir&) = delete;
    const fs::path& path() const { return path_; }

private:
    fs::path path_;
};

// BioSyn's load_dictionary: `cui, name = line.strip().split("||")`; the cui is '|'-separated.
NameDictionary loadDictionary(const fs::path& file) {
    NameDictionary dictionary;
    LineReader reader(file);
    std::string line;
    while (reader.next(line)) {
        const auto text = strip(line);
        if (text.empty()) continue;
        const auto fields = split(text, "||");
        if (fields.size() != 2) reader.fail("expected `IDS||name`");
        DictionaryEntry entry;
        entry.name = fields[1];
        for (const auto& raw : split(fields[0], "|")) {
            auto id = canonicalConceptId(raw);
            if (!id) reader.fail("empty or CUI-less identifier");
            entry.ids.push_back(std::move(*id));
        }
        dictionary.push_back(std::move(entry));
    }
    return dictionary;
}

struct Query {
    std::vector<std::string> parts;  // the mention split on '|' and '+'
    std::set<std::string> gold;      // the ids split on '|' and '+'
};

// BioSyn's load_queries(filter_composite=False, filter_duplicate=False, filter_cuiless=True).
std::vector<Query> loadQueries(const fs::path& folder) {
    std::vector<fs::path> files;
    for (const auto& item : fs::directory_iterator(folder))
        if (item.path().extension() == ".concept") files.push_back(item.path());
    std::sort(files.begin(), files.end());
    std::vector<Query> queries;
    std::string line;
    for (const auto& file : files) {
        LineReader reader(file);
        while (reader.next(line)) {
            if (strip(line).empty()) continue;
            const auto fields = split(line, "||");
            if (fields.size() != 5) reader.fail("expected `PMID||START|END||TYPE||MENTION||IDS`");
            const std::string cui(strip(fields[4]));
            if (cui == "-1") continue;
            Query query;
            query.parts = split(replaceAll(std::string(strip(fields[3])), '+', '|'), "|");
            for (const auto& raw : split(replaceAll(cui, '+', '|'), "|"))
                if (auto id = canonicalConceptId(raw)) query.gold.insert(std::move(*id));
            queries.push_back(std::move(query));
        }
    }
    return queries;
}

struct Accuracy {
    double at1 = 0;
    double at5 = 0;
};

Accuracy accuracy(const std::vector<Query>& queries, const std::vector<std::vector<Candidate>>& ranked,
                  const NameDictionary& dictionary) {
    const auto correctWithin = [&](const std::vector<Candidate>& candidates, const Query& query, std::size_t k) {
        for (std::size_t i = 0; i < std::min(k, candidates.size()); ++i)
            for (const auto& id : dictionary[candidates[i].entry].ids)
                if (query.gold.contains(id)) return true;
        return false;
    };
    std::size_t hits1 = 0, hits5 = 0, part = 0;
    for (const auto& query : queries) {
        bool all1 = true, all5 = true;
        for (std::size_t p = 0; p < query.parts.size(); ++p, ++part) {
            all1 = all1 && correctWithin(ranked[part], query, 1);
            all5 = all5 && correctWithin(ranked[part], query, 5);
        }
        hits1 += all1;
        hits5 += all5;
    }
    const auto n = static_cast<double>(queries.size());
    return {static_cast<double>(hits1) / n, static_cast<double>(hits5) / n};
}

fs::path defaultArchive() {
    const char* env = std::getenv("LINKSCOPE_DATA_DIR");
    const fs::path data = env && *env ? fs::path(env) : fs::path(LINKSCOPE_DEFAULT_DATA_DIR);
    return data / "biosyn-ncbi-disease" / "ncbi-disease.tar.gz";
}

int usage() {
    std::cerr << "usage: sparse_ncbi [--archive FILE.tar.gz | --dictionary FILE --queries DIR] [--k K]\n"
                 "                   [--threads N] [--repeat R] [--ngrams MIN-MAX] [--dense F] [--json]\n";
    return 2;
}

}  // namespace

int main(int argc, char** argv) {
    bench::JsonReport report("sparse_ncbi", argc, argv);
    fs::path archive = defaultArchive();
    fs::path dictionaryFile, queryDir;
    std::size_t k = 20;
    unsigned threads = std::max(1u, std::thread::hardware_concurrency());
    int repeat = 5;
    TfidfSettings settings = TfidfSettings::bioSyn();
    SparseIndexOptions options;
    for (int i = 1; i < argc; ++i) {
        const std::string_view arg = argv[i];
        const bool hasValue = i + 1 < argc;
        if (arg == "--archive" && hasValue)
            archive = argv[++i];
        else if (arg == "--dictionary" && hasValue)
            dictionaryFile = argv[++i];
        else if (arg == "--queries" && hasValue)
            queryDir = argv[++i];
        else if (arg == "--k" && hasValue)
            k = std::strtoull(argv[++i], nullptr, 10);
        else if (arg == "--threads" && hasValue)
            threads = static_cast<unsigned>(std::atoi(argv[++i]));
        else if (arg == "--repeat" && hasValue)
            repeat = std::atoi(argv[++i]);
        else if (arg == "--dense" && hasValue)
            options.denseFraction = std::atof(argv[++i]);
        else if (arg == "--ngrams" && hasValue) {
            if (std::sscanf(argv[++i], "%u-%u", &settings.minN, &settings.maxN) != 2) return usage();
        } else
            return usage();
    }
    if (dictionaryFile.empty() != queryDir.empty() || k < 5 || threads == 0 || repeat < 1) return usage();

    try {
        std::unique_ptr<TemporaryDir> extracted;
        if (dictionaryFile.empty()) {
            if (!fs::exists(archive)) {
                std::cerr << "sparse_ncbi: " << archive.string()
                          << " not found (set LINKSCOPE_DATA_DIR or pass --archive)\n";
                return 1;
            }
            extracted = std::make_unique<TemporaryDir>();
            const std::string command = "tar -xzf '" + archive.string() + "' -C '" + extracted->path().string() +
                                        "' ncbi-disease/test_dictionary.txt ncbi-disease/processed_test";
            if (std::system(command.c_str()) != 0) throw Error("extracting " + archive.string() + " failed");
            dictionaryFile = extracted->path() / "ncbi-disease" / "test_dictionary.txt";
            queryDir = extracted->path() / "ncbi-disease" / "processed_test";
        }

        auto start = Clock::now();
        const NameDictionary dictionary = loadDictionary(dictionaryFile);
        const std::vector<Query> queries = loadQueries(queryDir);
        const double loadSeconds = seconds(start);
        std::vector<std::string> parts;
        for (const auto& query : queries) parts.insert(parts.end(), query.parts.begin(), query.parts.end());

        std::vector<double> buildTimes, queryTimes, singleThreadTimes, buildCpu, queryCpu, singleCpu;
        SparseIndex index;
        std::vector<std::vector<Candidate>> ranked;
        for (int r = 0; r < repeat; ++r) {
            start = Clock::now();
            double cpu = cpuSeconds();
            options.threads = threads;
            index = SparseIndex::build(dictionary, settings, options);
            buildTimes.push_back(seconds(start));
            buildCpu.push_back(cpuSeconds() - cpu);
            start = Clock::now();
            cpu = cpuSeconds();
            ranked = index.search(parts, k, threads);
            queryTimes.push_back(seconds(start));
            queryCpu.push_back(cpuSeconds() - cpu);
            start = Clock::now();
            cpu = cpuSeconds();
            const auto single = index.search(parts, k, 1);
            singleThreadTimes.push_back(seconds(start));
            singleCpu.push_back(cpuSeconds() - cpu);
            if (single.size() != ranked.size()) throw Error("thread counts disagree");
            for (std::size_t i = 0; i < single.size(); ++i)
                if (single[i].size() != ranked[i].size() ||
                    !std::equal(single[i].begin(), single[i].end(), ranked[i].begin(),
                                [](const Candidate& a, const Candidate& b) {
                                    return a.entry == b.entry && a.score == b.score;
                                }))
                    throw Error("1 thread and " + std::to_string(threads) + " threads ranked query part " +
                                std::to_string(i) + " differently");
        }
        const Accuracy acc = accuracy(queries, ranked, dictionary);

        // Saving and loading the index (into the temporary folder, or beside the system's temp).
        const TemporaryDir saveDir;
        const fs::path saved = saveDir.path() / "index.lsi";
        start = Clock::now();
        saveSparseIndex(index, saved);
        const double saveSeconds = seconds(start);
        std::vector<double> loadTimes;
        for (int r = 0; r < repeat; ++r) {
            start = Clock::now();
            const SparseIndex loaded = loadSparseIndex(saved, dictionary, settings, options);
            loadTimes.push_back(seconds(start));
            if (loaded.size() != index.size()) throw Error("the loaded index differs");
        }
        const double build = median(buildTimes), query = median(queryTimes), single = median(singleThreadTimes);

        std::printf("settings:        %s\n", settings.describe().c_str());
        std::printf("dictionary:      %zu names, %zu terms (%zu dense), %zu postings, index %.1f MiB\n",
                    dictionary.size(), index.vectorizer().vocabularySize(), index.denseTerms(),
                    index.postings().documents.size(), static_cast<double>(index.memoryBytes()) / (1024.0 * 1024.0));
        std::printf("queries:         %zu mentions, %zu parts, k = %zu\n", queries.size(), parts.size(), k);
        std::printf("load files:      %.4f s\n", loadSeconds);
        std::printf("build index:     %.4f s (median of %d; CPU %.4f s)\n", build, repeat, median(buildCpu));
        std::printf("search:          %.4f s on %u threads (CPU %.4f s), %.4f s on 1 thread (CPU %.4f s)\n", query,
                    threads, median(queryCpu), single, median(singleCpu));
        std::printf("build + search:  %.4f s (CPU %.4f s)\n", build + query, median(buildCpu) + median(queryCpu));
        std::printf("save / load:     %.4f s / %.4f s (median of %d; file %.1f MiB)\n", saveSeconds, median(loadTimes),
                    repeat, static_cast<double>(fs::file_size(saved)) / (1024.0 * 1024.0));
        std::printf("Acc@1 %.4f  Acc@5 %.4f\n", acc.at1, acc.at5);

        auto& parameters = report.parameters();
        parameters["dictionary"] = dictionaryFile.filename().string();
        parameters["settings"] = settings.describe();
        parameters["k"] = k;
        parameters["threads"] = threads;
        parameters["repeat"] = repeat;
        parameters["dense_fraction"] = options.denseFraction;
        auto& figures = report.figures();
        figures["names"] = dictionary.size();
        figures["terms"] = index.vectorizer().vocabularySize();
        figures["dense_terms"] = index.denseTerms();
        figures["postings"] = index.postings().documents.size();
        figures["index_mib"] = static_cast<double>(index.memoryBytes()) / (1024.0 * 1024.0);
        figures["mentions"] = queries.size();
        figures["query_parts"] = parts.size();
        figures["load_files_s"] = loadSeconds;
        figures["build_s"] = build;
        figures["build_cpu_s"] = median(buildCpu);
        figures["search_s"] = query;
        figures["search_cpu_s"] = median(queryCpu);
        figures["search_one_thread_s"] = single;
        figures["save_s"] = saveSeconds;
        figures["load_index_s"] = median(loadTimes);
        figures["index_file_mib"] = static_cast<double>(fs::file_size(saved)) / (1024.0 * 1024.0);
        figures["acc_at_1"] = acc.at1;
        figures["acc_at_5"] = acc.at5;
    } catch (const std::exception& e) {
        std::cerr << "sparse_ncbi: " << e.what() << "\n";
        return 1;
    }
    return 0;
}
