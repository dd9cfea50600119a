// The compact encoder trains from scratch: a few hundred gradient steps of a contrastive loss on
// a toy vocabulary of synonyms that share no words teach it to put each pair together, and the
// trained model saves and reloads in the Hugging Face layout with the vectors it learned. (The
// method presets and their trainer build on exactly this: the module's parameters, train mode
// and markWeightsChanged().)
#include <torch/torch.h>

#include <QTemporaryDir>

#include "encoder/bert_model.h"
#include "encoder/text_encoder.h"
#include "encoder/vocabulary_builder.h"
#include "test_data.h"

using namespace linkscope;
using namespace linkscope::encoder;

namespace {

// Synonym pairs with no word in common: only training can relate them.
const std::vector<std::pair<std::string, std::string>> kSynonyms{
    {"heart attack", "myocardial infarction"},
    {"high blood pressure", "hypertension"},
    {"cancer", "neoplasm"},
    {"stroke", "cerebrovascular accident"},
    {"fever", "pyrexia"},
    {"itching", "pruritus"},
    {"baldness", "alopecia"},
    {"nosebleed", "epistaxis"},
};

// How many first synonyms have their own second synonym as the nearest second synonym.
int pairsFound(const TextEncoder& encoder) {
    std::vector<std::string> first, second;
    for (const auto& [a, b] : kSynonyms) {
        first.push_back(a);
        second.push_back(b);
    }
    const auto a = encoder.encode(first);
    const auto b = encoder.encode(second);
    const std::size_t d = encoder.dimension();
    int found = 0;
    for (std::size_t i = 0; i < first.size(); ++i) {
        std::size_t best = 0;
        float bestScore = -1e30f;
        for (std::size_t j = 0; j < second.size(); ++j) {
            float score = 0.0f;
            for (std::size_t k = 0; k < d; ++k) score += a[i * d + k] * b[j * d + k];
            if (score > bestScore) {
                bestScore = score;
                best = j;
            }
        }
        found += best == i;
    }
    return found;
}

torch::Tensor batchOf(const BertTokenizer& tokenizer, const std::vector<std::string>& texts, torch::Tensor& mask) {
    const std::size_t length = 16;
    auto ids = torch::zeros({static_cast<long>(texts.size()), static_cast<long>(length)}, torch::kLong);
    mask = torch::zeros_like(ids);
    EncodeOptions options;
    options.maxLength = length;
    options.padToMaxLength = true;
    for (std::size_t i = 0; i < texts.size(); ++i) {
        const Encoding encoding = tokenizer.encode(texts[i], options);
        for (std::size_t t = 0; t < length; ++t) {
            ids[long(i)][long(t)] = encoding.ids[t];
            mask[long(i)][long(t)] = encoding.attentionMask[t];
        }
    }
    return ids;
}

}  // namespace

class TestCompactTraining : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void contrastiveStepsTeachSynonyms() {
        std::vector<std::string> texts;
        for (const auto& [a, b] : kSynonyms) {
            texts.push_back(a);
            texts.push_back(b);
        }
        VocabularyBuilderOptions vocabularyOptions;
        vocabularyOptions.vocabularySize = 0;  // characters: every name is covered
        BertTokenizer tokenizer(buildWordPieceVocabulary(texts, vocabularyOptions), TokenizerConfig{});

        BertConfig config;
        config.hiddenSize = 64;
        config.numHiddenLayers = 2;
        config.numAttentionHeads = 4;
        config.intermediateSize = 128;
        config.maxPositionEmbeddings = 32;
        config.hiddenDropoutProb = 0.0;  // no dropout: the run is deterministic
        config.attentionProbsDropoutProb = 0.0;
        config.vocabSize = tokenizer.vocabularySize();
        EncoderOptions options;
        options.maxLength = 16;
        options.normalize = true;
        options.device = DevicePreference::Cpu;
        TextEncoder encoder = TextEncoder::create(config, tokenizer, 11, options);

        const int before = pairsFound(encoder);
        const std::string untrainedFingerprint = encoder.fingerprint();

        // Symmetric InfoNCE over the pairs (temperature 0.1), Adam: kNN-BioEL's loss in
        // miniature, with the other pairs as in-batch negatives.
        std::vector<std::string> first, second;
        for (const auto& [a, b] : kSynonyms) {
            first.push_back(a);
            second.push_back(b);
        }
        torch::Tensor firstMask, secondMask;
        const torch::Tensor firstIds = batchOf(encoder.tokenizer(), first, firstMask);
        const torch::Tensor secondIds = batchOf(encoder.tokenizer(), second, secondMask);
        BertEncoderModel& model = encoder.model();
        model.train();
        torch::optim::Adam optimizer(model.parameters(), torch::optim::AdamOptions(1e-3));
        const PoolingSpec cls;
        const auto labels = torch::arange(static_cast<long>(kSynonyms.size()));
        double firstLoss = 0.0, lastLoss = 0.0;
        for (int step = 0; step < 150; ++step) {
            optimizer.zero_grad();
            const auto a = model.embed(firstIds, firstMask, torch::zeros_like(firstIds), cls, true);
            const auto b = model.embed(secondIds, secondMask, torch::zeros_like(secondIds), cls, true);
            const auto logits = torch::matmul(a, b.t()) / 0.1;
            const auto loss = (torch::nn::functional::cross_entropy(logits, labels) +
                               torch::nn::functional::cross_entropy(logits.t(), labels)) /
                              2;
            loss.backward();
            optimizer.step();
            (step == 0 ? firstLoss : lastLoss) = loss.item<double>();
        }
        model.eval();
        model.markWeightsChanged();

        const int after = pairsFound(encoder);
        qInfo("pairs found: %d of %zu before training, %d after; loss %.3f -> %.4f", before, kSynonyms.size(), after,
              firstLoss, lastLoss);
        QVERIFY(before < static_cast<int>(kSynonyms.size()));
        QCOMPARE(after, static_cast<int>(kSynonyms.size()));
        QVERIFY(lastLoss < firstLoss / 10);
        QVERIFY(encoder.fingerprint() != untrainedFingerprint);

        // The trained model is saved in the Hugging Face layout and gives the same vectors back.
        QTemporaryDir dir;
        encoder.save(dir.path().toStdString());
        const TextEncoder reloaded = TextEncoder::load(dir.path().toStdString(), options);
        QVERIFY(reloaded.encode(first) == encoder.encode(first));
        QCOMPARE(pairsFound(reloaded), static_cast<int>(kSynonyms.size()));
    }
};

QTEST_APPLESS_MAIN(TestCompactTraining)
#include "test_compact_training.moc"
