// sparse_scale: BioSyn's sparse linker against a knowledge base of UMLS size.
//
// Reads what benchmarks/generate_umls_medmentions.py wrote (MRCONSO.RRF, MRSTY.RRF, the
// MedMentions-size corpus and its PMID lists), builds the evaluation dictionary as `eval` does
// (the KB's names plus the training and dev mentions, BioSyn's normalization), and measures:
//   - loading, dictionary and index build: wall time, peak resident memory, index bytes;
//   - the approximate search (SparseIndex above its approximateAbove size: a character 3-gram
//     stage, then the exact score of its candidates) of every test mention at depth 64:
//     wall time, Acc@1 and recall@64;
//   - on an evenly spaced sample of the test mentions, exact search of every name (the same
//     index without the threshold) against the approximate one: Acc@1 and recall@64 of both,
//     and how many of exact search's 64 names the approximate search returns.
//
//   sparse_scale --dir DIR [--sample N] [--candidates N] [--threads N] [--no-exact] [--json]
//     --dir DIR         the generator's output folder
//     --sample N        test mentions searched exactly as well (default 300)
//     --candidates N    names the 3-gram stage hands to the exact score per query (default: the index's)
//     --threads N       search threads (default 0: one per core)
//     --no-exact        skip the exact comparison (it needs a second, exact index in memory)
//     --json            the figures as one JSON object on standard output (json_report.h)
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <set>
#include <string>
#include <vector>

#include "corpus/corpus_split.h"
#include "corpus/pmid_list.h"
#include "corpus/pubtator_reader.h"
#include "eval/dictionary.h"
#include "eval/evaluate.h"
#include "eval/queries.h"
#include "generated_data.h"
#include "json_report.h"
#include "kb/umls_loader.h"
#include "retrieval/sparse_index.h"
#include "util/error.h"

