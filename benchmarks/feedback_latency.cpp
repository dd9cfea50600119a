// How long a curator's decision takes to change the next predictions (the budget: well under
// 50 ms for a datastore of 100,000 keys), end to end through curation::FeedbackLoop:
//   record   FeedbackLoop::record(mention, entity, Correct, false): the key added;
//   predict  the next prediction of a similar mention (one FeedbackLoop::predict): record +
//            predict is what a decision costs before the next prediction shows it;
//   listing  record with the "same surface form elsewhere" list: the two other mentions of the
//            same text linked before and after the decision;
//   undo     FeedbackLoop::undo(key).
// The encoder is the compact one of models/compact-encoder.json (random weights: the time of a
// search does not depend on them), linking as the triplet preset does (cosine), over 30,000
// generated names of 10,000 entities; the datastore holds 100,000 keys (each a name's vector with
// noise, valued with its entity) plus the decisions. The mentions' vectors and model lists are
// computed once before the clock starts, as the loop keeps them: what is timed is what a
// decision costs.
//
// Usage: feedback_latency [--keys 100000] [--names 30000] [--decisions 100] [--json]
// Prints a markdown table on stdout, progress on stderr; with --json the table's rows as one JSON
// object on stdout instead (json_report.h).
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <random>
#include <string>
#include <string_view>
#include <vector>

#include "curation/augmented_linker.h"
#include "curation/feedback_loop.h"
#include "encoder/compact_encoder.h"
#include "encoder/text_encoder.h"
#include "json_report.h"
#include "retrieval/knn_datastore.h"
#include "train/method_linker.h"
#include "train/training_preset.h"

using namespace linkscope;
namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

namespace {

fs::path sourceDir() { return fs::path(LINKSCOPE_SOURCE_DIR); }

// Pronounceable made-up words, so the vocabulary learner finds pieces to merge.
std::string word(std::mt19937& random) {
    static constexpr std::string_view kOnsets[] = {"b", "c", "d", "f", "g", "h", "l",
                                                   "m", "n", "p", "r", "s", "t", "v"};
    static constexpr std::string_view kVowels[] = {"a", "e", "i", "o", "u", "y"};
    std::string out;
    const int syllables = 2 + static_cast<int>(random() % 3);
    for (int i = 0; i < syllables; ++i) {
        out += kOnsets[random() % std::size(kOnsets)];
        out += kVowels[random() % std::size(kVowels)];
    }
    return out;
}

struct Timing {
    std::vector<double> ms;
    void add(Clock::time_point start) {
        ms.push_back(std::chrono::duration<double, std::milli>(Clock::now() - start).count());
    }
    double quantile(double q) {
        std::sort(ms.begin(), ms.end());
        return ms.empty() ? 0.0
                          : ms[std::min(ms.size() - 1, static_cast<std::size_t>(q * static_cast<double>(ms.size())))];
    }
};

}  // namespace

