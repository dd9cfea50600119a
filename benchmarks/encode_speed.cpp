// Names encoded per second on the CPU by TextEncoder, for
//  (a) the compact encoder of models/compact-encoder.json (its "config" object), with a
//      WordPiece vocabulary learned from the MEDIC names (../shared/data/medic) as the
//      trainer will learn it -- or from generated names when the data is absent;
//  (b) a BERT-base-sized random model (768 x 12 layers, 30,522 tokens), the size of SapBERT,
//      PubMedBERT and BioBERT.
// Weights are random: the speed of a forward pass does not depend on their values.
//
// Usage: encode_speed [--compact-names 20000] [--base-names 2000] [--max-length 25] [--batch 256]
//                     [--json]
// Prints a markdown table on stdout, progress on stderr; with --json the table's rows as one JSON
// object on stdout instead (json_report.h).
#include <nlohmann/json.hpp>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <random>
#include <string>
#include <string_view>
#include <vector>

#include "encoder/text_encoder.h"
#include "encoder/vocabulary_builder.h"
#include "json_report.h"
#include "util/line_reader.h"

using namespace linkscope;
using namespace linkscope::encoder;
namespace fs = std::filesystem;

namespace {

using Clock = std::chrono::steady_clock;

/// The checkout, from this file's path (benchmarks/CMakeLists.txt passes no source-dir define).
fs::path sourceDir() { return fs::path(__FILE__).parent_path().parent_path(); }

fs::path dataDir() {
    if (const char* env = std::getenv("LINKSCOPE_DATA_DIR"); env && *env) return env;
#ifdef LINKSCOPE_DEFAULT_DATA_DIR
    return LINKSCOPE_DEFAULT_DATA_DIR;
#else
    return sourceDir() / ".." / "shared" / "data";  // the project's default location
#endif
}

/// Every name of the MEDIC vocabulary (`IDS||NAME|NAME...`), or none when it is absent.
std::vector<std::string> medicNames() {
    const auto file = dataDir() / "medic" / "medic_06Jul2012.txt";
    std::error_code ec;
    if (!fs::exists(file, ec)) return {};
    std::vector<std::string> names;
    LineReader reader(file);
    std::string line;
    while (reader.next(line)) {
        const auto bars = line.find("||");
        if (bars == std::string::npos) continue;
        std::string_view rest = std::string_view(line).substr(bars + 2);
        while (!rest.empty()) {
            const auto bar = rest.find('|');
            const auto name = rest.substr(0, bar);
            if (!name.empty()) names.emplace_back(name);
            if (bar == std::string_view::npos) break;
            rest.remove_prefix(bar + 1);
        }
    }
    return names;
}

/// Disease-like names of 1-8 pseudo-words, deterministic.
std::vector<std::string> generatedNames(std::size_t count) {
    static constexpr std::string_view syllables[] = {
        "car",  "dio",  "my",   "path", "neu",   "ro",  "blast", "o",   "ma",  "hep", "at",  "itis", "nephr",
        "osis", "leuk", "emia", "syn",  "drome", "fib", "ro",    "sis", "dys", "tro", "phy", "type"};
    std::mt19937_64 random(7);
    std::uniform_int_distribution<std::size_t> words(1, 8), parts(1, 4), pick(0, std::size(syllables) - 1);
    std::vector<std::string> names;
    for (std::size_t i = 0; i < count; ++i) {
        std::string name;
        for (std::size_t w = words(random); w > 0; --w) {
            if (!name.empty()) name += ' ';
            for (std::size_t p = parts(random); p > 0; --p) name += syllables[pick(random)];
        }
        names.push_back(std::move(name));
    }
    return names;
}

/// `count` names taken evenly from the pool (all of them, cycled, when the pool is smaller).
std::vector<std::string> sample(const std::vector<std::string>& pool, std::size_t count) {
    std::vector<std::string> names;
    const double step = pool.size() > count ? static_cast<double>(pool.size()) / static_cast<double>(count) : 1.0;
    for (std::size_t i = 0; i < count; ++i)
        names.push_back(pool[static_cast<std::size_t>(static_cast<double>(i) * step) % pool.size()]);
    return names;
}

BertConfig compactConfig() {
    const fs::path file = sourceDir() / "models" / "compact-encoder.json";
    std::ifstream in(file);
    const auto json = nlohmann::json::parse(in, nullptr, /*allow_exceptions=*/false);
    if (!json.is_object() || !json.contains("config")) {
        std::fprintf(stderr, "%s: not readable or no \"config\" object\n", file.string().c_str());
        std::exit(1);
    }
    const auto& c = json.at("config");
    BertConfig config;
    config.hiddenSize = c.at("hidden_size").get<std::size_t>();
    config.numHiddenLayers = c.at("num_hidden_layers").get<std::size_t>();
    config.numAttentionHeads = c.at("num_attention_heads").get<std::size_t>();
    config.intermediateSize = c.at("intermediate_size").get<std::size_t>();
    config.maxPositionEmbeddings = c.at("max_position_embeddings").get<std::size_t>();
    config.typeVocabSize = c.at("type_vocab_size").get<std::size_t>();
    config.layerNormEps = c.at("layer_norm_eps").get<double>();
    config.initializerRange = c.at("initializer_range").get<double>();
    config.padTokenId = c.at("pad_token_id").get<std::size_t>();
    return config;
}

struct Measurement {
    double namesPerSecond = 0;
    double msPerBatch = 0;
    std::size_t batches = 0;
};

Measurement measure(const TextEncoder& encoder, const std::vector<std::string>& names) {
    // One batch first: LibTorch allocates its buffers and spins up its thread pool on first use.
    encoder.encode(std::span(names).subspan(0, std::min(names.size(), encoder.options().batchSize)));
    std::size_t batches = 0;
    ProgressSink progress;
    progress.report = [&](std::string_view, double fraction) {
        ++batches;
        std::fprintf(stderr, "\r  %5.1f%%", 100.0 * fraction);
    };
    const auto start = Clock::now();
    const auto vectors = encoder.encode(names, &progress);
    const double seconds = std::chrono::duration<double>(Clock::now() - start).count();
    std::fprintf(stderr, "\n");
    if (vectors.size() != names.size() * encoder.dimension()) std::exit(2);
    return {static_cast<double>(names.size()) / seconds, 1000.0 * seconds / static_cast<double>(batches), batches};
}

}  // namespace

