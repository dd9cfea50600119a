// TextEncoder: checkpoints saved and loaded (Hugging Face names and their variants, dtypes,
// shards, the errors of a checkpoint that does not fit), pooling checked by hand against the
// token outputs, projection, normalization, length bucketing, cancellation and added tokens.
#include <torch/torch.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <functional>
#include <limits>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "encoder/bert_model.h"
#include "encoder/safetensors.h"
#include "encoder/text_encoder.h"
#include "fixtures.h"
#include "util/error.h"

using namespace linkscope;
using namespace linkscope::encoder;
namespace fs = std::filesystem;

namespace {

BertTokenizer smallTokenizer() {
    std::vector<std::string> tokens = {
        "[PAD]", "[UNK]", "[CLS]", "[SEP]",    "[MASK]", "heart", "attack",  "disease", "cancer",  "breast", "of",
        "the",   "type",  "2",     "diabetes", "lung",   "renal", "failure", "acute",   "chronic", "kidney", "(",
        ")",     ",",     "-",     "syndrome", "tumor",  "##ous", "cardiac", "arrest",  "mellitus"};
    for (char c = 'a'; c <= 'z'; ++c) {
        tokens.emplace_back(1, c);
        tokens.push_back(std::string("##") + c);
    }
    return BertTokenizer(Vocabulary::fromTokens(std::move(tokens)), TokenizerConfig{});
}

BertConfig tinyConfig() {
    BertConfig config;
    config.hiddenSize = 16;
    config.numHiddenLayers = 2;
    config.numAttentionHeads = 2;
    config.intermediateSize = 24;
    config.maxPositionEmbeddings = 32;
    return config;  // vocabSize follows the tokenizer in create()
}

EncoderOptions cpuOptions() {
    EncoderOptions options;
    options.device = DevicePreference::Cpu;
    return options;
}

TextEncoder tinyEncoder(std::uint64_t seed = 17, BertConfig config = tinyConfig(),
                        EncoderOptions options = cpuOptions()) {
    return TextEncoder::create(config, smallTokenizer(), seed, options);
}

std::map<std::string, torch::Tensor> parametersOf(const TextEncoder& encoder) {
    std::map<std::string, torch::Tensor> map;
    for (const auto& item : encoder.model().named_parameters()) map.emplace(item.key(), item.value());
    return map;
}

bool sameParameters(const TextEncoder& a, const TextEncoder& b) {
    const auto pa = parametersOf(a), pb = parametersOf(b);
    if (pa.size() != pb.size()) return false;
    for (const auto& [name, tensor] : pa) {
        const auto it = pb.find(name);
        if (it == pb.end() || !torch::equal(tensor, it->second)) return false;
    }
    return true;
}

const std::vector<std::string>& sampleTexts() {
    static const std::vector<std::string> texts = {
        "heart attack", "breast cancer", "type 2 diabetes mellitus", "acute renal failure", "chronic kidney disease",
        "lung tumor",   "cardiac arrest"};
    return texts;
}

double maxDifference(std::span<const float> a, std::span<const float> b) {
    if (a.size() != b.size()) return INFINITY;
    double worst = 0;
    for (std::size_t i = 0; i < a.size(); ++i) worst = std::max(worst, std::abs(static_cast<double>(a[i]) - b[i]));
    return worst;
}

/// A tensor as stored: name, dtype, shape, raw little-endian bytes.
struct RawTensor {
    std::string name;
    DType dtype;
    std::vector<std::int64_t> shape;
    std::vector<std::byte> bytes;
};

std::vector<RawTensor> readRaw(const fs::path& file) {
    const auto stored = SafetensorsFile::read(file);
    std::vector<RawTensor> tensors;
    for (const auto& info : stored.tensors()) {
        const auto bytes = stored.bytes(info);
        tensors.push_back({info.name, info.dtype, info.shape, {bytes.begin(), bytes.end()}});
    }
    return tensors;
}

void writeRaw(const fs::path& file, const std::vector<RawTensor>& tensors) {
    SafetensorsWriter writer;
    for (const auto& t : tensors) writer.add(t.name, t.dtype, t.shape, t.bytes);
    writer.write(file);
}

/// The F32 tensor's values converted to another torch dtype, as bytes.
std::vector<std::byte> convertedBytes(const RawTensor& t, torch::ScalarType to) {
    auto values = torch::empty(t.shape, torch::kFloat);
    std::memcpy(values.data_ptr(), t.bytes.data(), t.bytes.size());
    const auto converted = values.to(to).contiguous();
    const auto* data = static_cast<const std::byte*>(converted.data_ptr());
    return {data, data + converted.nbytes()};
}

/// Rewrites model.safetensors of a saved checkpoint through `edit`.
void rewriteWeights(const fs::path& directory, const std::function<void(std::vector<RawTensor>&)>& edit) {
    auto tensors = readRaw(directory / "model.safetensors");
    edit(tensors);
    writeRaw(directory / "model.safetensors", tensors);
}

RawTensor* findRaw(std::vector<RawTensor>& tensors, std::string_view name) {
    const auto it = std::find_if(tensors.begin(), tensors.end(), [&](const RawTensor& t) { return t.name == name; });
    return it == tensors.end() ? nullptr : &*it;
}

/// Runs `action`, which must throw an Error whose message contains every fragment.
std::string errorProblem(const std::function<void()>& action, std::initializer_list<std::string_view> fragments) {
    try {
        action();
    } catch (const Error& e) {
        const std::string message = e.what();
        for (const auto fragment : fragments)
            if (message.find(fragment) == std::string::npos)
                return "message lacks \"" + std::string(fragment) + "\": " + message;
        return {};
    } catch (const std::exception& e) {
        return std::string("not a linkscope::Error: ") + e.what();
    }
    return "nothing was thrown";
}

#define EXPECT_ERROR(statement, ...)                                           \
    do {                                                                       \
        const auto problem_ = errorProblem([&] { statement; }, {__VA_ARGS__}); \
        QVERIFY2(problem_.empty(), problem_.c_str());                          \
    } while (false)

/// Hidden states of one text as the encoder tokenizes it: rows x hidden.
std::vector<std::vector<float>> tokenRows(const TextEncoder& encoder, const std::string& text,
                                          Encoding* encodingOut = nullptr) {
    const auto encoding = encoder.tokenizer().encode(text, {.maxLength = encoder.options().maxLength});
    const auto flat = encoder.tokenOutputs(encoding);
    const auto hidden = encoder.config().hiddenSize;
    std::vector<std::vector<float>> rows;
    for (std::size_t i = 0; i * hidden < flat.size(); ++i)
        rows.emplace_back(flat.begin() + static_cast<std::ptrdiff_t>(i * hidden),
                          flat.begin() + static_cast<std::ptrdiff_t>((i + 1) * hidden));
    if (encodingOut) *encodingOut = encoding;
    return rows;
}

std::size_t positionOf(const Encoding& encoding, std::int32_t id) {
    return static_cast<std::size_t>(std::find(encoding.ids.begin(), encoding.ids.end(), id) - encoding.ids.begin());
}

}  // namespace

