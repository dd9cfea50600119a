// The masked-LM stage of the pretraining (models/mlm.json, core/train/masked_lm_objective.cpp)
// through the trainer, on abstracts written from a small grammar in which a masked word can be
// told from its sentence (each disease has its own drug): the held-out masked-token accuracy
// rises well above the untrained model's; the run's model is a plain encoder that loads
// anywhere a checkpoint goes, without the prediction head; a cancelled and resumed stage ends
// where an uninterrupted one does (the head is restored from the checkpoint); and inputs the
// stage cannot learn from are refused with a message.
#include <QTemporaryDir>
#include <QtTest>

#include <nlohmann/json.hpp>

#include <cmath>
#include <filesystem>
#include <functional>
#include <string>
#include <vector>

#include "corpus/corpus.h"
#include "corpus/pubtator_reader.h"
#include "encoder/safetensors.h"
#include "encoder/text_encoder.h"
#include "kb/dictionary_loader.h"
#include "run_log.h"
#include "test_data.h"
#include "tiny_bert.h"
#include "train/run_directory.h"
#include "train/trainer.h"
#include "train/training_preset.h"
#include "util/error.h"

using namespace linkscope;
namespace fs = std::filesystem;

namespace {

struct Pair {
    const char* disease;
    const char* drug;
};
const Pair kPairs[] = {{"fever", "aspirin"},   {"angina", "nitrate"},     {"asthma", "salbutamol"},
                       {"gout", "colchicine"}, {"epilepsy", "valproate"}, {"malaria", "quinine"}};

// Document d: "Patients with <disease> received <drug>." twice over, with a varying count.
std::string abstracts(int documents) {
    std::string text;
    for (int d = 0; d < documents; ++d) {
        const Pair& a = kPairs[d % std::size(kPairs)];
        const Pair& b = kPairs[(d / 6 + d) % std::size(kPairs)];
        const std::string id = std::to_string(1000 + d);
        text += id + "|t|Treatment of " + a.disease + " in " + std::to_string(d % 9 + 2) + " patients.\n";
        text += id + "|a|Patients with " + a.disease + " received " + a.drug + ". Patients with " + b.disease +
                " received " + b.drug + ". The " + a.drug + " group improved.\n\n";
    }
    return text;
}

// models/mlm.json cut for the toy: `epochs` of 8 pieces a step, pieces of 24 tokens.
train::TrainingPreset toyPreset(std::size_t epochs) {
    auto preset = train::findPreset("mlm", fs::path(LINKSCOPE_SOURCE_DIR) / "models");
    train::Schedule& schedule = preset.training;
    schedule.epochs = epochs;
    schedule.batchSize = 8;
    schedule.learningRate = 2e-3;
    schedule.weightDecay = 0.0;
    preset.schedules = {{"toy", schedule}};
    preset.maxLength = 24;  // the abstracts are cut into pieces
    preset.maskedLm.heldOutEvery = 10;
    return preset;
}

// A tiny BERT whose vocabulary covers the abstracts (tiny_bert.h).
encoder::TextEncoder toyEncoder(const std::vector<std::string>& texts) {
    return test::tinyBert(texts, encoder::Pooling::Cls);
}

}  // namespace

