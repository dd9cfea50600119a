// kNN-BioEL's datastore at the size a curator's project reaches: 100,000 keys of ~14,000
// entities in 256 and 768 dimensions. How long one curator decision takes to reach the next
// prediction: adding a key, removing one (undo), searching with one query (k = 4, the paper's
// neighbours; k = 128, a candidate list), a batch of 256 queries against the same 256 asked one
// at a time (ranking a whole corpus), and saving + loading the whole store.
//
// Usage: knn_datastore [--keys 100000] [--dims 256,768] [--entities 14000] [--reps 200]
//                      [--io-reps 10] [--batch-reps 3] [--dir DIR] [--seed 1] [--json]
// --io-reps: save+load repetitions (each writes and reads the whole store).
// Prints a markdown table on stdout, progress on stderr; with --json the table's rows as one JSON
// object on stdout instead (json_report.h).
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <random>
#include <string>
#include <vector>

#include <unistd.h>

#include "json_report.h"
#include "retrieval/knn_datastore.h"

#if LINKSCOPE_HAVE_TORCH
#include <faiss/utils/distances.h>
#endif

using namespace linkscope::retrieval;

namespace {

using Clock = std::chrono::steady_clock;

double millisecondsSince(Clock::time_point start) {
    return std::chrono::duration<double, std::milli>(Clock::now() - start).count();
}

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

std::vector<float> gaussian(std::mt19937_64& random, std::size_t count) {
    std::normal_distribution<float> normal;
    std::vector<float> values(count);
    for (auto& value : values) value = normal(random);
    return values;
}

struct Timing {
    std::vector<double> samples;  // milliseconds

    double median() {
        std::sort(samples.begin(), samples.end());
        const std::size_t n = samples.size();
        return n == 0 ? 0.0 : n % 2 ? samples[n / 2] : (samples[n / 2 - 1] + samples[n / 2]) / 2;
    }
    double max() const { return samples.empty() ? 0.0 : *std::max_element(samples.begin(), samples.end()); }
};

void printRow(nlohmann::ordered_json& rows, std::size_t dimension, const char* operation, Timing& timing) {
    const std::size_t reps = timing.samples.size();
    const double median = timing.median();
    rows.push_back({{"dimension", dimension},
                    {"operation", operation},
                    {"repetitions", reps},
                    {"median_ms", median},
                    {"max_ms", timing.max()}});
    std::printf("| %zu | %s | %zu | %.3f | %.3f |\n", dimension, operation, reps, median, timing.max());
    std::fflush(stdout);
}

}  // namespace