class TestTextEncoder : public QObject {
    Q_OBJECT
    test::FixtureDir dir_;

private Q_SLOTS:
    void saveThenLoadIsIdentical() {
        const auto encoder = tinyEncoder();
        QCOMPARE(encoder.config().vocabSize, smallTokenizer().vocabularySize());
        const auto path = dir_.path("roundtrip");
        encoder.save(path);
        for (const char* file : {"config.json", "model.safetensors", "vocab.txt"})
            QVERIFY2(fs::exists(path / file), file);
        const auto loaded = TextEncoder::load(path, cpuOptions());
        QVERIFY(sameParameters(encoder, loaded));
        QCOMPARE(loaded.config().hiddenSize, std::size_t{16});
        QCOMPARE(loaded.config().vocabSize, encoder.config().vocabSize);
        QCOMPARE(loaded.tokenizer().vocabularySize(), encoder.tokenizer().vocabularySize());
        QVERIFY(!loaded.model().hasPooler());
        QVERIFY(loaded.skippedTensors().empty());
        QCOMPARE(loaded.encode(sampleTexts()), encoder.encode(sampleTexts()));
        QCOMPARE(loaded.fingerprint(), encoder.fingerprint());
        QCOMPARE(loaded.fingerprint().size(), std::size_t{16});
        QCOMPARE(loaded.deviceName(), std::string("cpu"));
    }

    void createIsSeeded() {
        QVERIFY(sameParameters(tinyEncoder(5), tinyEncoder(5)));
        QVERIFY(!sameParameters(tinyEncoder(5), tinyEncoder(6)));
        QVERIFY(tinyEncoder(5).fingerprint() != tinyEncoder(6).fingerprint());
    }

    void savedNamesAreHuggingFaces() {
        auto encoder = tinyEncoder();
        const auto path = dir_.path("names");
        encoder.save(path);
        const auto file = SafetensorsFile::read(path / "model.safetensors");
        std::set<std::string> names;
        for (const auto& info : file.tensors()) {
            names.insert(info.name);
            QCOMPARE(info.dtype, DType::F32);
        }
        QCOMPARE(names.size(), std::size_t{5 + 2 * 16});
        for (const char* name :
             {"embeddings.word_embeddings.weight", "embeddings.position_embeddings.weight",
              "embeddings.token_type_embeddings.weight", "embeddings.LayerNorm.weight", "embeddings.LayerNorm.bias",
              "encoder.layer.0.attention.self.query.weight", "encoder.layer.1.attention.output.LayerNorm.bias",
              "encoder.layer.1.intermediate.dense.weight", "encoder.layer.1.output.dense.bias"})
            QVERIFY2(names.contains(name), name);
        for (const auto& name : names)
            QVERIFY2(!name.starts_with("bert.") && !name.starts_with("pooler."), name.c_str());
        const auto* words = file.find("embeddings.word_embeddings.weight");
        QVERIFY(words);
        QCOMPARE(words->shape, (std::vector<std::int64_t>{static_cast<std::int64_t>(encoder.config().vocabSize), 16}));
        QCOMPARE(file.find("encoder.layer.0.intermediate.dense.weight")->shape, (std::vector<std::int64_t>{24, 16}));
        QCOMPARE(file.metadata().at("format"), std::string("pt"));
        // The stored bytes are the parameter's values.
        const auto stored = file.bytes(*words);
        const auto parameter = parametersOf(encoder).at("embeddings.word_embeddings.weight").contiguous();
        QCOMPARE(stored.size(), parameter.nbytes());
        QVERIFY(std::memcmp(stored.data(), parameter.data_ptr(), stored.size()) == 0);
    }

