// FAISS through DenseIndex: build time, memory, query throughput and the recall of HNSW and
// IVF-PQ against exact search, on vectors drawn from a Gaussian mixture (names of one concept
// lie close together, as an encoder puts them), for dictionary sizes of NCBI/BC5CDR (73,000
// names) to UMLS subsets (1,000,000), in BERT-base's 768 dimensions and BELHD's 128.
//
// Usage: dense_faiss [--rows 73000,1000000] [--dims 768,128] [--kinds flat,hnsw,ivf-pq]
//                    [--queries 1000] [--exact-queries N] [--k 64] [--centres 20000]
//                    [--ef 64,128,256] [--batch N] [--json]
// --exact-queries: how many of the queries get an exact reference (default: all up to 200,000
// names, 100 above: flat search over a million names is slow on few cores); recall is measured on them.
// --batch: queries per search call (default: all at once).
// Prints a markdown table on stdout, progress on stderr; with --json the tables' rows as one JSON
// object on stdout instead (json_report.h).
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <random>
#include <set>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

#include "json_report.h"
#include "retrieval/dense_index.h"

using namespace linkscope::retrieval;

namespace {

using Clock = std::chrono::steady_clock;
using Lists = std::vector<std::vector<Candidate>>;

double secondsSince(Clock::time_point start) { return std::chrono::duration<double>(Clock::now() - start).count(); }

std::vector<std::size_t> parseSizes(const char* text) {
    std::vector<std::size_t> sizes;
    std::string item;
    for (const char* c = text;; ++c) {
        if (*c == ',' || *c == '\0') {
            if (!item.empty()) sizes.push_back(std::stoull(item));
            item.clear();
            if (*c == '\0') break;
        } else {
            item += *c;
        }
    }
    return sizes;
}

void normalize(std::span<float> row) {
    double norm = 0;
    for (const float v : row) norm += double(v) * v;
    const auto scale = static_cast<float>(1.0 / std::sqrt(std::max(norm, 1e-30)));
    for (float& v : row) v *= scale;
}

/// rows unit vectors, each a random centre plus Gaussian noise of norm ~`spread`.
std::vector<float> mixture(std::size_t rows, std::size_t dimension, std::size_t centres, float spread,
                           std::uint64_t seed) {
    std::mt19937_64 random(seed);
    std::normal_distribution<float> normal;
    std::vector<float> centre(centres * dimension);
    for (auto& v : centre) v = normal(random);
    for (std::size_t c = 0; c < centres; ++c) normalize(std::span(centre).subspan(c * dimension, dimension));
    std::uniform_int_distribution<std::size_t> pick(0, centres - 1);
    const float sigma = spread / std::sqrt(static_cast<float>(dimension));
    std::vector<float> values(rows * dimension);
    for (std::size_t row = 0; row < rows; ++row) {
        const std::size_t c = pick(random);
        for (std::size_t i = 0; i < dimension; ++i)
            values[row * dimension + i] = centre[c * dimension + i] + sigma * normal(random);
        normalize(std::span(values).subspan(row * dimension, dimension));
    }
    return values;
}

/// Indexed rows (spread evenly), moved by noise of norm ~0.2: a mention near one of its names.
std::vector<float> perturbed(const std::vector<float>& vectors, std::size_t dimension, std::size_t count,
                             std::uint64_t seed) {
    std::mt19937_64 random(seed);
    std::normal_distribution<float> normal(0.0f, 0.2f / std::sqrt(static_cast<float>(dimension)));
    const std::size_t rows = vectors.size() / dimension;
    std::vector<float> queries(count * dimension);
    for (std::size_t q = 0; q < count; ++q) {
        const std::size_t row = (q * 7919) % rows;
        for (std::size_t i = 0; i < dimension; ++i)
            queries[q * dimension + i] = vectors[row * dimension + i] + normal(random);
        normalize(std::span(queries).subspan(q * dimension, dimension));
    }
    return queries;
}

double recallAt(const Lists& approximate, const Lists& exact, std::size_t k) {
    std::size_t found = 0, total = 0;
    for (std::size_t q = 0; q < exact.size(); ++q) {
        std::set<std::uint32_t> rows;
        for (std::size_t i = 0; i < std::min(k, approximate[q].size()); ++i) rows.insert(approximate[q][i].entry);
        for (std::size_t i = 0; i < std::min(k, exact[q].size()); ++i, ++total) found += rows.count(exact[q][i].entry);
    }
    return total ? double(found) / double(total) : 0.0;
}

struct Timed {
    Lists lists;
    double seconds = 0;
};

Timed timedSearch(const DenseIndex& index, const std::vector<float>& queries, std::size_t count, std::size_t k,
                  std::size_t batch) {
    const std::size_t dimension = index.dimension();
    Timed result;
    const auto start = Clock::now();
    for (std::size_t first = 0; first < count; first += batch) {
        const std::size_t rows = std::min(batch, count - first);
        auto part = index.search(std::span(queries).subspan(first * dimension, rows * dimension), k);
        for (auto& list : part) result.lists.push_back(std::move(list));
    }
    result.seconds = secondsSince(start);
    return result;
}

}  // namespace