int main(int argc, char** argv) {
    linkscope::bench::JsonReport report("encode_speed", argc, argv);
    std::size_t compactNames = 20000, baseNames = 2000, maxLength = 25, batch = 256;
    for (int i = 1; i + 1 < argc; i += 2) {
        const std::string_view flag = argv[i];
        const std::size_t value = std::stoull(argv[i + 1]);
        if (flag == "--compact-names")
            compactNames = value;
        else if (flag == "--base-names")
            baseNames = value;
        else if (flag == "--max-length")
            maxLength = value;
        else if (flag == "--batch")
            batch = value;
        else {
            std::fprintf(stderr, "unknown option %s\n", argv[i]);
            return 1;
        }
    }

    auto pool = medicNames();
    const bool real = !pool.empty();
    if (!real) pool = generatedNames(60000);
    std::fprintf(stderr, "%zu %s names\n", pool.size(), real ? "MEDIC" : "generated");

    EncoderOptions options;
    options.device = DevicePreference::Cpu;
    options.maxLength = maxLength;
    options.batchSize = batch;

    report.parameters() = {{"compact_names", compactNames},
                           {"base_names", baseNames},
                           {"max_length", maxLength},
                           {"batch", batch},
                           {"names_from", real ? "MEDIC" : "generated"}};
    auto& rows = report.figures()["models"] = nlohmann::ordered_json::array();
    std::printf("| model | parameters | vocabulary | names | threads | names/s | ms per batch of %zu |\n", batch);
    std::printf("| --- | --- | --- | --- | --- | --- | --- |\n");
    const auto row = [&](const char* label, const TextEncoder& encoder, const std::vector<std::string>& names) {
        const auto m = measure(encoder, names);
        std::printf("| %s | %.1f M | %zu | %zu | %d | %.0f | %.1f |\n", label,
                    static_cast<double>(encoder.config().parameterCount()) / 1e6, encoder.config().vocabSize,
                    names.size(), computeThreads(), m.namesPerSecond, m.msPerBatch);
        std::fflush(stdout);
        rows.push_back({{"model", label},
                        {"parameters_m", static_cast<double>(encoder.config().parameterCount()) / 1e6},
                        {"vocabulary", encoder.config().vocabSize},
                        {"names", names.size()},
                        {"threads", computeThreads()},
                        {"names_per_s", m.namesPerSecond},
                        {"ms_per_batch", m.msPerBatch}});
    };

    {
        std::fprintf(stderr, "compact encoder: learning an 8000-token vocabulary\n");
        auto vocabulary =
            buildWordPieceVocabulary(pool, {.vocabularySize = 8000, .minFrequency = 2, .lowerCase = true});
        TokenizerConfig tokenizerConfig;
        const TextEncoder encoder =
            TextEncoder::create(compactConfig(), BertTokenizer(std::move(vocabulary), tokenizerConfig), 42, options);
        row(real ? "compact (MEDIC vocabulary)" : "compact (generated vocabulary)", encoder,
            sample(pool, compactNames));
    }
    {
        std::fprintf(stderr, "BERT-base: learning a 30522-token vocabulary\n");
        auto vocabulary =
            buildWordPieceVocabulary(pool, {.vocabularySize = 30522, .minFrequency = 1, .lowerCase = true});
        // The names may not hold 30,522 pieces: fill up with filler pieces, as BERT's
        // vocab.txt has [unused] rows, so that the embedding table has BERT-base's size.
        for (std::size_t i = 0; vocabulary.size() < 30522; ++i) vocabulary.add("[unused" + std::to_string(i) + "]");
        const TextEncoder encoder =
            TextEncoder::create(BertConfig{}, BertTokenizer(std::move(vocabulary), {}), 1, options);
        row("BERT-base size", encoder, sample(pool, baseNames));
    }
    return 0;
}