    void bertPrefixGammaBetaBufferAndHeads() {
        const auto encoder = tinyEncoder();
        const auto path = dir_.path("biobert-like");
        encoder.save(path);
        const auto hidden = static_cast<std::int64_t>(encoder.config().hiddenSize);
        rewriteWeights(path, [&](std::vector<RawTensor>& tensors) {
            for (auto& t : tensors) {
                if (t.name.ends_with("LayerNorm.weight")) t.name.replace(t.name.size() - 6, 6, "gamma");
                if (t.name.ends_with("LayerNorm.bias")) t.name.replace(t.name.size() - 4, 4, "beta");
                t.name = "bert." + t.name;
            }
            std::vector<std::byte> positions(static_cast<std::size_t>(32 * 8));  // I64 buffer [1, 32]
            tensors.push_back({"bert.embeddings.position_ids", DType::I64, {1, 32}, positions});
            tensors.push_back({"bert.embeddings.token_type_ids", DType::I64, {1, 32}, positions});
            const auto floats = [](std::int64_t n) { return std::vector<std::byte>(static_cast<std::size_t>(n) * 4); };
            tensors.push_back({"cls.predictions.bias", DType::F32, {40}, floats(40)});
            tensors.push_back(
                {"cls.predictions.transform.dense.weight", DType::F32, {hidden, hidden}, floats(hidden * hidden)});
            tensors.push_back({"cls.seq_relationship.weight",
                               DType::I64,
                               {2, hidden},
                               std::vector<std::byte>(static_cast<std::size_t>(2 * hidden * 8))});
            // A pooler, as BertForPreTraining checkpoints have: loaded and saved again.
            tensors.push_back({"bert.pooler.dense.weight", DType::F32, {hidden, hidden}, floats(hidden * hidden)});
            tensors.push_back({"bert.pooler.dense.bias", DType::F32, {hidden}, floats(hidden)});
        });
        const auto loaded = TextEncoder::load(path, cpuOptions());
        auto ours = parametersOf(encoder);
        auto theirs = parametersOf(loaded);
        QVERIFY(loaded.model().hasPooler());
        QCOMPARE(theirs.size(), ours.size() + 2);
        for (const auto& [name, tensor] : ours) QVERIFY2(torch::equal(tensor, theirs.at(name)), name.c_str());
        auto skipped = loaded.skippedTensors();
        std::sort(skipped.begin(), skipped.end());
        QCOMPARE(skipped, (std::vector<std::string>{"cls.predictions.bias", "cls.predictions.transform.dense.weight",
                                                    "cls.seq_relationship.weight"}));
        QCOMPARE(loaded.encode(sampleTexts()), encoder.encode(sampleTexts()));

        const auto again = dir_.path("biobert-saved");
        loaded.save(again);
        const auto file = SafetensorsFile::read(again / "model.safetensors");
        QVERIFY(file.find("pooler.dense.weight") && file.find("pooler.dense.bias"));
        QVERIFY(!file.find("bert.embeddings.word_embeddings.weight") && !file.find("cls.predictions.bias"));
        QVERIFY(!file.find("embeddings.position_ids"));
        QVERIFY(file.find("embeddings.LayerNorm.weight"));
    }

    void halfPrecisionWeightsBecomeFloat() {
        const auto encoder = tinyEncoder();
        for (const auto& [dtype, torchType] :
             {std::pair{DType::F16, torch::kHalf}, std::pair{DType::BF16, torch::kBFloat16}}) {
            const auto path = dir_.path(std::string("half-") + std::string(dtypeName(dtype)));
            encoder.save(path);
            rewriteWeights(path, [&, dtype = dtype, torchType = torchType](std::vector<RawTensor>& tensors) {
                for (auto& t : tensors) {
                    t.bytes = convertedBytes(t, torchType);
                    t.dtype = dtype;
                }
            });
            const auto loaded = TextEncoder::load(path, cpuOptions());
            const auto theirs = parametersOf(loaded);
            for (const auto& [name, tensor] : parametersOf(encoder)) {
                QCOMPARE(theirs.at(name).scalar_type(), torch::kFloat);
                QVERIFY2(torch::equal(theirs.at(name), tensor.to(torchType).to(torch::kFloat)), name.c_str());
            }
            // Rounding to 16 bits changed something (the check above is not vacuous).
            QVERIFY(!sameParameters(loaded, encoder));
        }
    }