namespace {

using linkscope::bench::Clock;
using linkscope::bench::gib;
using linkscope::bench::peakRssGiB;
using linkscope::bench::seconds;
namespace fs = std::filesystem;
using namespace linkscope;

struct Options {
    fs::path dir;
    std::size_t sample = 300;
    std::size_t candidates = 0;
    unsigned threads = 0;
    bool exact = true;
};

Options parse(int argc, char** argv) {
    Options options;
    for (int i = 1; i < argc; ++i) {
        const std::string arg = argv[i];
        const auto value = [&]() -> std::string {
            if (i + 1 >= argc) throw Error(arg + " needs a value");
            return argv[++i];
        };
        if (arg == "--dir")
            options.dir = value();
        else if (arg == "--sample")
            options.sample = std::stoul(value());
        else if (arg == "--candidates")
            options.candidates = std::stoul(value());
        else if (arg == "--threads")
            options.threads = static_cast<unsigned>(std::stoul(value()));
        else if (arg == "--no-exact")
            options.exact = false;
        else
            throw Error("unknown option " + arg + " (see the comment at the top of benchmarks/sparse_scale.cpp)");
    }
    if (options.dir.empty())
        throw Error("--dir DIR is required: the folder benchmarks/generate_umls_medmentions.py wrote");
    return options;
}

eval::RankFn rankWith(const retrieval::SparseIndex& index, unsigned threads) {
    return [&index, threads](std::span<const std::string> queries, std::size_t k) {
        return index.search(queries, k, threads);
    };
}

void report(const char* what, const eval::EvalResult& result, nlohmann::ordered_json& rows) {
    rows.push_back({{"search", what},
                    {"mentions", result.all.mentions},
                    {"acc_at_1", result.all.accuracy(1)},
                    {"acc_at_64", result.all.accuracy(64)},
                    {"recall_at_64", result.all.recall(64)},
                    {"seconds", result.seconds}});
    std::printf("%s: %zu mentions, Acc@1 %.4f, Acc@64 %.4f, recall@64 %.4f, %.1f s\n", what, result.all.mentions,
                result.all.accuracy(1), result.all.accuracy(64), result.all.recall(64), result.seconds);
}

int run(const Options& options, bench::JsonReport& json) {
    json.parameters() = {{"dir", options.dir.string()},
                         {"sample", options.sample},
                         {"candidates", options.candidates},
                         {"threads", options.threads},
                         {"exact", options.exact}};
    auto& figures = json.figures();
    auto start = Clock::now();
    const auto kb = kb::loadUmls(options.dir / "MRCONSO.RRF", options.dir / "MRSTY.RRF");
    figures["concepts"] = kb.kb.entityCount();
    figures["names"] = kb.kb.pairCount();
    figures["kb_load_s"] = seconds(start);
    figures["kb_peak_rss_gib"] = peakRssGiB();
    std::printf("knowledge base: %zu concepts, %zu names, loaded in %.1f s (peak RSS %.2f GiB)\n", kb.kb.entityCount(),
                kb.kb.pairCount(), seconds(start), peakRssGiB());

    start = Clock::now();
    const Corpus corpus = readPubTator(linkscope::bench::generatedCorpus(options.dir));
    std::vector<PmidList> lists;
    for (const char* split : {"trng", "dev", "test"})
        lists.push_back(readPmidList(options.dir / ("corpus_pubtator_pmids_" + std::string(split) + ".txt"), split));
    const CorpusPartition partition = partitionByPmidLists(corpus, lists);
    const auto queriesOf = [&](const char* split) { return eval::buildQueries(*partition.find(split), kb.kb); };
    const eval::QuerySet train = queriesOf("trng"), dev = queriesOf("dev"), test = queriesOf("test");
    eval::EvalDictionaryBuilder builder;
    builder.addKnowledgeBase(kb.kb);
    builder.addMentions(train.queries);
    builder.addMentions(dev.queries);
    const retrieval::NameDictionary dictionary = builder.build().entries;
    figures["documents"] = corpus.documents().size();
    figures["test_mentions"] = test.queries.size();
    figures["dictionary_entries"] = dictionary.size();
    figures["corpus_and_dictionary_s"] = seconds(start);
    std::printf("corpus: %zu documents; test %zu mentions; dictionary %zu entries, in %.1f s (peak RSS %.2f GiB)\n",
                corpus.documents().size(), test.queries.size(), dictionary.size(), seconds(start), peakRssGiB());

    retrieval::SparseIndexOptions approximateOptions;
    approximateOptions.threads = options.threads;
    if (options.candidates != 0) approximateOptions.approximate.candidates = options.candidates;
    start = Clock::now();
    const auto approximate =
        retrieval::SparseIndex::build(dictionary, retrieval::TfidfSettings::bioSyn(), approximateOptions);
    figures["approximate"] = approximate.approximate();
    figures["approximate_candidates"] = approximateOptions.approximate.candidates;
    figures["approximate_build_s"] = seconds(start);
    figures["approximate_index_gib"] = gib(approximate.memoryBytes());
    std::printf("approximate index (%s, %zu candidates a query): built in %.1f s, %.2f GiB (peak RSS %.2f GiB)\n",
                approximate.approximate() ? "approximate" : "exact: below the threshold",
                approximateOptions.approximate.candidates, seconds(start), gib(approximate.memoryBytes()),
                peakRssGiB());

    eval::EvalOptions evalOptions;
    const auto all = eval::evaluate(test.queries, dictionary, rankWith(approximate, options.threads), evalOptions);
    figures["searches"] = nlohmann::ordered_json::array();
    report("approximate, every test mention", all, figures["searches"]);
    std::printf("peak RSS after the search: %.2f GiB\n", peakRssGiB());
    figures["peak_rss_gib"] = peakRssGiB();
    if (!options.exact || options.sample == 0) return 0;

    // Evenly spaced, so the sample spans every document of the test split.
    std::vector<eval::EvalQuery> sample;
    const std::size_t step = std::max<std::size_t>(1, test.queries.size() / options.sample);
    for (std::size_t i = 0; i < test.queries.size() && sample.size() < options.sample; i += step)
        sample.push_back(test.queries[i]);
    retrieval::SparseIndexOptions exactOptions;
    exactOptions.threads = options.threads;
    exactOptions.approximateAbove = 0;
    start = Clock::now();
    const auto exact = retrieval::SparseIndex::build(dictionary, retrieval::TfidfSettings::bioSyn(), exactOptions);
    std::printf("exact index: built in %.1f s, %.2f GiB (peak RSS %.2f GiB)\n", seconds(start),
                gib(exact.memoryBytes()), peakRssGiB());
    figures["exact_build_s"] = seconds(start);
    figures["exact_index_gib"] = gib(exact.memoryBytes());
    const auto exactResult = eval::evaluate(sample, dictionary, rankWith(exact, options.threads), evalOptions);
    const auto approximateResult =
        eval::evaluate(sample, dictionary, rankWith(approximate, options.threads), evalOptions);
    report("exact, sample", exactResult, figures["searches"]);
    report("approximate, same sample", approximateResult, figures["searches"]);
    std::size_t shared = 0, exactNames = 0;
    for (std::size_t m = 0; m < sample.size(); ++m)
        for (std::size_t p = 0; p < exactResult.mentions[m].parts.size(); ++p) {
            std::set<std::uint32_t> got;
            for (const auto& c : approximateResult.mentions[m].parts[p].candidates) got.insert(c.entry);
            for (const auto& c : exactResult.mentions[m].parts[p].candidates) shared += got.contains(c.entry);
            exactNames += exactResult.mentions[m].parts[p].candidates.size();
        }
    std::printf(
        "of exact search's top-64 names, the approximate search returns %.4f; recall@64 ratio "
        "approximate / exact %.4f; exact search %.1f ms a mention\n",
        exactNames ? double(shared) / double(exactNames) : 0.0,
        exactResult.all.recall(64) > 0 ? approximateResult.all.recall(64) / exactResult.all.recall(64) : 0.0,
        1000.0 * exactResult.seconds / double(std::max<std::size_t>(sample.size(), 1)));
    figures["exact_top64_returned"] = exactNames ? double(shared) / double(exactNames) : 0.0;
    figures["recall_at_64_ratio"] =
        exactResult.all.recall(64) > 0 ? approximateResult.all.recall(64) / exactResult.all.recall(64) : 0.0;
    figures["exact_ms_per_mention"] = 1000.0 * exactResult.seconds / double(std::max<std::size_t>(sample.size(), 1));
    figures["peak_rss_gib"] = peakRssGiB();
    return 0;
}

}  // namespace

int main(int argc, char** argv) {
    linkscope::bench::JsonReport json("sparse_scale", argc, argv);
    std::setvbuf(stdout, nullptr, _IOLBF, 0);  // each figure as it is measured, also into a file
    try {
        return run(parse(argc, argv), json);
    } catch (const std::exception& e) {
        std::fprintf(stderr, "sparse_scale: %s\n", e.what());
        return 1;
    }
}