int main(int argc, char** argv) {
    linkscope::bench::JsonReport report("dense_faiss", argc, argv);
    std::vector<std::size_t> rowCounts = {73000, 1000000}, dims = {768, 128}, efs = {64, 128, 256};
    std::set<std::string> kinds = {"flat", "hnsw", "ivf-pq"};
    std::size_t queryCount = 1000, exactLimit = 0, k = 64, centres = 20000, batch = 0;
    for (int i = 1; i + 1 < argc; i += 2) {
        const std::string flag = argv[i];
        if (flag == "--rows")
            rowCounts = parseSizes(argv[i + 1]);
        else if (flag == "--dims")
            dims = parseSizes(argv[i + 1]);
        else if (flag == "--ef")
            efs = parseSizes(argv[i + 1]);
        else if (flag == "--queries")
            queryCount = std::stoull(argv[i + 1]);
        else if (flag == "--exact-queries")
            exactLimit = std::stoull(argv[i + 1]);
        else if (flag == "--k")
            k = std::stoull(argv[i + 1]);
        else if (flag == "--centres")
            centres = std::stoull(argv[i + 1]);
        else if (flag == "--batch")
            batch = std::stoull(argv[i + 1]);
        else if (flag == "--kinds") {
            kinds.clear();
            std::string list = argv[i + 1] + std::string(",");
            for (std::size_t at = 0, next; (next = list.find(',', at)) != std::string::npos; at = next + 1)
                if (next > at) kinds.insert(list.substr(at, next - at));
        } else {
            std::fprintf(stderr, "unknown option %s\n", flag.c_str());
            return 2;
        }
    }
    if (batch == 0) batch = queryCount;
    report.parameters() = {{"rows", rowCounts},  {"dims", dims},  {"ef", efs}, {"queries", queryCount}, {"k", k},
                           {"centres", centres}, {"batch", batch}};
    report.parameters()["kinds"] = std::vector<std::string>(kinds.begin(), kinds.end());
    report.figures()["indexes"] = nlohmann::ordered_json::array();
    report.figures()["loads"] = nlohmann::ordered_json::array();
    // Taken once both keys exist: no key is added to the figures after these.
    auto& searchRows = report.figures()["indexes"];
    auto& loadFigures = report.figures()["loads"];

    std::printf("| names | dim | index | build s | memory MB | queries/s | exact queries | R@1 | R@10 | R@%zu |\n", k);
    std::printf("|---:|---:|---|---:|---:|---:|---:|---:|---:|---:|\n");
    // Saving and loading each index: the load verifies the CRC-32, walks the FAISS payload
    // (faissPayloadProblem) and lets FAISS read it, then checks its structure (best of 3 loads).
    std::vector<std::string> loadRows;
    const auto timeLoad = [&](const DenseIndex& index, std::size_t rows, std::size_t dim, const char* name) {
        const auto file = std::filesystem::temp_directory_path() / "linkscope-dense-faiss-bench.dense";
        index.save(file);
        double best = 1e30;
        for (int repeat = 0; repeat < 3; ++repeat) {
            const auto start = Clock::now();
            const auto loaded = DenseIndex::load(file);
            best = std::min(best, secondsSince(start));
            if (loaded.size() != index.size()) throw std::runtime_error("the loaded index has another size");
        }
        char line[256];
        std::snprintf(line, sizeof line, "| %zu | %zu | %s | %.1f | %.3f |", rows, dim, name,
                      double(std::filesystem::file_size(file)) / (1024.0 * 1024.0), best);
        loadRows.emplace_back(line);
        loadFigures.push_back({{"names", rows},
                               {"dim", dim},
                               {"index", name},
                               {"file_mb", double(std::filesystem::file_size(file)) / (1024.0 * 1024.0)},
                               {"load_s_best_of_3", best}});
        std::filesystem::remove(file);
    };
    for (const std::size_t rows : rowCounts) {
        for (const std::size_t dim : dims) {
            std::fprintf(stderr, "generating %zu x %zu\n", rows, dim);
            const auto vectors = mixture(rows, dim, std::min(centres, rows), 0.5f, 42 + rows + dim);
            const auto queries = perturbed(vectors, dim, queryCount, 7 + rows + dim);
            const std::size_t exactCount =
                std::min(queryCount, exactLimit ? exactLimit : (rows > 200000 ? std::size_t{100} : queryCount));

            // The exact reference: FAISS's flat index (checked against brute force in the tests).
            const auto flatStart = Clock::now();
            const auto flat = DenseIndex::build(vectors, dim, "bench");
            const double flatBuild = secondsSince(flatStart);
            std::fprintf(stderr, "exact search of %zu queries\n", exactCount);
            const Timed exact = timedSearch(flat, queries, exactCount, k, batch);
            const auto row = [&](const char* name, double build, std::size_t memory, const Timed& timed,
                                 std::size_t searched) {
                std::printf("| %zu | %zu | %s | %.1f | %.0f | %.0f | %zu | %.3f | %.3f | %.3f |\n", rows, dim, name,
                            build, double(memory) / (1024.0 * 1024.0), double(searched) / timed.seconds, exactCount,
                            recallAt(timed.lists, exact.lists, 1), recallAt(timed.lists, exact.lists, 10),
                            recallAt(timed.lists, exact.lists, k));
                std::fflush(stdout);
                searchRows.push_back({{"names", rows},
                                      {"dim", dim},
                                      {"index", name},
                                      {"build_s", build},
                                      {"memory_mb", double(memory) / (1024.0 * 1024.0)},
                                      {"queries_per_s", double(searched) / timed.seconds},
                                      {"exact_queries", exactCount},
                                      {"recall_at_1", recallAt(timed.lists, exact.lists, 1)},
                                      {"recall_at_10", recallAt(timed.lists, exact.lists, 10)},
                                      {"recall_at_k", recallAt(timed.lists, exact.lists, k)}});
            };
            if (kinds.count("flat")) {
                row("flat", flatBuild, flat.memoryBytes(), exact, exactCount);
                timeLoad(flat, rows, dim, "flat");
            }

            if (kinds.count("hnsw")) {
                DenseIndexOptions options;
                options.kind = DenseIndexKind::Hnsw;
                options.hnswM = 32;
                std::fprintf(stderr, "building HNSW\n");
                const auto start = Clock::now();
                auto index = DenseIndex::build(vectors, dim, "bench", options);
                const double build = secondsSince(start);
                timeLoad(index, rows, dim, "HNSW M32");
                for (const std::size_t ef : efs) {
                    options.hnswEfSearch = ef;
                    index.setSearchOptions(options);
                    const Timed timed = timedSearch(index, queries, queryCount, k, batch);
                    Timed measured{Lists(timed.lists.begin(), timed.lists.begin() + static_cast<long>(exactCount)),
                                   timed.seconds};
                    const std::string name = "HNSW M32 ef" + std::to_string(ef);
                    row(name.c_str(), build, index.memoryBytes(), measured, queryCount);
                }
            }
            if (kinds.count("ivf-pq")) {
                DenseIndexOptions options;
                options.kind = DenseIndexKind::IvfPq;
                std::fprintf(stderr, "building IVF-PQ\n");
                const auto start = Clock::now();
                auto index = DenseIndex::build(vectors, dim, "bench", options);
                const double build = secondsSince(start);
                timeLoad(index, rows, dim, "IVF-PQ auto");
                for (const std::size_t probes : {std::size_t{32}, std::size_t{128}}) {
                    options.ivfProbes = probes;
                    index.setSearchOptions(options);
                    const Timed timed = timedSearch(index, queries, queryCount, k, batch);
                    Timed measured{Lists(timed.lists.begin(), timed.lists.begin() + static_cast<long>(exactCount)),
                                   timed.seconds};
                    const std::string name = "IVF-PQ auto, nprobe " + std::to_string(probes);
                    row(name.c_str(), build, index.memoryBytes(), measured, queryCount);
                }
            }
        }
    }
    std::printf("\n| names | dim | index | file MB | load s (best of 3) |\n|---:|---:|---|---:|---:|\n");
    for (const auto& line : loadRows) std::printf("%s\n", line.c_str());
    return 0;
}