    void shardedCheckpointLoads() {
        const auto encoder = tinyEncoder();
        const auto path = dir_.path("sharded");
        encoder.save(path);
        const auto tensors = readRaw(path / "model.safetensors");
        std::vector<RawTensor> first, second;
        std::string weightMap;
        for (const auto& t : tensors) {
            const bool inFirst = t.name.starts_with("embeddings.");
            (inFirst ? first : second).push_back(t);
            weightMap += (weightMap.empty() ? "" : ",") + ("\"" + t.name + "\": \"model-0000") + (inFirst ? "1" : "2") +
                         "-of-00002.safetensors\"";
        }
        writeRaw(path / "model-00001-of-00002.safetensors", first);
        writeRaw(path / "model-00002-of-00002.safetensors", second);
        test::writeFile(path / "model.safetensors.index.json",
                        "{\"metadata\": {}, \"weight_map\": {" + weightMap + "}}");
        fs::remove(path / "model.safetensors");
        const auto loaded = TextEncoder::load(path, cpuOptions());
        QVERIFY(sameParameters(loaded, encoder));

        // A parameter stored in both shards is an error naming the second occurrence's file.
        auto duplicated = second;
        duplicated.push_back(first.front());
        writeRaw(path / "model-00002-of-00002.safetensors", duplicated);
        EXPECT_ERROR(TextEncoder::load(path, cpuOptions()), "model-00002-of-00002.safetensors", first.front().name);
    }

    void checkpointErrorsNameFileAndTensor() {
        const auto encoder = tinyEncoder();
        const auto fresh = [&](const std::string& name) {
            const auto path = dir_.path(name);
            encoder.save(path);
            return path;
        };
        {
            // Stored under another name: as many values as config.json needs, one tensor missing.
            const auto path = fresh("missing");
            rewriteWeights(path, [](std::vector<RawTensor>& tensors) {
                findRaw(tensors, "encoder.layer.1.output.dense.bias")->name =
                    "encoder.layer.1.output.dense.bias_renamed";
            });
            EXPECT_ERROR(TextEncoder::load(path), "encoder.layer.1.output.dense.bias", "missing");
        }
        {
            // Fewer values than config.json describes: refused before the model is allocated.
            const auto path = fresh("removed");
            rewriteWeights(path, [](std::vector<RawTensor>& tensors) {
                std::erase_if(tensors,
                              [](const RawTensor& t) { return t.name == "encoder.layer.1.output.dense.bias"; });
            });
            EXPECT_ERROR(TextEncoder::load(path), "config.json",
                         "encoder parameters but the weights (model.safetensors)", "does not belong to these weights");
        }
        {
            // A config.json of 10^9 words beside a small model: refused, not 16 GB allocated.
            const auto path = fresh("huge-config");
            auto config = test::readFile(path / "config.json");
            const auto at = config.find("\"vocab_size\"");
            QVERIFY(at != std::string::npos);
            config.replace(at, config.find_first_of(",\n}", at) - at, "\"vocab_size\": 1000000000");
            test::writeFile(path / "config.json", config);
            EXPECT_ERROR(TextEncoder::load(path), "config.json", "describes 160000",
                         "does not belong to these weights");
        }
        {
            // One NaN in a weight would make every vector NaN: refused naming the tensor.
            const auto path = fresh("nan");
            rewriteWeights(path, [](std::vector<RawTensor>& tensors) {
                auto* t = findRaw(tensors, "encoder.layer.0.attention.self.query.weight");
                const float values[] = {std::numeric_limits<float>::quiet_NaN(),
                                        std::numeric_limits<float>::infinity()};
                std::memcpy(t->bytes.data() + 8, values, sizeof values);
            });
            EXPECT_ERROR(TextEncoder::load(path), "model.safetensors", "encoder.layer.0.attention.self.query.weight",
                         "holds 2 NaN or infinite value(s)");
        }
        {
            const auto path = fresh("unknown");
            rewriteWeights(path, [](std::vector<RawTensor>& tensors) {
                tensors.push_back({"classifier.weight", DType::F32, {2}, std::vector<std::byte>(8)});
            });
            EXPECT_ERROR(TextEncoder::load(path), "model.safetensors", "classifier.weight", "not a parameter");
        }
        {
            const auto path = fresh("shape");
            rewriteWeights(path, [](std::vector<RawTensor>& tensors) {
                findRaw(tensors, "encoder.layer.0.intermediate.dense.weight")->shape = {16, 24};
            });
            EXPECT_ERROR(TextEncoder::load(path), "model.safetensors", "encoder.layer.0.intermediate.dense.weight",
                         "[16, 24]", "[24, 16]");
        }
        {
            const auto path = fresh("int64");
            rewriteWeights(path, [](std::vector<RawTensor>& tensors) {
                auto* t = findRaw(tensors, "embeddings.LayerNorm.bias");
                t->dtype = DType::I64;
                t->bytes.resize(t->bytes.size() * 2);
            });
            EXPECT_ERROR(TextEncoder::load(path), "model.safetensors", "embeddings.LayerNorm.bias", "I64");
        }
        {
            // config.json says 50 words, the table has 126 rows.
            const auto path = fresh("vocab-mismatch");
            auto config = BertConfig::load(path / "config.json");
            config.vocabSize = 50;
            config.save(path / "config.json");
            EXPECT_ERROR(TextEncoder::load(path), "model.safetensors", "embeddings.word_embeddings.weight", "[50, 16]");
        }
        {
            // A projection head in the file that config.json does not declare.
            const auto path = fresh("stray-head");
            rewriteWeights(path, [](std::vector<RawTensor>& tensors) {
                tensors.push_back({"projection.dense.weight", DType::F32, {4, 16}, std::vector<std::byte>(4 * 16 * 4)});
                tensors.push_back({"projection.dense.bias", DType::F32, {4}, std::vector<std::byte>(16)});
            });
            EXPECT_ERROR(TextEncoder::load(path), "model.safetensors", "projection.dense");
        }
    }

