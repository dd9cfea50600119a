// dense_scale: dense candidates for a knowledge base of UMLS size.
//
// Reads what benchmarks/generate_umls_medmentions.py wrote, builds the evaluation dictionary's
// KB names, and encodes them with --model chunk by chunk into the IVF-fp16 index that
// train::MethodLinker keeps above kCompactNameVectorsAbove names (the same DenseIndexBuilder:
// its training sample first, then every name), never holding a float copy of all of them.
// Meanwhile the exact top-64 of a sample of test mentions is kept by brute force over each
// chunk (a flat index per chunk, merged), so recall is measured against exact search without
// the float copy of every name that exact search of all of them would hold. Reports:
//   - loading and dictionary: wall time, peak resident memory;
//   - encoding + index build: wall time, names per second, index bytes, peak resident memory;
//   - per probe count: search time per mention (the sample, batched) and recall@64 against exact.
// Vectors: [CLS] pooling, L2-normalized (cosine, as triplet and kNN-BioEL link), names as the
// dictionary holds them, 25 tokens (SapBERT's length).
//
//   dense_scale --dir DIR --model DIR [--limit N] [--sample N] [--probes 16,32,64,128] [--lists N]
//               [--json]
//     --dir DIR       the generator's output folder
//     --model DIR     a BERT checkpoint in the Hugging Face layout (e.g. the compact encoder)
//     --limit N       the first N dictionary names only (default: all of them)
//     --sample N      test mentions searched (default 500, evenly spaced)
//     --probes LIST   IVF lists probed, one measurement each (default 16,32,64,128)
//     --lists N       IVF lists (default: the index's choice, ~sqrt(names))
//     --json          the figures as one JSON object on standard output (json_report.h)
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "corpus/corpus_split.h"
#include "corpus/pmid_list.h"
#include "corpus/pubtator_reader.h"
#include "encoder/text_encoder.h"
#include "eval/dictionary.h"
#include "eval/queries.h"
#include "generated_data.h"
#include "json_report.h"
#include "kb/umls_loader.h"
#include "retrieval/dense_index.h"
#include "util/error.h"

namespace {

using linkscope::bench::Clock;
using linkscope::bench::gib;
using linkscope::bench::peakRssGiB;
using linkscope::bench::seconds;
namespace fs = std::filesystem;
using namespace linkscope;
using retrieval::Candidate;

constexpr std::size_t kDepth = 64;
constexpr std::size_t kChunk = 65536;

struct Options {
    fs::path dir;
    fs::path model;
    std::size_t limit = 0;
    std::size_t sample = 500;
    std::vector<std::size_t> probes = {16, 32, 64, 128};
    std::size_t lists = 0;
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
        else if (arg == "--model")
            options.model = value();
        else if (arg == "--limit")
            options.limit = std::stoul(value());
        else if (arg == "--sample")
            options.sample = std::stoul(value());
        else if (arg == "--lists")
            options.lists = std::stoul(value());
        else if (arg == "--probes") {
            options.probes.clear();
            std::stringstream list(value());
            for (std::string item; std::getline(list, item, ',');) options.probes.push_back(std::stoul(item));
        } else
            throw Error("unknown option " + arg + " (see the comment at the top of benchmarks/dense_scale.cpp)");
    }
    if (options.dir.empty() || options.model.empty())
        throw Error("--dir DIR (the generator's folder) and --model DIR (an encoder) are required");
    return options;
}

// Keeps each query's kDepth best of the lists merged into it (score descending, entry ascending).
void mergeInto(std::vector<Candidate>& best, const std::vector<Candidate>& more) {
    best.insert(best.end(), more.begin(), more.end());
    std::sort(best.begin(), best.end(), [](const Candidate& a, const Candidate& b) {
        return a.score != b.score ? a.score > b.score : a.entry < b.entry;
    });
    if (best.size() > kDepth) best.resize(kDepth);
}

