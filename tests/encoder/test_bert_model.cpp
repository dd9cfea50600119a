// The BERT module against an independent composition of torch functional calls written here
// from the raw weight tensors, padding invariance, Hugging Face parameter names, pooling and
// BERT's initialisation.
#include <ATen/CPUGeneratorImpl.h>
#include <torch/torch.h>

#include <cmath>
#include <limits>
#include <map>
#include <string>
#include <vector>

#include "encoder/bert_model.h"
#include "test_data.h"
#include "util/error.h"

using namespace linkscope;
using namespace linkscope::encoder;

namespace {

BertConfig tinyConfig() {
    BertConfig config;
    config.vocabSize = 40;
    config.hiddenSize = 16;
    config.numHiddenLayers = 2;
    config.numAttentionHeads = 2;
    config.intermediateSize = 24;
    config.maxPositionEmbeddings = 32;
    config.typeVocabSize = 2;
    config.layerNormEps = 1e-12;
    return config;
}

std::map<std::string, torch::Tensor> parameterMap(const torch::nn::Module& module) {
    std::map<std::string, torch::Tensor> map;
    for (const auto& item : module.named_parameters()) map.emplace(item.key(), item.value());
    return map;
}

/// Every parameter replaced by random values of a fixed seed (biases and LayerNorm included,
/// which BERT's initialisation leaves at 0 and 1), so that the reference checks their use.
void randomizeAll(BertEncoderModel& model, std::uint64_t seed) {
    torch::NoGradGuard noGrad;
    auto generator = at::detail::createCPUGenerator(seed);
    for (auto& parameter : model.parameters())
        parameter.copy_(torch::empty(parameter.sizes(), torch::kFloat).normal_(0.0, 0.5, generator));
}

/// BertModel's last hidden state, composed from functional calls in float64 with the weights
/// looked up by their Hugging Face names; shares no code with the module.
torch::Tensor referenceForward(const std::map<std::string, torch::Tensor>& weightsByName, const BertConfig& config,
                               const torch::Tensor& ids, const torch::Tensor& mask, const torch::Tensor& types) {
    const auto w = [&](const std::string& name) { return weightsByName.at(name).detach().to(torch::kDouble); };
    const auto linear = [&](const torch::Tensor& x, const std::string& prefix) {
        return torch::matmul(x, w(prefix + ".weight").t()) + w(prefix + ".bias");
    };
    const auto layerNorm = [&](const torch::Tensor& x, const std::string& prefix) {
        const auto mean = x.mean(-1, true);
        const auto variance = (x - mean).pow(2).mean(-1, true);  // biased, as LayerNorm
        return (x - mean) / torch::sqrt(variance + config.layerNormEps) * w(prefix + ".weight") + w(prefix + ".bias");
    };
    const auto batch = ids.size(0), length = ids.size(1);
    const auto hidden = static_cast<std::int64_t>(config.hiddenSize);
    const auto heads = static_cast<std::int64_t>(config.numAttentionHeads);
    const auto headSize = hidden / heads;

    const auto positions = torch::arange(length, torch::kLong);
    auto x = w("embeddings.word_embeddings.weight").index({ids}) +
             w("embeddings.position_embeddings.weight").index({positions}).unsqueeze(0) +
             w("embeddings.token_type_embeddings.weight").index({types});
    x = layerNorm(x, "embeddings.LayerNorm");
    // Explicit additive mask: padding keys get float32's lowest value, as transformers does.
    const auto additive = (1.0 - mask.to(torch::kDouble)) * static_cast<double>(std::numeric_limits<float>::lowest());
    for (std::size_t i = 0; i < config.numHiddenLayers; ++i) {
        const std::string p = "encoder.layer." + std::to_string(i) + ".";
        const auto heads4 = [&](const torch::Tensor& t) {
            return t.reshape({batch, length, heads, headSize}).permute({0, 2, 1, 3});
        };
        const auto q = heads4(linear(x, p + "attention.self.query"));
        const auto k = heads4(linear(x, p + "attention.self.key"));
        const auto v = heads4(linear(x, p + "attention.self.value"));
        auto scores = torch::matmul(q, k.transpose(2, 3)) / std::sqrt(static_cast<double>(headSize));
        scores = scores + additive.reshape({batch, 1, 1, length});
        const auto probabilities = torch::exp(scores - std::get<0>(scores.max(-1, true)));
        const auto attention = probabilities / probabilities.sum(-1, true);
        const auto context = torch::matmul(attention, v).permute({0, 2, 1, 3}).reshape({batch, length, hidden});
        const auto attended =
            layerNorm(linear(context, p + "attention.output.dense") + x, p + "attention.output.LayerNorm");
        const auto inner = linear(attended, p + "intermediate.dense");
        const auto gelu = inner * 0.5 * (1.0 + torch::erf(inner / std::sqrt(2.0)));
        x = layerNorm(linear(gelu, p + "output.dense") + attended, p + "output.LayerNorm");
    }
    return x;
}

/// A padded batch of three texts of lengths 7, 4 and 2 (ids and token types chosen by hand).
struct Batch {
    torch::Tensor ids, mask, types;
    std::vector<std::int64_t> lengths;
};

Batch threeTexts() {
    Batch b;
    b.ids = torch::tensor({2, 11, 25, 7, 39, 14, 3,  //
                           2, 5,  6,  3, 0,  0,  0,  //
                           2, 3,  0,  0, 0,  0,  0},
                          torch::kLong)
                .reshape({3, 7});
    b.mask = b.ids.ne(0).to(torch::kLong);
    b.types = torch::tensor({0, 0, 0, 1, 1, 1, 1,  //
                             0, 0, 1, 1, 0, 0, 0,  //
                             0, 0, 0, 0, 0, 0, 0},
                            torch::kLong)
                  .reshape({3, 7});
    b.lengths = {7, 4, 2};
    return b;
}

double maxAbsDifference(const torch::Tensor& a, const torch::Tensor& b) {
    return (a.to(torch::kDouble) - b.to(torch::kDouble)).abs().max().item<double>();
}

std::vector<std::string> expectedNames(const BertConfig& config) {
    std::vector<std::string> names = {"embeddings.word_embeddings.weight", "embeddings.position_embeddings.weight",
                                      "embeddings.token_type_embeddings.weight", "embeddings.LayerNorm.weight",
                                      "embeddings.LayerNorm.bias"};
    for (std::size_t i = 0; i < config.numHiddenLayers; ++i) {
        const std::string p = "encoder.layer." + std::to_string(i) + ".";
        for (const char* suffix :
             {"attention.self.query", "attention.self.key", "attention.self.value", "attention.output.dense",
              "attention.output.LayerNorm", "intermediate.dense", "output.dense", "output.LayerNorm"}) {
            names.push_back(p + suffix + ".weight");
            names.push_back(p + suffix + ".bias");
        }
    }
    return names;
}

std::vector<std::string> namesOf(const torch::nn::Module& module) {
    std::vector<std::string> names;
    for (const auto& item : module.named_parameters()) names.push_back(item.key());
    return names;
}

}  // namespace