    void tokenizerLargerThanTheTableIsAnError() {
        auto encoder = tinyEncoder();
        const auto path = dir_.path("tokenizer-too-big");
        encoder.save(path);
        // vocab.txt grows by one token the embedding table does not have.
        auto vocabulary = test::readFile(path / "vocab.txt");
        test::writeFile(path / "vocab.txt", vocabulary + "zzzextra\n");
        EXPECT_ERROR(TextEncoder::load(path), "tokenizer", "rows");
    }

    void poolingModesMatchTokenOutputs() {
        auto encoder = tinyEncoder(23);
        const std::vector<std::string> texts = {"acute renal failure", "heart attack"};

        auto options = cpuOptions();
        options.pooling = Pooling::Cls;
        encoder.setOptions(options);
        QCOMPARE(encoder.pooling(), Pooling::Cls);
        auto vectors = encoder.encode(texts);
        for (std::size_t i = 0; i < texts.size(); ++i) {
            const auto rows = tokenRows(encoder, texts[i]);
            QVERIFY(maxDifference(std::span(vectors).subspan(i * 16, 16), rows[0]) < 1e-5);
        }

        options.pooling = Pooling::Mean;
        encoder.setOptions(options);
        vectors = encoder.encode(texts);
        for (std::size_t i = 0; i < texts.size(); ++i) {
            const auto rows = tokenRows(encoder, texts[i]);
            std::vector<float> mean(16, 0.0f);
            for (const auto& row : rows)
                for (std::size_t d = 0; d < 16; ++d) mean[d] += row[d] / static_cast<float>(rows.size());
            QVERIFY(maxDifference(std::span(vectors).subspan(i * 16, 16), mean) < 1e-5);
        }

        const std::vector<std::string> markers = {"[S]", "[E]", "[START]", "[END]"};
        const auto ids = encoder.addTokens(markers, 3);
        QCOMPARE(ids.size(), std::size_t{4});
        const std::vector<std::string> marked = {"the [S] heart attack [E] of the lung", "[S] lung [E]"};
        options.pooling = Pooling::Markers;
        encoder.setOptions(options);
        vectors = encoder.encode(marked);
        for (std::size_t i = 0; i < marked.size(); ++i) {
            Encoding encoding;
            const auto rows = tokenRows(encoder, marked[i], &encoding);
            const auto s = positionOf(encoding, ids[0]), e = positionOf(encoding, ids[1]);
            QVERIFY(s < rows.size() && e < rows.size() && s < e);
            std::vector<float> expected(16);
            for (std::size_t d = 0; d < 16; ++d) expected[d] = (rows[s][d] + rows[e][d]) / 2;
            QVERIFY(maxDifference(std::span(vectors).subspan(i * 16, 16), expected) < 1e-5);
        }

        options.pooling = Pooling::StartEnd;
        encoder.setOptions(options);
        const std::vector<std::string> bracketed = {"[START] breast cancer [END] ( tumor )"};
        vectors = encoder.encode(bracketed);
        Encoding encoding;
        const auto rows = tokenRows(encoder, bracketed[0], &encoding);
        const auto s = positionOf(encoding, ids[2]), e = positionOf(encoding, ids[3]);
        QCOMPARE(s, std::size_t{1});
        std::vector<float> expected(16);
        for (std::size_t d = 0; d < 16; ++d) expected[d] = (rows[s][d] + rows[e][d]) / 2;
        QVERIFY(maxDifference(vectors, expected) < 1e-5);

        // A text lacking a marker, or with it truncated away, is named by its index.
        const std::vector<std::string> lacking = {"[START] lung [END]", "[START] heart attack"};
        EXPECT_ERROR(encoder.encode(lacking), "text 1", "[END]");
        options.maxLength = 4;  // [CLS] [START] breast [SEP]: [END] truncated away
        encoder.setOptions(options);
        EXPECT_ERROR(encoder.encode(bracketed), "text 0", "[END]", "truncated");
    }

