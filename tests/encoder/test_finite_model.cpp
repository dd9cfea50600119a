// Values a model may not hold or give: weights large enough to overflow a forward pass are
// refused on load naming the file and tensor (bert_weights.h), and vectors that are not finite,
// or too long for their scores to stay finite, are refused on their way out of the encoder
// naming the model's folder (finite_vectors.h).
#include <torch/torch.h>

#include <cmath>
#include <cstring>
#include <functional>
#include <limits>
#include <string>
#include <vector>

#include "encoder/bert_weights.h"
#include "encoder/finite_vectors.h"
#include "encoder/safetensors.h"
#include "encoder/text_encoder.h"
#include "fixtures.h"
#include "tiny_bert.h"
#include "util/error.h"

using namespace linkscope;
using namespace linkscope::encoder;
namespace fs = std::filesystem;

namespace {

const std::vector<std::string>& texts() {
    static const std::vector<std::string> list = {"heart attack", "breast cancer", "acute renal failure"};
    return list;
}

/// The F32 tensors of a checkpoint file, edited in place and written back.
void editWeights(const fs::path& directory, const std::function<void(const std::string&, std::vector<float>&)>& edit) {
    const auto file = directory / "model.safetensors";
    struct Stored {
        std::string name;
        std::vector<std::int64_t> shape;
        std::vector<float> values;
    };
    std::vector<Stored> tensors;
    {
        const auto stored = SafetensorsFile::read(file);
        for (const auto& info : stored.tensors()) {
            QCOMPARE(info.dtype, DType::F32);
            const auto bytes = stored.bytes(info);
            std::vector<float> values(bytes.size() / sizeof(float));
            std::memcpy(values.data(), bytes.data(), bytes.size());
            tensors.push_back({info.name, info.shape, std::move(values)});
        }
    }
    SafetensorsWriter writer;
    for (auto& t : tensors) {
        edit(t.name, t.values);
        writer.add(t.name, DType::F32, t.shape,
                   {reinterpret_cast<const std::byte*>(t.values.data()), t.values.size() * sizeof(float)});
    }
    writer.write(file);
}

/// What() of the Error `action` throws, or "" when it throws none.
std::string errorOf(const std::function<void()>& action) {
    try {
        action();
    } catch (const Error& e) {
        return e.what();
    }
    return {};
}

bool contains(const std::string& text, std::string_view part) { return text.find(part) != std::string::npos; }

EncoderOptions cpu() {
    EncoderOptions options;
    options.device = DevicePreference::Cpu;
    return options;
}

}  // namespace

class TestFiniteModel : public QObject {
    Q_OBJECT

    test::FixtureDir dir_;

    fs::path savedTinyModel(const std::string& name) {
        const auto path = dir_.path(name);
        test::tinyBert(texts(), Pooling::Cls).save(path);
        return path;
    }

private Q_SLOTS:
    void boundFollowsTheWidestSum() {
        BertConfig base;  // BERT-base: hidden 768, intermediate 3072
        const double expected = std::sqrt(static_cast<double>(std::numeric_limits<float>::max()) / 3072.0);
        QCOMPARE(weightMagnitudeBound(base), expected);
        // Two values at the bound multiplied and summed over the widest layer still fit in a float.
        QVERIFY(3072.0 * expected * expected <= std::numeric_limits<float>::max());
        base.projectionDim = 8192;
        QCOMPARE(weightMagnitudeBound(base),
                 std::sqrt(static_cast<double>(std::numeric_limits<float>::max()) / 8192.0));
    }

    void hugeFiniteWeightIsRefusedNamingTheTensor() {
        const auto path = savedTinyModel("huge");
        editWeights(path, [](const std::string& name, std::vector<float>& values) {
            if (name == "encoder.layer.0.attention.self.query.weight") values[5] = 3e38f;
        });
        const auto message = errorOf([&] { TextEncoder::load(path, cpu()); });
        QVERIFY2(contains(message, (path / "model.safetensors").string()), message.c_str());
        QVERIFY2(contains(message, "encoder.layer.0.attention.self.query.weight"), message.c_str());
        QVERIFY2(contains(message, "1 value(s) of magnitude above"), message.c_str());
        QVERIFY2(contains(message, "largest 3e+38"), message.c_str());
        QVERIFY2(contains(message, "sqrt(FLT_MAX / 64)"), message.c_str());  // tiny_bert: intermediate 64
    }

    void largeLayerNormAndEmbeddingValuesAreRefusedToo() {
        for (const std::string tensor : {"embeddings.LayerNorm.weight", "embeddings.word_embeddings.weight"}) {
            const auto path = savedTinyModel("huge-" + tensor);
            editWeights(path, [&](const std::string& name, std::vector<float>& values) {
                if (name == tensor) values.front() = -1e30f;
            });
            const auto message = errorOf([&] { TextEncoder::load(path, cpu()); });
            QVERIFY2(contains(message, tensor) && contains(message, "magnitude above"), message.c_str());
        }
    }