class TestMaskedLm : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void initTestCase() {
        QVERIFY(dir_.isValid());
        if (qEnvironmentVariableIsSet("LINKSCOPE_TEST_KEEP")) dir_.setAutoRemove(false);
        const fs::path dir = dir_.path().toStdString();
        test::writeFile(dir / "abstracts.txt", abstracts(120));
        test::writeFile(dir / "kb.txt", "D1||fever|pyrexia\nD2||angina|angina pectoris\n");
        corpus_ = readPubTator(dir / "abstracts.txt");
        kb_ = kb::loadDictionary(dir / "kb.txt").kb;
        for (const auto& document : corpus_.documents()) texts_.push_back(document.text());
    }

    // The stage learns the grammar: held-out masked-token accuracy (documents it never trained
    // on, masked the same way at every validation) at least 0.25 above the untrained model's
    // (the test prints both; 30 epochs reach well past the bound), and the training loss falls.
    // The kept model is a plain BertModel checkpoint.
    void learnsToPredictMaskedTokens() {
        const auto preset = toyPreset(30);
        const fs::path run = fs::path(dir_.path().toStdString()) / "mlm";
        train::TrainerOptions options;
        options.runDirectory = run;
        options.schedule = "toy";
        options.device = encoder::DevicePreference::Cpu;
        std::vector<std::string> metrics;
        options.progress = [&](const train::TrainingProgress& progress) {
            if (progress.devAccuracy) metrics.push_back(progress.validationMetric);
        };
        train::TrainingInputs inputs;
        inputs.kb = &kb_;
        inputs.textCorpora = {&corpus_};
        const auto result = train::trainModel(preset, toyEncoder(texts_), inputs, options);
        QCOMPARE(result.info.status, std::string("finished"));
        QCOMPARE(result.info.epochsDone, std::size_t{30});
        qInfo("held-out masked-token accuracy: untrained %.3f -> best %.3f (epoch %zu)",
              result.info.untrainedDevAccuracy, result.info.bestDevAccuracy, result.info.bestEpoch);
        QVERIFY(result.info.untrainedDevAccuracy >= 0.0);
        QVERIFY2(
            result.info.bestDevAccuracy > result.info.untrainedDevAccuracy + 0.25,
            qPrintable(QString("%1 -> %2").arg(result.info.untrainedDevAccuracy).arg(result.info.bestDevAccuracy)));
        QCOMPARE(metrics.size(), std::size_t{31});  // the untrained model and every epoch
        for (const auto& metric : metrics) QCOMPARE(metric, std::string("held-out masked-token accuracy"));

        // The log names what it measured; no collapse check (no mention is linked).
        const auto lines = test::logLines(run);
        std::vector<double> epochLoss;
        for (const auto& line : lines) {
            if (line.at("event") == "epoch" || line.at("event") == "validation") {
                QCOMPARE(line.at("metric").get<std::string>(), std::string("held-out masked-token accuracy"));
                QVERIFY(!line.contains("collapsed"));
            }
            if (line.at("event") == "epoch_end") epochLoss.push_back(line.at("train_loss").get<double>());
        }
        QCOMPARE(epochLoss.size(), std::size_t{30});
        QVERIFY2(epochLoss.back() < epochLoss.front(),
                 qPrintable(QString("%1 -> %2").arg(epochLoss.front()).arg(epochLoss.back())));

        // The model folder holds the encoder only: the head is the stage's, in its checkpoint.
        const auto weights = encoder::SafetensorsFile::read(train::modelDirectory(run) / "model.safetensors");
        for (const auto& tensor : weights.tensors())
            QVERIFY2(tensor.name.rfind("embeddings.", 0) == 0 || tensor.name.rfind("encoder.", 0) == 0 ||
                         tensor.name.rfind("pooler.", 0) == 0,
                     tensor.name.c_str());
        QVERIFY(fs::exists(train::checkpointDirectory(run) / "objective.pt"));
        const auto loaded = encoder::TextEncoder::load(run);
        QCOMPARE(loaded.dimension(), std::size_t{32});
    }

    // Cancelled after a few steps and resumed: the same weights and log as the uninterrupted
    // run (tolerance 1e-5), which needs the head's weights and its optimizer moments back.
    void cancelAndResumeEqualsUninterrupted() {
        const auto preset = toyPreset(3);
        const fs::path base = fs::path(dir_.path().toStdString()) / "resume";
        train::TrainingInputs inputs;
        inputs.kb = &kb_;
        inputs.textCorpora = {&corpus_};
        train::TrainerOptions options;
        options.schedule = "toy";
        options.device = encoder::DevicePreference::Cpu;
        options.runDirectory = base / "whole";
        const auto whole = train::trainModel(preset, toyEncoder(texts_), inputs, options);
        QVERIFY(!whole.cancelled);

        train::TrainerOptions parts = options;
        parts.runDirectory = base / "parts";
        bool stopping = false;
        parts.progress = [&](const train::TrainingProgress& progress) {
            stopping = stopping || (progress.stage == "Training" && progress.globalStep + 1 >= 5);
        };
        parts.cancelled = [&] { return stopping; };
        QVERIFY(train::trainModel(preset, toyEncoder(texts_), inputs, parts).cancelled);
        parts.progress = {};
        parts.cancelled = {};
        parts.resume = true;
        const auto rest = train::trainModel(preset, toyEncoder(texts_), inputs, parts);
        QCOMPARE(rest.info.status, std::string("finished"));
        QCOMPARE(rest.info.bestEpoch, whole.info.bestEpoch);
        QVERIFY(std::abs(rest.info.bestDevAccuracy - whole.info.bestDevAccuracy) < 1e-9);

        const auto a = encoder::TextEncoder::load(train::modelDirectory(base / "whole"));
        const auto b = encoder::TextEncoder::load(train::modelDirectory(base / "parts"));
        const std::vector<std::string> probe{"patients with fever received aspirin", "gout"};
        const encoder::EncodeRequest cls{.maxLength = {}, .pooling = encoder::Pooling::Cls, .normalize = {}};
        const auto va = a.encode(probe, cls);
        const auto vb = b.encode(probe, cls);
        QCOMPARE(va.size(), vb.size());
        for (std::size_t i = 0; i < va.size(); ++i)
            QVERIFY2(std::abs(va[i] - vb[i]) < 1e-5, "vectors differ after resume");
        const auto la = test::logLines(base / "whole");
        const auto lb = test::logLines(base / "parts");
        QCOMPARE(la.size(), lb.size());
        for (std::size_t i = 0; i < la.size(); ++i) {
            QCOMPARE(la[i].at("event"), lb[i].at("event"));
            if (la[i].contains("loss"))
                QVERIFY2(std::abs(la[i].at("loss").get<double>() - lb[i].at("loss").get<double>()) < 1e-5,
                         "loss differs after resume");
        }
    }

    // What the stage cannot learn from: no corpus at all, documents without text, and a damaged
    // head in the checkpoint; each refused with a message, never a crash.
    void refusals() {
        const auto preset = toyPreset(3);
        const fs::path base = fs::path(dir_.path().toStdString()) / "refusals";
        train::TrainerOptions options;
        options.schedule = "toy";
        options.device = encoder::DevicePreference::Cpu;

        train::TrainingInputs none;
        none.kb = &kb_;
        options.runDirectory = base / "no-corpus";
        const std::string noCorpus = errorOf([&] { train::trainModel(preset, toyEncoder(texts_), none, options); });
        QVERIFY2(noCorpus.find("needs corpora to read") != std::string::npos, noCorpus.c_str());

        const fs::path emptyFile = base / "empty.txt";
        fs::create_directories(base);
        test::writeFile(emptyFile, "5|t|\n5|a|\n\n");
        const Corpus empty = readPubTator(emptyFile);
        train::TrainingInputs blank;
        blank.kb = &kb_;
        blank.textCorpora = {&empty};
        options.runDirectory = base / "blank";
        const std::string noText = errorOf([&] { train::trainModel(preset, toyEncoder(texts_), blank, options); });
        QVERIFY2(noText.find("no text to learn from") != std::string::npos, noText.c_str());

        train::TrainingInputs inputs;
        inputs.kb = &kb_;
        inputs.textCorpora = {&corpus_};
        // A checkpoint whose objective.pt is damaged: resume refuses naming the file.
        options.runDirectory = base / "damaged";
        bool stopping = false;
        options.progress = [&](const train::TrainingProgress& progress) {
            stopping = stopping || (progress.stage == "Training" && progress.globalStep >= 2);
        };
        options.cancelled = [&] { return stopping; };
        QVERIFY(train::trainModel(preset, toyEncoder(texts_), inputs, options).cancelled);
        const fs::path head = train::checkpointDirectory(options.runDirectory) / "objective.pt";
        QVERIFY(fs::exists(head));
        test::writeFile(head, "not a tensor archive");
        options.progress = {};
        options.cancelled = {};
        options.resume = true;
        const std::string damaged = errorOf([&] { train::trainModel(preset, toyEncoder(texts_), inputs, options); });
        QVERIFY2(
            damaged.find("objective.pt") != std::string::npos && damaged.find("cannot resume") != std::string::npos,
            damaged.c_str());
    }

private:
    template <typename Action>
    static std::string errorOf(Action&& action) {
        try {
            action();
        } catch (const Error& e) {
            return e.what();
        }
        return {};
    }

    QTemporaryDir dir_;
    Corpus corpus_;
    kb::KnowledgeBase kb_;
    std::vector<std::string> texts_;
};

QTEST_GUILESS_MAIN(TestMaskedLm)
#include "test_masked_lm.moc"