    void mentionAloneAveragesMarkersWithTheWordsAlone() {
        auto encoder = tinyEncoder(23);
        const std::vector<std::string> markers = {"[S]", "[E]", "[START]", "[END]"};
        encoder.addTokens(markers, 3);
        // Two rows of different lengths in one batch: the shorter one is padded.
        const std::vector<std::string> marked = {"the [S] heart attack [E] of the lung", "[S] lung [E]"};
        const std::vector<std::string> alone = {"heart attack", "lung"};
        auto options = cpuOptions();
        options.pooling = Pooling::Markers;
        encoder.setOptions(options);
        const auto pooled = encoder.encode(marked);
        const auto names = encoder.encode(alone, EncodeRequest{.pooling = Pooling::Cls});
        const auto before = encoder.fingerprint();

        encoder.model().setMentionAlone(true);
        QVERIFY(encoder.fingerprint() != before);
        const auto vectors = encoder.encode(marked);
        QCOMPARE(vectors.size(), pooled.size());
        std::vector<float> expected(pooled.size());
        for (std::size_t i = 0; i < expected.size(); ++i) expected[i] = (pooled[i] + names[i]) / 2;
        QVERIFY(maxDifference(vectors, expected) < 1e-5);
        // Names ([CLS] pooling) are read as before.
        QVERIFY(maxDifference(encoder.encode(alone, EncodeRequest{.pooling = Pooling::Cls}), names) < 1e-6);

        // mention_context_weight: the markers' share of the mean; 1 is the markers alone, 0 the
        // words alone, and any other weight than 0.5 changes the fingerprint.
        const auto halfWay = encoder.fingerprint();
        for (const double weight : {0.25, 1.0, 0.0}) {
            encoder.model().setMentionAlone(true, weight);
            QVERIFY(encoder.fingerprint() != halfWay);
            std::vector<float> weighted(pooled.size());
            for (std::size_t i = 0; i < weighted.size(); ++i)
                weighted[i] = static_cast<float>(weight * pooled[i] + (1.0 - weight) * names[i]);
            QVERIFY(maxDifference(encoder.encode(marked), weighted) < 1e-5);
        }
        // At weight 0 the markers' pass is not run, yet a mention without its closing marker
        // is refused as the markers' pooling refuses it.
        encoder.model().setMentionAlone(true, 0.0);
        QVERIFY_THROWS_EXCEPTION(Error, encoder.encode(std::vector<std::string>{"the [S] heart attack of the lung"}));
        encoder.model().setMentionAlone(true, 0.25);
        const auto quarter = encoder.encode(marked);
        const auto quarterPath = dir_.path("mention-context-weight");
        encoder.save(quarterPath);
        QVERIFY(test::readFile(quarterPath / "config.json").find("\"mention_context_weight\": 0.25") !=
                std::string::npos);
        const auto quarterLoaded = TextEncoder::load(quarterPath, options);
        QCOMPARE(quarterLoaded.config().mentionContextWeight, 0.25);
        QVERIFY(maxDifference(quarterLoaded.encode(marked), quarter) < 1e-6);
        encoder.model().setMentionAlone(true);
        QCOMPARE(encoder.fingerprint(), halfWay);

        // Le & Nguyen's markers, with nothing between them: [CLS] [SEP] alone.
        options.pooling = Pooling::StartEnd;
        encoder.setOptions(options);
        const std::vector<std::string> empty = {"a [START] [END] b"};
        encoder.model().setMentionAlone(false);
        const auto emptyPooled = encoder.encode(empty);
        const auto emptyName = encoder.encode(std::vector<std::string>{""}, EncodeRequest{.pooling = Pooling::Cls});
        encoder.model().setMentionAlone(true);
        std::vector<float> emptyExpected(emptyPooled.size());
        for (std::size_t i = 0; i < emptyExpected.size(); ++i) emptyExpected[i] = (emptyPooled[i] + emptyName[i]) / 2;
        QVERIFY(maxDifference(encoder.encode(empty), emptyExpected) < 1e-5);

        // Saved in config.json, so a loaded model encodes the same way.
        options.pooling = Pooling::Markers;
        encoder.setOptions(options);
        const auto path = dir_.path("mention-alone");
        encoder.save(path);
        QVERIFY(test::readFile(path / "config.json").find("\"mention_alone\": true") != std::string::npos);
        const auto loaded = TextEncoder::load(path, options);
        QVERIFY(loaded.config().mentionAlone);
        QVERIFY(maxDifference(loaded.encode(marked), vectors) < 1e-6);
    }

    void markerPoolingWithoutMarkerTokensIsAnError() {
        auto options = cpuOptions();
        options.pooling = Pooling::Markers;
        const auto encoder = tinyEncoder(1, tinyConfig(), options);
        EXPECT_ERROR(encoder.encode(sampleTexts()), "[S]", "addTokens");
    }