int main(int argc, char** argv) {
    linkscope::bench::JsonReport report("knn_datastore", argc, argv);
    std::size_t keys = 100000;
    std::vector<std::size_t> dims{256, 768};
    std::size_t entityCount = 14000;
    std::size_t reps = 200;
    std::size_t ioReps = 10;
    std::size_t batchReps = 3;
    constexpr std::size_t kBatchQueries = 256;
    std::uint64_t seed = 1;
    std::filesystem::path dir = std::filesystem::temp_directory_path();
    for (int i = 1; i < argc; ++i) {
        const std::string arg = argv[i];
        const char* value = i + 1 < argc ? argv[i + 1] : nullptr;
        if (!value) {
            std::fprintf(stderr, "%s needs a value\n", arg.c_str());
            return 2;
        }
        if (arg == "--keys")
            keys = std::stoull(value);
        else if (arg == "--dims")
            dims = parseSizes(value);
        else if (arg == "--entities")
            entityCount = std::stoull(value);
        else if (arg == "--reps")
            reps = std::stoull(value);
        else if (arg == "--io-reps")
            ioReps = std::stoull(value);
        else if (arg == "--batch-reps")
            batchReps = std::stoull(value);
        else if (arg == "--dir")
            dir = value;
        else if (arg == "--seed")
            seed = std::stoull(value);
        else {
            std::fprintf(stderr, "unknown option %s\n", arg.c_str());
            return 2;
        }
        ++i;
    }
    if (keys == 0 || entityCount == 0 || reps == 0) {
        std::fprintf(stderr, "--keys, --entities and --reps must be positive\n");
        return 2;
    }
    report.parameters() = {{"keys", keys},      {"entities", entityCount}, {"reps", reps},
                           {"io_reps", ioReps}, {"batch_reps", batchReps}, {"seed", seed}};
    report.parameters()["dims"] = dims;
    auto& rows = report.figures()["operations"] = nlohmann::ordered_json::array();
    std::vector<std::string> entityIds(entityCount);
    for (std::size_t e = 0; e < entityCount; ++e) entityIds[e] = "MESH:D" + std::to_string(100000 + e);

    std::printf("| dimension | operation | repetitions | median ms | max ms |\n| ---: | --- | ---: | ---: | ---: |\n");
    for (const std::size_t dimension : dims) {
        std::mt19937_64 random(seed + dimension);
        std::uniform_int_distribution<std::size_t> pickEntity(0, entityCount - 1);
        std::fprintf(stderr, "dimension %zu: generating %zu keys\n", dimension, keys);
        KnnDatastore store(dimension, "benchmark-encoder-" + std::to_string(dimension));
        {
            const std::vector<float> vectors = gaussian(random, keys * dimension);
            std::vector<std::string> entities(keys);
            std::vector<std::string> sources(keys);
            for (std::size_t i = 0; i < keys; ++i) {
                entities[i] = entityIds[pickEntity(random)];
                sources[i] = "train:" + std::to_string(10000000 + i) + ":0-12";
            }
            const auto start = Clock::now();
            store.addBatch(vectors, entities, KeyOrigin::Training, sources);
            Timing build{{millisecondsSince(start)}};
            printRow(rows, dimension, "addBatch (all keys, once)", build);
        }
        std::fprintf(stderr, "dimension %zu: %zu keys of %zu entities\n", dimension, store.size(),
                     store.entities().size());

        Timing add, remove, search4, search128;
        std::vector<std::uint64_t> added;
        for (std::size_t r = 0; r < reps; ++r) {
            const std::vector<float> vector = gaussian(random, dimension);
            const std::string& entity = entityIds[pickEntity(random)];
            const auto start = Clock::now();
            added.push_back(store.add(vector, entity, KeyOrigin::Accepted, "decision-" + std::to_string(r)));
            add.samples.push_back(millisecondsSince(start));
        }
        // Undo of a random key of the training set: its row is refilled by the last one.
        std::uniform_int_distribution<std::uint64_t> pickKey(1, keys);
        for (std::size_t r = 0; r < reps; ++r) {
            std::uint64_t key = pickKey(random);
            while (!store.contains(key)) key = pickKey(random);
            const auto start = Clock::now();
            const bool removed = store.remove(key);
            remove.samples.push_back(millisecondsSince(start));
            if (!removed) return 1;
        }
        for (const std::uint64_t key : added) store.remove(key);
        std::size_t checksum = 0;  // keeps the results alive
        for (std::size_t r = 0; r < reps; ++r) {
            const std::vector<float> query = gaussian(random, dimension);
            auto start = Clock::now();
            checksum += store.search(query, 4)[0].front().key;
            search4.samples.push_back(millisecondsSince(start));
            start = Clock::now();
            checksum += store.search(query, 128)[0].back().key;
            search128.samples.push_back(millisecondsSince(start));
        }
        printRow(rows, dimension, "add (one key)", add);
        printRow(rows, dimension, "remove (one key)", remove);
        printRow(rows, dimension, "search (one query, k = 4)", search4);
        printRow(rows, dimension, "search (one query, k = 128)", search128);

        // Ranking a whole corpus (ModelCandidates, eval --knn) asks in batches of 256 mentions:
        // the batch (scored by matrix products) against the same 256 queries one call each.
        {
            Timing batch, oneByOne;
            for (std::size_t r = 0; r < batchReps; ++r) {
                const std::vector<float> queries = gaussian(random, kBatchQueries * dimension);
                auto start = Clock::now();
                const auto lists = store.search(queries, 4);
                batch.samples.push_back(millisecondsSince(start));
                start = Clock::now();
                for (std::size_t q = 0; q < kBatchQueries; ++q) {
                    const auto single = store.search(std::span(queries).subspan(q * dimension, dimension), 4);
                    if (single[0].front().key != lists[q].front().key) return 1;  // the same answer, or no figure
                }
                oneByOne.samples.push_back(millisecondsSince(start));
                checksum += lists.back().front().key;
            }
            printRow(rows, dimension, "search (256 queries in one call, k = 4)", batch);
            printRow(rows, dimension, "search (the same 256 queries, one call each, k = 4)", oneByOne);
        }

#if LINKSCOPE_HAVE_TORCH
        // What FAISS's inner-product routine alone takes for the same scan (no top-k): the
        // kernel the brief suggested, measured against the datastore's own search.
        {
            Timing faissScan;
            std::vector<float> scores(store.size());
            for (std::size_t r = 0; r < reps; ++r) {
                std::vector<float> query = gaussian(random, dimension);
                faiss::fvec_renorm_L2(dimension, 1, query.data());
                const auto start = Clock::now();
                faiss::fvec_inner_products_ny(scores.data(), query.data(), store.keyVectors().data(), dimension,
                                              store.size());
                faissScan.samples.push_back(millisecondsSince(start));
                checksum += static_cast<std::size_t>(scores[r % scores.size()] > 0);
            }
            printRow(rows, dimension, "faiss::fvec_inner_products_ny alone (one query, no top-k)", faissScan);
        }
#endif

        if (ioReps > 0) {
            Timing save, load;
            const auto file = dir / ("linkscope-knn-bench-" + std::to_string(::getpid()) + ".lsknn");
            for (std::size_t r = 0; r < ioReps; ++r) {
                auto start = Clock::now();
                store.save(file);
                save.samples.push_back(millisecondsSince(start));
                start = Clock::now();
                const KnnDatastore loaded = KnnDatastore::load(file, store.encoderFingerprint());
                load.samples.push_back(millisecondsSince(start));
                if (loaded.size() != store.size()) return 1;
            }
            std::fprintf(stderr, "dimension %zu: file of %.1f MiB\n", dimension,
                         static_cast<double>(std::filesystem::file_size(file)) / (1 << 20));
            std::filesystem::remove(file);
            printRow(rows, dimension, "save", save);
            printRow(rows, dimension, "load (checksum, validation)", load);
        }
        std::fprintf(stderr, "(checksum %zu)\n", checksum);
    }
    return 0;
}