class TestBertModel : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void parameterNamesAreHuggingFaces() {
        const auto config = tinyConfig();
        BertEncoderModel plain(config, /*withPooler=*/false);
        QCOMPARE(namesOf(plain), expectedNames(config));
        QCOMPARE(plain.named_buffers().size(), std::size_t{0});  // no position_ids buffer to save

        auto withHead = config;
        withHead.projectionDim = 8;
        BertEncoderModel full(withHead, /*withPooler=*/true);
        auto names = expectedNames(config);
        for (const char* extra :
             {"pooler.dense.weight", "pooler.dense.bias", "projection.dense.weight", "projection.dense.bias"})
            names.push_back(extra);
        QCOMPARE(namesOf(full), names);
        const auto parameters = parameterMap(full);
        QCOMPARE(parameters.at("projection.dense.weight").sizes().vec(), (std::vector<std::int64_t>{8, 16}));
        QCOMPARE(parameters.at("encoder.layer.1.intermediate.dense.weight").sizes().vec(),
                 (std::vector<std::int64_t>{24, 16}));
        QCOMPARE(parameters.at("embeddings.word_embeddings.weight").sizes().vec(), (std::vector<std::int64_t>{40, 16}));
        QVERIFY(full.hasPooler() && full.hasProjection());
        QVERIFY(!plain.hasPooler() && !plain.hasProjection());
    }

    void forwardMatchesFunctionalReference() {
        const auto config = tinyConfig();
        BertEncoderModel model(config, false);
        randomizeAll(model, 7);
        model.eval();
        const auto batch = threeTexts();
        torch::NoGradGuard noGrad;
        const auto output = model.forward(batch.ids, batch.mask, batch.types);
        QCOMPARE(output.sizes().vec(), (std::vector<std::int64_t>{3, 7, 16}));
        const auto reference = referenceForward(parameterMap(model), config, batch.ids, batch.mask, batch.types);
        const double difference = maxAbsDifference(output, reference);
        QVERIFY2(difference < 1e-5, qPrintable(QString("max |model - reference| = %1").arg(difference)));
        // The reference is sensitive: it is not near the outputs of other weights.
        BertEncoderModel other(config, false);
        randomizeAll(other, 8);
        QVERIFY(maxAbsDifference(referenceForward(parameterMap(other), config, batch.ids, batch.mask, batch.types),
                                 output) > 0.1);
    }

    void int32InputsAndFloatMaskGiveTheSame() {
        const auto config = tinyConfig();
        BertEncoderModel model(config, false);
        randomizeAll(model, 3);
        model.eval();
        torch::NoGradGuard noGrad;
        const auto batch = threeTexts();
        const auto a = model.forward(batch.ids, batch.mask, batch.types);
        const auto b =
            model.forward(batch.ids.to(torch::kInt), batch.mask.to(torch::kFloat), batch.types.to(torch::kInt));
        QVERIFY(torch::equal(a, b));
    }

    void paddingDoesNotChangeRealTokens() {
        const auto config = tinyConfig();
        BertEncoderModel model(config, false);
        randomizeAll(model, 11);
        model.eval();
        torch::NoGradGuard noGrad;
        const auto batch = threeTexts();
        const auto padded = model.forward(batch.ids, batch.mask, batch.types);
        for (std::int64_t row = 0; row < 3; ++row) {
            const auto length = batch.lengths[static_cast<std::size_t>(row)];
            const auto slice = [&](const torch::Tensor& t) { return t.slice(0, row, row + 1).slice(1, 0, length); };
            const auto alone = model.forward(slice(batch.ids), slice(batch.mask), slice(batch.types));
            const double difference = maxAbsDifference(alone[0], padded[row].slice(0, 0, length));
            QVERIFY2(difference < 1e-5, qPrintable(QString("row %1: %2").arg(row).arg(difference)));
        }
        // Padding tokens do differ when the mask is ignored: the mask is what keeps them out.
        const auto unmasked = model.forward(batch.ids, torch::ones_like(batch.mask), batch.types);
        QVERIFY(maxAbsDifference(unmasked[1].slice(0, 0, 4), padded[1].slice(0, 0, 4)) > 1e-3);
    }

    void dropoutActsOnlyInTrainMode() {
        const auto config = tinyConfig();
        BertEncoderModel model(config, false);
        randomizeAll(model, 5);
        torch::NoGradGuard noGrad;
        const auto batch = threeTexts();
        model.eval();
        const auto first = model.forward(batch.ids, batch.mask, batch.types);
        QVERIFY(torch::equal(first, model.forward(batch.ids, batch.mask, batch.types)));
        model.train();
        QVERIFY(maxAbsDifference(first, model.forward(batch.ids, batch.mask, batch.types)) > 1e-3);
    }

    void poolingModes() {
        const auto config = tinyConfig();
        BertEncoderModel model(config, false);
        randomizeAll(model, 9);
        model.eval();
        torch::NoGradGuard noGrad;
        // Row 0 carries markers 30 and 31 at positions 2 and 4 (31 also at 5: the first counts);
        // row 1 at 1 and 2; the padding of row 1 holds a 30 that must not count.
        const auto ids = torch::tensor({2, 8, 30, 9, 31, 31, 3, 2, 30, 31, 3, 0, 30, 0}, torch::kLong).reshape({2, 7});
        auto mask = ids.ne(0).to(torch::kLong);
        mask[1][5] = 0;
        const auto types = torch::zeros_like(ids);
        const auto hidden = model.forward(ids, mask, types);

        const auto cls = model.pool(hidden, mask, ids, {Pooling::Cls});
        QVERIFY(torch::equal(cls, hidden.select(1, 0)));

        const auto mean = model.pool(hidden, mask, ids, {Pooling::Mean});
        QVERIFY(maxAbsDifference(mean[0], hidden[0].mean(0)) < 1e-6);
        QVERIFY(maxAbsDifference(mean[1], hidden[1].slice(0, 0, 4).mean(0)) < 1e-6);

        const auto markers = model.pool(hidden, mask, ids, {Pooling::Markers, 30, 31});
        QVERIFY(maxAbsDifference(markers[0], (hidden[0][2] + hidden[0][4]) / 2) < 1e-6);
        QVERIFY(maxAbsDifference(markers[1], (hidden[1][1] + hidden[1][2]) / 2) < 1e-6);

        const auto positions = firstTokenPositions(ids, mask, 31);
        QCOMPARE(positions[0].item<std::int64_t>(), std::int64_t{4});
        QCOMPARE(positions[1].item<std::int64_t>(), std::int64_t{2});
        QCOMPARE(firstTokenPositions(ids, mask, 8)[1].item<std::int64_t>(), std::int64_t{-1});

        // Marker 8 is in row 0 only: row 1 is named in the error.
        try {
            model.pool(hidden, mask, ids, {Pooling::StartEnd, 8, 31});
            QFAIL("a missing marker must throw");
        } catch (const Error& e) {
            QVERIFY2(std::string(e.what()).find("row 1") != std::string::npos, e.what());
        }
    }

    void embedProjectsAndNormalizes() {
        auto config = tinyConfig();
        config.projectionDim = 6;
        BertEncoderModel model(config, false);
        randomizeAll(model, 13);
        model.eval();
        torch::NoGradGuard noGrad;
        const auto batch = threeTexts();
        const auto raw = model.embed(batch.ids, batch.mask, batch.types, {Pooling::Cls}, false);
        QCOMPARE(raw.sizes().vec(), (std::vector<std::int64_t>{3, 6}));
        const auto parameters = parameterMap(model);
        const auto cls = model.forward(batch.ids, batch.mask, batch.types).select(1, 0);
        const auto expected =
            torch::matmul(cls, parameters.at("projection.dense.weight").t()) + parameters.at("projection.dense.bias");
        QVERIFY(maxAbsDifference(raw, expected) < 1e-5);
        const auto unit = model.embed(batch.ids, batch.mask, batch.types, {Pooling::Cls}, true);
        QVERIFY(maxAbsDifference(unit.norm(2, 1), torch::ones({3})) < 1e-5);
        QVERIFY(maxAbsDifference(unit, raw / raw.norm(2, 1, true)) < 1e-6);
    }

    void initializationIsBertsAndSeeded() {
        auto config = tinyConfig();
        config.vocabSize = 400;  // enough values for the spread check below
        config.padTokenId = 0;
        BertEncoderModel a(config, true), b(config, true), c(config, true);
        a.initialize(42);
        b.initialize(42);
        c.initialize(43);
        const auto pa = parameterMap(a), pb = parameterMap(b), pc = parameterMap(c);
        for (const auto& [name, tensor] : pa) QVERIFY2(torch::equal(tensor, pb.at(name)), name.c_str());
        QVERIFY(!torch::equal(pa.at("encoder.layer.0.attention.self.query.weight"),
                              pc.at("encoder.layer.0.attention.self.query.weight")));
        for (const auto& [name, tensor] : pa) {
            if (name.find("LayerNorm.weight") != std::string::npos)
                QVERIFY2(torch::equal(tensor, torch::ones_like(tensor)), name.c_str());
            else if (name.ends_with(".bias"))
                QVERIFY2(torch::equal(tensor, torch::zeros_like(tensor)), name.c_str());
            else
                QVERIFY2(tensor.abs().max().item<float>() > 0, name.c_str());
        }
        const auto words = pa.at("embeddings.word_embeddings.weight");
        QVERIFY(torch::equal(words[0], torch::zeros({16})));  // the padding row
        const double spread = words.slice(0, 1).std().item<double>();
        QVERIFY2(spread > 0.018 && spread < 0.022, qPrintable(QString::number(spread)));
        QVERIFY(a.weightsVersion() > 0);
    }

    void growingTheWordTableKeepsOldRows() {
        const auto config = tinyConfig();
        BertEncoderModel model(config, false);
        model.initialize(1);
        const auto before = model.wordEmbeddings()->weight.clone();
        const auto* identity = model.wordEmbeddings()->weight.unsafeGetTensorImpl();
        const auto version = model.weightsVersion();
        model.growWordEmbeddings(44, 5);
        const auto& after = model.wordEmbeddings()->weight;
        QCOMPARE(after.size(0), std::int64_t{44});
        QVERIFY(torch::equal(after.slice(0, 0, 40), before));
        QVERIFY(after.slice(0, 40).abs().max().item<float>() > 0);
        QCOMPARE(model.config().vocabSize, std::size_t{44});
        QVERIFY(model.weightsVersion() > version);
        // The registered parameter is the same object, so named_parameters() sees the new table.
        QCOMPARE(parameterMap(model).at("embeddings.word_embeddings.weight").unsafeGetTensorImpl(), identity);
        QCOMPARE(parameterMap(model).at("embeddings.word_embeddings.weight").size(0), std::int64_t{44});
        // The new ids work in a forward pass; seeded rows are reproducible.
        model.eval();
        torch::NoGradGuard noGrad;
        const auto ids = torch::tensor({2, 43, 3}, torch::kLong).reshape({1, 3});
        QCOMPARE(model.forward(ids, torch::ones_like(ids), torch::zeros_like(ids)).size(1), std::int64_t{3});
        BertEncoderModel twin(config, false);
        twin.initialize(1);
        twin.growWordEmbeddings(44, 5);
        QVERIFY(torch::equal(twin.wordEmbeddings()->weight, after));
        model.growWordEmbeddings(10, 5);  // never shrinks
        QCOMPARE(model.wordEmbeddings()->weight.size(0), std::int64_t{44});
    }

    void badInputsAreErrors() {
        const auto config = tinyConfig();
        BertEncoderModel model(config, false);
        model.initialize(2);
        model.eval();
        torch::NoGradGuard noGrad;
        const auto tooLong = torch::full({1, 33}, 5, torch::kLong);
        QVERIFY_THROWS_EXCEPTION(Error, model.forward(tooLong, torch::ones_like(tooLong), torch::zeros_like(tooLong)));
        const auto badId = torch::tensor({2, 40, 3}, torch::kLong).reshape({1, 3});
        QVERIFY_THROWS_EXCEPTION(Error, model.forward(badId, torch::ones_like(badId), torch::zeros_like(badId)));
        const auto ids = torch::tensor({2, 4, 3}, torch::kLong).reshape({1, 3});
        QVERIFY_THROWS_EXCEPTION(Error, model.forward(ids, torch::ones_like(ids), torch::full_like(ids, 2)));
        QVERIFY_THROWS_EXCEPTION(Error, model.forward(ids, torch::ones({1, 2}, torch::kLong), torch::zeros_like(ids)));
    }
};

QTEST_APPLESS_MAIN(TestBertModel)
#include "test_bert_model.moc"