    void projectionHeadShapeAndSaveLoad() {
        auto config = tinyConfig();
        config.projectionDim = 8;
        config.pooling = Pooling::Mean;
        const auto encoder = tinyEncoder(4, config);
        QCOMPARE(encoder.dimension(), std::size_t{8});
        QCOMPARE(encoder.pooling(), Pooling::Mean);
        const auto vectors = encoder.encode(sampleTexts());
        QCOMPARE(vectors.size(), sampleTexts().size() * 8);
        // By hand: mean of the token outputs through the head's weight and bias.
        const auto parameters = parametersOf(encoder);
        const auto rows = tokenRows(encoder, sampleTexts()[2]);
        auto mean = torch::zeros({16});
        for (const auto& row : rows) mean += torch::tensor(row) / static_cast<double>(rows.size());
        const auto expected =
            torch::matmul(parameters.at("projection.dense.weight"), mean) + parameters.at("projection.dense.bias");
        QVERIFY(maxDifference(std::span(vectors).subspan(2 * 8, 8),
                              std::vector<float>(expected.data_ptr<float>(), expected.data_ptr<float>() + 8)) < 1e-5);

        const auto path = dir_.path("projection");
        encoder.save(path);
        const auto file = SafetensorsFile::read(path / "model.safetensors");
        QVERIFY(file.find("projection.dense.weight"));
        QCOMPARE(file.find("projection.dense.weight")->shape, (std::vector<std::int64_t>{8, 16}));
        QCOMPARE(file.find("projection.dense.bias")->shape, (std::vector<std::int64_t>{8}));
        const auto loaded = TextEncoder::load(path, cpuOptions());
        QCOMPARE(loaded.config().projectionDim, std::size_t{8});
        QCOMPARE(loaded.pooling(), Pooling::Mean);
        QCOMPARE(loaded.dimension(), std::size_t{8});
        QCOMPARE(loaded.encode(sampleTexts()), vectors);
    }

    void normalizeGivesUnitVectors() {
        auto options = cpuOptions();
        options.normalize = true;
        const auto encoder = tinyEncoder(8, tinyConfig(), options);
        const auto vectors = encoder.encode(sampleTexts());
        const auto raw = tinyEncoder(8).encode(sampleTexts());
        for (std::size_t i = 0; i < sampleTexts().size(); ++i) {
            double norm = 0, rawNorm = 0;
            for (std::size_t d = 0; d < 16; ++d) {
                norm += vectors[i * 16 + d] * vectors[i * 16 + d];
                rawNorm += raw[i * 16 + d] * raw[i * 16 + d];
            }
            QVERIFY(std::abs(norm - 1.0) < 1e-5);
            QVERIFY(std::abs(rawNorm - 1.0) > 1e-2);  // the unnormalized ones are not unit already
            for (std::size_t d = 0; d < 16; ++d)
                QVERIFY(std::abs(vectors[i * 16 + d] - raw[i * 16 + d] / std::sqrt(rawNorm)) < 1e-5);
        }
    }

    void bucketingKeepsInputOrder() {
        auto encoder = tinyEncoder(12);
        // Very different lengths, longest first and in between, so sorting reorders them.
        std::vector<std::string> texts;
        const std::vector<std::string> words = {"heart", "lung", "cancer", "renal", "failure", "acute", "kidney"};
        for (const std::size_t n : {20u, 1u, 9u, 2u, 15u, 1u, 5u, 30u, 3u}) {
            std::string text;
            for (std::size_t i = 0; i < n; ++i) text += (i ? " " : "") + words[(i * 3 + n) % words.size()];
            texts.push_back(text);
        }
        auto options = cpuOptions();
        const auto together = encoder.encode(texts);
        QCOMPARE(together.size(), texts.size() * 16);
        for (const std::size_t batch : {1u, 2u, 4u}) {
            options.batchSize = batch;
            encoder.setOptions(options);
            const double difference = maxDifference(encoder.encode(texts), together);
            QVERIFY2(difference < 1e-5, qPrintable(QString("batch %1: %2").arg(batch).arg(difference)));
        }
        options.batchSize = 256;
        encoder.setOptions(options);
        for (std::size_t i = 0; i < texts.size(); ++i) {
            const auto alone = encoder.encode(std::span(texts).subspan(i, 1));
            QVERIFY2(maxDifference(alone, std::span(together).subspan(i * 16, 16)) < 1e-5, texts[i].c_str());
        }
        // Distinct texts give distinct vectors (the order check above is not vacuous).
        QVERIFY(maxDifference(std::span(together).subspan(0, 16), std::span(together).subspan(16, 16)) > 1e-3);
        QVERIFY(encoder.encode(std::vector<std::string>{}).empty());
    }

    void progressAndCancellation() {
        auto options = cpuOptions();
        options.batchSize = 2;
        const auto encoder = tinyEncoder(2, tinyConfig(), options);
        std::vector<double> fractions;
        ProgressSink progress;
        progress.report = [&](std::string_view stage, double fraction) {
            QCOMPARE(stage, std::string_view("Encoding"));
            fractions.push_back(fraction);
        };
        encoder.encode(sampleTexts(), &progress);  // 7 texts: 4 batches
        QCOMPARE(fractions.size(), std::size_t{4});
        QVERIFY(std::is_sorted(fractions.begin(), fractions.end()));
        QCOMPARE(fractions.back(), 1.0);

        fractions.clear();
        progress.cancelled = [&] { return fractions.size() >= 2; };
        QVERIFY_THROWS_EXCEPTION(Cancelled, encoder.encode(sampleTexts(), &progress));
        QCOMPARE(fractions.size(), std::size_t{2});
    }