    void weightJustBelowTheBoundLoads() {
        const auto path = savedTinyModel("below");
        BertConfig config;
        config.hiddenSize = 32;
        config.intermediateSize = 64;
        const auto bound = static_cast<float>(weightMagnitudeBound(config) * 0.99);
        // The last row of the word embeddings: a marker token ([END]) that none of the texts has.
        editWeights(path, [&](const std::string& name, std::vector<float>& values) {
            if (name == "embeddings.word_embeddings.weight") values.back() = bound;
        });
        const auto encoder = TextEncoder::load(path, cpu());
        const auto vectors = encoder.encode(texts());
        QCOMPARE(vectors.size(), texts().size() * encoder.dimension());
        for (const float v : vectors) QVERIFY(std::isfinite(v));
    }

    void overflowingForwardPassFailsNamingTheModel() {
        // Every weight within the bound, yet their product compounds: the embeddings' LayerNorm
        // adds 1e18 to every value, the query and key projections sum 32 of them times 1e18, and
        // their scaled dot product overflows: the attention is NaN, and so every vector.
        const auto path = savedTinyModel("overflow");
        editWeights(path, [](const std::string& name, std::vector<float>& values) {
            if (name == "embeddings.LayerNorm.bias" || name == "encoder.layer.0.attention.self.query.weight" ||
                name == "encoder.layer.0.attention.self.key.weight")
                std::fill(values.begin(), values.end(), 1e18f);
        });
        const auto encoder = TextEncoder::load(path, cpu());
        const auto message = errorOf([&] { encoder.encode(texts()); });
        QVERIFY2(contains(message, "the model in " + path.string()), message.c_str());
        QVERIFY2(contains(message, "NaN or infinite"), message.c_str());
        QVERIFY2(contains(message, "\"heart attack\"") || contains(message, "\"breast cancer\"") ||
                     contains(message, "\"acute renal failure\""),
                 message.c_str());
        // Token outputs are checked the same way.
        const auto tokens = encoder.tokenizer().encode("heart attack");
        QVERIFY(contains(errorOf([&] { encoder.tokenOutputs(tokens); }), path.string()));
    }

    void vectorsTooLongForTheirScoresAreRefused() {
        // The last LayerNorm's bias and weight at 1e18: every vector is about 1e18 * sqrt(32)
        // long, finite, but the inner product of two of them overflows float32.
        const auto path = savedTinyModel("long");
        editWeights(path, [](const std::string& name, std::vector<float>& values) {
            if (name == "encoder.layer.0.output.LayerNorm.bias" || name == "encoder.layer.0.output.LayerNorm.weight")
                std::fill(values.begin(), values.end(), 2e18f);
        });
        const auto encoder = TextEncoder::load(path, cpu());
        const auto message = errorOf([&] { encoder.encode(texts()); });
        QVERIFY2(contains(message, "the model in " + path.string()), message.c_str());
        QVERIFY2(contains(message, "scores between such vectors overflow"), message.c_str());
    }

    void createdModelIsNamedAsSuch() {
        const auto encoder = test::tinyBert(texts(), Pooling::Cls);
        {
            torch::NoGradGuard noGrad;
            for (auto& item : encoder.model().named_parameters())
                if (item.key() == "embeddings.LayerNorm.bias") item.value().fill_(std::nanf(""));
        }
        const auto message = errorOf([&] { encoder.encode(texts()); });
        QVERIFY2(contains(message, "the model created in this process"), message.c_str());
    }

    void finiteVectorCheckNamesRowAndText() {
        const std::vector<std::string> names = {"first", "second"};
        std::vector<float> vectors = {1.0f, 2.0f, 3.0f, std::numeric_limits<float>::infinity()};
        const auto message = errorOf([&] { requireFiniteVectors(vectors, 2, "the model in /m", names); });
        QVERIFY2(contains(message, "the model in /m: the vector of text 2 of 2 (\"second\") holds 1 NaN"),
                 message.c_str());
        vectors.back() = 4.0f;
        QVERIFY(errorOf([&] { requireFiniteVectors(vectors, 2, "m", names); }).empty());
        const auto longest = static_cast<float>(maxVectorLength());
        vectors = {longest * 0.7f, longest * 0.7f};  // length 0.99 of the limit: accepted
        QVERIFY(errorOf([&] { requireFiniteVectors(vectors, 2, "m"); }).empty());
        vectors = {longest * 0.8f, longest * 0.8f};
        QVERIFY(contains(errorOf([&] { requireFiniteVectors(vectors, 2, "m"); }), "text 1 of 1 has a length"));
    }
};

QTEST_APPLESS_MAIN(TestFiniteModel)
#include "test_finite_model.moc"