int run(const Options& options, bench::JsonReport& json) {
    json.parameters() = {{"dir", options.dir.string()},
                         {"model", options.model.string()},
                         {"limit", options.limit},
                         {"sample", options.sample},
                         {"lists", options.lists}};
    auto& figures = json.figures();
    auto start = Clock::now();
    const auto kb = kb::loadUmls(options.dir / "MRCONSO.RRF", options.dir / "MRSTY.RRF");
    const Corpus corpus = readPubTator(linkscope::bench::generatedCorpus(options.dir));
    const PmidList testList = readPmidList(options.dir / "corpus_pubtator_pmids_test.txt", "test");
    const CorpusPartition partition = partitionByPmidLists(corpus, std::vector<PmidList>{testList});
    const eval::QuerySet test = eval::buildQueries(*partition.find("test"), kb.kb);
    eval::EvalDictionaryBuilder builder;
    builder.addKnowledgeBase(kb.kb);
    const retrieval::NameDictionary dictionary = builder.build().entries;
    const std::size_t names = options.limit ? std::min(options.limit, dictionary.size()) : dictionary.size();
    std::printf(
        "knowledge base %zu concepts, dictionary %zu names (%zu used), %zu test mentions; loaded in %.1f s"
        " (peak RSS %.2f GiB)\n",
        kb.kb.entityCount(), dictionary.size(), names, test.queries.size(), seconds(start), peakRssGiB());
    figures["concepts"] = kb.kb.entityCount();
    figures["dictionary_names"] = dictionary.size();
    figures["names_used"] = names;
    figures["test_mentions"] = test.queries.size();
    figures["load_s"] = seconds(start);
    figures["load_peak_rss_gib"] = peakRssGiB();

    const auto encoder = encoder::TextEncoder::load(options.model);
    const encoder::EncodeRequest request{.maxLength = 25, .pooling = encoder::Pooling::Cls, .normalize = true};
    const std::size_t dimension = encoder.dimension();
    std::printf("encoder: %zu dimensions, on %s\n", dimension, encoder.deviceName().c_str());
    const auto textsOf = [&](std::size_t first, std::size_t count) {
        std::vector<std::string> texts;
        texts.reserve(count);
        for (std::size_t i = first; i < first + count; ++i) texts.push_back(dictionary[i].name);
        return texts;
    };

    // The sample: evenly spaced test mentions (their first part, as the evaluation queries them).
    std::vector<std::string> sample;
    const std::size_t step = std::max<std::size_t>(1, test.queries.size() / std::max<std::size_t>(1, options.sample));
    for (std::size_t i = 0; i < test.queries.size() && sample.size() < options.sample; i += step)
        if (!test.queries[i].parts.empty()) sample.push_back(test.queries[i].parts.front());
    const std::vector<float> queries = encoder.encode(sample, request);

    start = Clock::now();
    retrieval::DenseIndexOptions indexOptions;
    indexOptions.kind = retrieval::DenseIndexKind::IvfFp16;
    indexOptions.ivfLists = options.lists;
    retrieval::DenseIndexBuilder index(dimension, names, "dense_scale", indexOptions);
    const auto& trainingRows = index.trainingRows();
    {
        std::vector<std::string> texts;
        texts.reserve(trainingRows.size());
        for (const std::size_t row : trainingRows) texts.push_back(dictionary[row].name);
        index.train(encoder.encode(texts, request));
    }
    const double training = seconds(start);
    std::vector<std::vector<Candidate>> exact(sample.size());
    for (std::size_t first = 0; first < names; first += kChunk) {
        const std::size_t count = std::min(kChunk, names - first);
        const std::vector<float> vectors = encoder.encode(textsOf(first, count), request);
        index.add(vectors);
        // Exact search of this chunk (a flat index: FAISS's BLAS inner products), rows offset.
        const auto flat = retrieval::DenseIndex::build(vectors, dimension, "chunk");
        auto found = flat.search(queries, kDepth);
        for (std::size_t q = 0; q < found.size(); ++q) {
            for (auto& c : found[q]) c.entry += static_cast<std::uint32_t>(first);
            mergeInto(exact[q], found[q]);
        }
        std::fprintf(stderr, "\rencoded %zu of %zu names (%.0f s)", first + count, names, seconds(start));
    }
    std::fprintf(stderr, "\n");
    auto built = index.finish();
    const double buildSeconds = seconds(start);
    std::printf(
        "IVF-fp16 index of %zu names x %zu dimensions (%zu training names): encoded and built in %.1f s"
        " (%.0f names/s; training sample %.1f s), index %.2f GiB, peak RSS %.2f GiB\n",
        names, dimension, trainingRows.size(), buildSeconds, double(names + trainingRows.size()) / buildSeconds,
        training, gib(built.memoryBytes()), peakRssGiB());
    figures["dimension"] = dimension;
    figures["device"] = encoder.deviceName();
    figures["training_names"] = trainingRows.size();
    figures["encode_and_build_s"] = buildSeconds;
    figures["names_per_s"] = double(names + trainingRows.size()) / buildSeconds;
    figures["training_sample_s"] = training;
    figures["index_gib"] = gib(built.memoryBytes());
    figures["build_peak_rss_gib"] = peakRssGiB();
    auto& probeRows = figures["probes"] = nlohmann::ordered_json::array();

    std::printf(
        "\n| lists probed | ms per mention (batch of %zu) | recall@%zu against exact |\n| ---: | ---: | ---: |\n",
        sample.size(), kDepth);
    for (const std::size_t probes : options.probes) {
        retrieval::DenseIndexOptions search = indexOptions;
        search.ivfProbes = probes;
        built.setSearchOptions(search);
        const auto searchStart = Clock::now();
        const auto approximate = built.search(queries, kDepth);
        const double ms = 1000.0 * seconds(searchStart) / double(std::max<std::size_t>(1, sample.size()));
        std::size_t found = 0, total = 0;
        for (std::size_t q = 0; q < exact.size(); ++q) {
            std::set<std::uint32_t> rows;
            for (const auto& c : approximate[q]) rows.insert(c.entry);
            for (const auto& c : exact[q]) found += rows.count(c.entry);
            total += exact[q].size();
        }
        std::printf("| %zu | %.2f | %.4f |\n", probes, ms, total ? double(found) / double(total) : 0.0);
        probeRows.push_back({{"lists_probed", probes},
                             {"ms_per_mention", ms},
                             {"recall_at_64", total ? double(found) / double(total) : 0.0}});
    }
    std::printf("\npeak RSS at the end: %.2f GiB\n", peakRssGiB());
    figures["peak_rss_gib"] = peakRssGiB();
    return 0;
}

}  // namespace

int main(int argc, char** argv) {
    linkscope::bench::JsonReport json("dense_scale", argc, argv);
    std::setvbuf(stdout, nullptr, _IOLBF, 0);  // each figure as it is measured, also into a file
    try {
        return run(parse(argc, argv), json);
    } catch (const std::exception& e) {
        std::fprintf(stderr, "dense_scale: %s\n", e.what());
        return 1;
    }
}