    void optionsAreChecked() {
        auto encoder = tinyEncoder();
        auto options = cpuOptions();
        options.precision = Precision::Fp16;
        EXPECT_ERROR(encoder.setOptions(options), "fp16", "CUDA");
        options.precision = Precision::Bf16;
        EXPECT_ERROR(TextEncoder::create(tinyConfig(), smallTokenizer(), 1, options), "bf16", "CUDA");
        if (!cudaAvailable()) {
            // Without CUDA, Auto is the CPU, where half precision is refused too; Cuda is refused.
            options.device = DevicePreference::Auto;
            options.precision = Precision::Fp16;
            EXPECT_ERROR(encoder.setOptions(options), "fp16");
            options.device = DevicePreference::Cuda;
            options.precision = Precision::Fp32;
            EXPECT_ERROR(encoder.setOptions(options), "CUDA");
            options.device = DevicePreference::Auto;
            encoder.setOptions(options);
            QCOMPARE(encoder.deviceName(), std::string("cpu"));
        }
        options = cpuOptions();
        options.batchSize = 0;
        EXPECT_ERROR(encoder.setOptions(options), "batch size");
        options = cpuOptions();
        options.maxLength = 33;  // max_position_embeddings is 32
        EXPECT_ERROR(encoder.setOptions(options), "max_position_embeddings");
        // A refused change leaves the encoder as it was.
        QCOMPARE(encoder.options().batchSize, std::size_t{256});
        QCOMPARE(encoder.options().precision, Precision::Fp32);
    }

    void addTokensGrowsTheTable() {
        auto encoder = tinyEncoder(9);
        const auto before = parametersOf(encoder).at("embeddings.word_embeddings.weight").clone();
        const auto rows = before.size(0);
        const auto fingerprint = encoder.fingerprint();
        const auto vectors = encoder.encode(sampleTexts());
        const std::vector<std::string> markers = {"[S]", "[E]"};
        const auto ids = encoder.addTokens(markers, 77);
        QCOMPARE(ids,
                 (std::vector<std::int32_t>{static_cast<std::int32_t>(rows), static_cast<std::int32_t>(rows + 1)}));
        const auto after = parametersOf(encoder).at("embeddings.word_embeddings.weight");
        QCOMPARE(after.size(0), rows + 2);
        QCOMPARE(encoder.config().vocabSize, static_cast<std::size_t>(rows + 2));
        QVERIFY(torch::equal(after.slice(0, 0, rows), before));
        const double spread = after.slice(0, rows).std().item<double>();
        QVERIFY2(spread > 0.001 && spread < 0.1, qPrintable(QString::number(spread)));
        QVERIFY(encoder.fingerprint() != fingerprint);
        QCOMPARE(encoder.encode(sampleTexts()), vectors);  // texts without markers: unchanged
        // The markers are whole tokens and their rows are used.
        QCOMPARE(encoder.tokenizer().encode("a [S] b").ids[2], ids[0]);
        // Known tokens keep their ids and the table stays.
        QCOMPARE(encoder.addTokens(markers, 78), ids);
        QCOMPARE(parametersOf(encoder).at("embeddings.word_embeddings.weight").size(0), rows + 2);
        // Seeded: the same additions on the same model give the same rows; saved and loaded.
        auto twin = tinyEncoder(9);
        twin.addTokens(markers, 77);
        QVERIFY(sameParameters(twin, encoder));
        const auto path = dir_.path("with-markers");
        encoder.save(path);
        const auto loaded = TextEncoder::load(path, cpuOptions());
        QVERIFY(sameParameters(loaded, encoder));
        QCOMPARE(loaded.tokenizer().tokenId("[E]"), std::optional<std::int32_t>(ids[1]));
    }

    void encodeRunsInEvalModeAndRestoresTraining() {
        auto encoder = tinyEncoder(14);
        QVERIFY(!encoder.model().is_training());  // an encoder is for inference by default
        const auto inEval = encoder.encode(sampleTexts());
        encoder.model().train();                          // a trainer validating in the middle of an epoch
        QCOMPARE(encoder.encode(sampleTexts()), inEval);  // no dropout
        QVERIFY(encoder.model().is_training());
        const auto encoding = encoder.tokenizer().encode("heart attack");
        const auto tokens = encoder.tokenOutputs(encoding);
        QCOMPARE(tokens.size(), encoding.ids.size() * 16);
        QVERIFY(encoder.model().is_training());
    }

    void fingerprintFollowsWeights() {
        auto encoder = tinyEncoder(31);
        const auto first = encoder.fingerprint();
        QCOMPARE(encoder.fingerprint(), first);  // cached, stable
        {
            torch::NoGradGuard noGrad;
            encoder.model().named_parameters()["encoder.layer.1.output.LayerNorm.bias"][3] += 1e-3f;
        }
        QCOMPARE(encoder.fingerprint(), first);  // cache not told yet
        encoder.model().markWeightsChanged();
        QVERIFY(encoder.fingerprint() != first);
    }
};

QTEST_APPLESS_MAIN(TestTextEncoder)
#include "test_text_encoder.moc"