int main(int argc, char** argv) {
    linkscope::bench::JsonReport report("feedback_latency", argc, argv);
    std::size_t keys = 100000, names = 30000, decisions = 100;
    for (int i = 1; i + 1 < argc; i += 2) {
        const std::string flag = argv[i];
        const auto value = static_cast<std::size_t>(std::strtoull(argv[i + 1], nullptr, 10));
        if (flag == "--keys")
            keys = value;
        else if (flag == "--names")
            names = value;
        else if (flag == "--decisions")
            decisions = value;
        else {
            std::fprintf(stderr, "usage: feedback_latency [--keys N] [--names N] [--decisions N] [--json]\n");
            return 2;
        }
    }
    std::mt19937 random(42);
    const std::size_t entities = std::max<std::size_t>(1, names / 3);
    retrieval::NameDictionary dictionary;
    std::vector<std::string> texts;
    for (std::size_t n = 0; n < names; ++n) {
        std::string name = word(random) + " " + word(random);
        if (random() % 2) name += " " + word(random);
        dictionary.push_back({name, {"GEN:" + std::to_string(n % entities)}});
        texts.push_back(name);
    }
    // Mentions: a name with one word changed, each written in three documents.
    std::vector<curation::LinkTarget> targets;
    for (std::size_t d = 0; d < decisions * 2; ++d) {
        const std::string& name = dictionary[random() % names].name;
        const std::string text = name.substr(0, name.find(' ')) + " " + word(random);
        texts.push_back(text);
        for (int copy = 0; copy < 3; ++copy)
            targets.push_back({"doc" + std::to_string(d) + "-" + std::to_string(copy), 0, text.size(), text, text});
    }

    std::fprintf(stderr, "compact encoder: vocabulary and model\n");
    const auto compact = encoder::CompactEncoderPreset::load(sourceDir() / "models" / "compact-encoder.json");
    encoder::EncoderOptions options;
    options.device = encoder::DevicePreference::Cpu;
    const encoder::TextEncoder encoder = encoder::createCompactEncoder(compact, texts, {}, options);
    train::TrainingPreset preset = train::TrainingPreset::load(sourceDir() / "models" / "triplet.json");

    std::fprintf(stderr, "encoding %zu names\n", names);
    const auto encodeStart = Clock::now();
    const train::MethodLinker model(preset, encoder, dictionary, nullptr);
    std::fprintf(stderr, "  %.1f s\n", std::chrono::duration<double>(Clock::now() - encodeStart).count());

    // 100,000 keys: the names' vectors with noise of a tenth of their spread.
    const std::size_t dimension = model.dimension();
    const auto vectors = model.entryVectors();
    retrieval::KnnDatastore store(dimension, encoder.fingerprint());
    std::normal_distribution<float> noise(0.0f, 0.1f);
    std::vector<float> key(dimension);
    for (std::size_t k = 0; k < keys; ++k) {
        const std::size_t entry = random() % names;
        for (std::size_t i = 0; i < dimension; ++i) key[i] = vectors[entry * dimension + i] * (1.0f + noise(random));
        store.add(key, dictionary[entry].ids.front(), retrieval::KeyOrigin::Training, dictionary[entry].name);
    }

    report.parameters() = {{"keys", keys}, {"names", names}, {"decisions", decisions}};
    auto& rows = report.figures()["linkings"] = nlohmann::ordered_json::array();
    std::printf(
        "| linking | keys | record (median / max) | next predict (median / p90 / max) | record + same-surface list "
        "(median / p90 / max) | undo (median / max) |\n");
    std::printf("| --- | ---: | --- | --- | --- | --- |\n");
    for (const char* mode : {"knn", "sieve D-T+OD-T"}) {
        curation::AugmentedOptions augmented;
        if (std::string_view(mode) == "knn") {
            augmented.mode = curation::LinkMode::Knn;
        } else {
            augmented.mode = curation::LinkMode::Sieve;
            augmented.sieve = retrieval::parseSieve("D-T+OD-T");
        }
        const curation::AugmentedLinker linker(model, dictionary, &store, augmented);
        curation::FeedbackLoop loop(linker, store, targets);
        std::vector<std::size_t> all(targets.size());
        for (std::size_t t = 0; t < all.size(); ++t) all[t] = t;
        std::fprintf(stderr, "%s: preparing %zu mentions\n", mode, all.size());
        loop.prepare(all);

        Timing record, predict, listing, undo;
        std::vector<std::uint64_t> added;
        for (std::size_t d = 0; d < decisions; ++d) {
            const std::size_t target = d * 3;
            const std::string entity = dictionary[random() % names].ids.front();
            auto start = Clock::now();
            const auto effect = loop.record(target, entity, curation::DecisionKind::Correct, false);
            record.add(start);
            // The next mention the curator opens: another document's copy of a later mention.
            const std::size_t next[] = {(d + 1) * 3 + 1};
            start = Clock::now();
            const auto ranked = loop.predict(next, 10);
            predict.add(start);
            if (ranked.empty() || ranked[0].empty()) std::fprintf(stderr, "no prediction\n");
            added.push_back(*effect.key);
            // The same decision again, listing the other two copies of the text.
            start = Clock::now();
            const auto listed = loop.record(target, entity, curation::DecisionKind::Correct, true);
            listing.add(start);
            if (listed.sameSurface.size() != 2) std::fprintf(stderr, "expected two other mentions\n");
            added.push_back(*listed.key);
        }
        // Which decision's prediction was the slowest (before quantile() sorts the times): the
        // first one after prepare() is the one that would show a cold start.
        const auto slowest = std::max_element(predict.ms.begin(), predict.ms.end());
        if (slowest != predict.ms.end())
            std::fprintf(stderr, "%s: slowest next predict after decision %zu of %zu (%.2f ms)\n", mode,
                         static_cast<std::size_t>(slowest - predict.ms.begin()) + 1, decisions, *slowest);
        for (const auto k : added) {
            const auto start = Clock::now();
            loop.undo(k);
            undo.add(start);
        }
        std::printf("| %s | %zu | %.3f / %.3f ms | %.2f / %.2f / %.2f ms | %.2f / %.2f / %.2f ms | %.3f / %.3f ms |\n",
                    mode, store.size() + added.size(), record.quantile(0.5), record.quantile(1.0),
                    predict.quantile(0.5), predict.quantile(0.9), predict.quantile(1.0), listing.quantile(0.5),
                    listing.quantile(0.9), listing.quantile(1.0), undo.quantile(0.5), undo.quantile(1.0));
        rows.push_back({{"linking", mode},
                        {"keys", store.size() + added.size()},
                        {"record_median_ms", record.quantile(0.5)},
                        {"record_max_ms", record.quantile(1.0)},
                        {"predict_median_ms", predict.quantile(0.5)},
                        {"predict_p90_ms", predict.quantile(0.9)},
                        {"predict_max_ms", predict.quantile(1.0)},
                        {"record_with_list_median_ms", listing.quantile(0.5)},
                        {"record_with_list_p90_ms", listing.quantile(0.9)},
                        {"record_with_list_max_ms", listing.quantile(1.0)},
                        {"undo_median_ms", undo.quantile(0.5)},
                        {"undo_max_ms", undo.quantile(1.0)}});
    }
    return 0;
}
