// Training presets: the shipped models/*.json (five methods and the pretraining) hold their papers' values, a short schedule and
// their choices; every preset survives load(toJson()) unchanged; a schedule overrides only what it
// names; and every malformed file is refused with a ParseError naming the file and the key.
#include "fixtures.h"
#include "train/training_preset.h"
#include "util/error.h"

using namespace linkscope;
using namespace linkscope::train;
namespace fs = std::filesystem;

namespace {

const fs::path kModels = fs::path(LINKSCOPE_SOURCE_DIR) / "models";
// The five linking methods and the pretraining stages, in file order.
const std::vector<std::string> kShipped{"belhd", "biosyn",        "context-alignment", "knn-bioel",
                                        "mlm",   "prototype-srn", "sapbert",           "triplet"};

/// The message of the linkscope::Error that `action` throws, or "" when it throws none.
template <typename Action>
std::string errorOf(Action&& action) {
    try {
        action();
    } catch (const Error& e) {
        return e.what();
    }
    return {};
}

bool contains(const std::string& text, std::string_view fragment) { return text.find(fragment) != std::string::npos; }

/// A preset file holding `body` after a valid method, e.g. body = R"("seed": 1)".
std::string withMethod(std::string_view body) {
    return "{\n  \"method\": \"biosyn\"" + (body.empty() ? std::string() : ",\n  " + std::string(body)) + "\n}\n";
}

/// A preset in which every field differs from the header's default, with reals that have no
/// short decimal form, to prove that toJson() loses nothing.
TrainingPreset everythingSet() {
    TrainingPreset preset;
    preset.name = "everything";
    preset.method = Method::PrototypeSrn;
    preset.paper = "A paper, with \"quotes\" and UTF-8: \xce\xbb = 11.0";
    preset.description = "line one\nline two\ttab";
    preset.pooling = encoder::Pooling::StartEnd;
    preset.maxLength = 127;
    preset.entityMaxLength = 63;
    preset.projectionDim = 96;
    preset.similarity = Similarity::Euclidean;
    preset.markers = ContextMarkers::LeNguyen;
    preset.homonymExpansion = true;
    preset.seed = 18446744073709551615ULL;  // the largest seed: no trip through a signed or double value
    preset.training = {7, 33, 3, 0.1 + 0.2, 1.0 / 3.0, "adam", 1000, 5, 12345, 678};
    preset.schedules["short"] = {2, 8, 1, 1e-4, 0.0, "adamw", 0, 0, 100, 50, 40};
    preset.schedules["tiny"] = {1, 1, 1, 2.5e-7, 1e-300, "adam", 1, 1, 1, 1};
    preset.biosyn = {24, 0.75, CandidateSource::Dense, -2.718281828459045, false, 0.03125, 16, 8};
    preset.triplet = {TripletTrainingSet::Ontology, 2.0 / 3.0, -0.125};
    preset.prototype = {PrototypeVariant::TripletDownsampled, 48, CandidateSource::Both, 1.2, 10.5, 0.0, 0.005, 7};
    preset.contrastive = {0.07, 0};
    preset.selfAlignment = {1.5, 60.0, -0.25, 0.125, 7, false};
    preset.projectionHead = encoder::ProjectionHead::LayerNorm;
    preset.entityPooling = encoder::Pooling::Mean;
    preset.choices = {"first choice", "", "third, with \xe2\x80\x94 a dash"};
    return preset;
}

}  // namespace

class TestTrainingPreset : public QObject {
    Q_OBJECT
    test::FixtureDir dir_;

    static TrainingPreset shipped(const std::string& name) { return TrainingPreset::load(kModels / (name + ".json")); }

private Q_SLOTS:
    // --- The shipped presets -------------------------------------------------------------------

    void modelsFolderListsExactlyTheShippedPresets() {
        std::vector<fs::path> expected;
        for (const std::string& name : kShipped) expected.push_back(kModels / (name + ".json"));
        QCOMPARE(presetFiles(kModels), expected);  // compact-encoder.json has no "method": skipped
        QCOMPARE(findModelsDirectory({dir_.path("absent"), fs::path(), kModels}), std::optional<fs::path>(kModels));
    }
    void everyShippedPresetHasAShortScheduleAndChoices() {
        for (const std::string& name : kShipped) {
            const TrainingPreset preset = shipped(name);
            QCOMPARE(preset.name, name);  // the file's stem
            QVERIFY2(parseMethod(name) == preset.method, name.c_str());
            QVERIFY2(!preset.paper.empty() && !preset.description.empty(), name.c_str());
            QVERIFY2(preset.choices.size() >= 3, name.c_str());
            for (const std::string& choice : preset.choices) QVERIFY2(!choice.empty(), name.c_str());
            QVERIFY2(preset.schedules.contains("short"), name.c_str());
            // The short schedule: fewer epochs of the compact encoder from scratch on two cores,
            // with a larger step than fine-tuning's; what it does not name stays the paper's.
            const Schedule& shortSchedule = preset.schedule("short");
            QCOMPARE(shortSchedule.optimizer, preset.training.optimizer);
            QCOMPARE(shortSchedule.weightDecay, preset.training.weightDecay);
            QVERIFY2(shortSchedule.learningRate >= preset.training.learningRate, name.c_str());
            // (The pretraining's short schedule runs more epochs over MEDIC's pairs than the
            // paper's one epoch over UMLS's millions: not fewer. The context alignment has no
            // paper: its one schedule fine-tunes a pretrained encoder. The masked-LM stage trains
            // from scratch too, and its short schedule is not a fine-tuning.)
            if (!pretrainsEncoder(preset.method) && linksMentions(preset.method)) {
                QVERIFY2(shortSchedule.epochs < preset.training.epochs, name.c_str());
                QCOMPARE(shortSchedule.learningRate, 1e-4);
                QCOMPARE(preset.seed, std::uint64_t{42});
            }
        }
    }
    // The advice for a method that reads mentions in context (belhd, prototype-srn) started from
    // an encoder that has not: given for random weights and names-only pretraining, not for a
    // context-aligned or unknown start, and never for the methods that read the mention alone.
    void contextStartAdvice() {
        for (const char* name : {"belhd", "prototype-srn"}) {
            const TrainingPreset preset = shipped(name);
            QVERIFY2(train::contextStartAdvice(preset, StartKind::Scratch).find("random weights") != std::string::npos,
                     name);
            QVERIFY2(
                train::contextStartAdvice(preset, StartKind::NamesOnly).find("context-alignment") != std::string::npos,
                name);
            QVERIFY(train::contextStartAdvice(preset, StartKind::ContextAligned).empty());
            QVERIFY(train::contextStartAdvice(preset, StartKind::Unknown).empty());
            // Their short-pretrained schedules read the mention alone too: a names-only start
            // suits them, random weights still do not.
            const TrainingPreset pretrained = preset.scheduled("short-pretrained");
            QVERIFY2(train::contextStartAdvice(pretrained, StartKind::NamesOnly).empty(), name);
            QVERIFY2(
                train::contextStartAdvice(pretrained, StartKind::Scratch).find("random weights") != std::string::npos,
                name);
            QVERIFY2(
                train::contextStartAdvice(preset.scheduled("short"), StartKind::NamesOnly).find("short-pretrained") !=
                    std::string::npos,
                name);
        }
        for (const char* name : {"biosyn", "triplet", "knn-bioel"})
            for (const StartKind start : {StartKind::Scratch, StartKind::NamesOnly})
                QVERIFY2(train::contextStartAdvice(shipped(name), start).empty(), name);
    }

    void biosynHasThePapersValues() {
        const TrainingPreset p = shipped("biosyn");
        QCOMPARE(p.method, Method::BioSyn);
        QCOMPARE(p.pooling, encoder::Pooling::Cls);
        QCOMPARE(p.similarity, Similarity::Dot);
        QCOMPARE(p.maxLength, std::size_t{25});
        QCOMPARE(p.biosyn.topK, std::size_t{20});
        QCOMPARE(p.biosyn.denseRatio, 0.5);
        QCOMPARE(p.biosyn.candidates, CandidateSource::Both);
        QVERIFY(p.biosyn.trainSparseWeight);
        QCOMPARE(p.biosyn.sparseWeight, 0.0);  // the authors' code: initial 0, learning rate 0.01
        QCOMPARE(p.biosyn.sparseWeightLearningRate, 0.01);
        QCOMPARE(p.training.learningRate, 1e-5);
        QCOMPARE(p.training.weightDecay, 1e-2);
        QCOMPARE(p.training.batchSize, std::size_t{16});
        QCOMPARE(p.training.epochs, std::size_t{10});
        QCOMPARE(p.training.optimizer, std::string("adam"));
    }
    void belhdHasThePapersValues() {
        const TrainingPreset p = shipped("belhd");
        QCOMPARE(p.method, Method::Belhd);
        QVERIFY(p.homonymExpansion);
        QCOMPARE(p.markers, ContextMarkers::Belhd);
        QCOMPARE(p.pooling, encoder::Pooling::Markers);
        QCOMPARE(p.projectionDim, std::size_t{128});
        QCOMPARE(p.biosyn.candidates, CandidateSource::Dense);
        QCOMPARE(p.biosyn.sparseWeight, 0.0);
        QVERIFY(!p.biosyn.trainSparseWeight);
        QCOMPARE(p.biosyn.ownCandidates, std::size_t{16});
        QCOMPARE(p.biosyn.sharedCandidates, std::size_t{16});
        QCOMPARE(p.biosyn.topK, std::size_t{32});
        QCOMPARE(p.training.epochs, std::size_t{20});
        QCOMPARE(p.training.kbRefreshSteps, std::size_t{0});  // re-encoded every epoch
        QCOMPARE(p.training.gradientAccumulation, std::size_t{8});
    }
    void belhdEncodesNamesAsTheAuthorsCode() {
        const TrainingPreset p = shipped("belhd");
        QCOMPARE(p.projectionHead, encoder::ProjectionHead::LayerNorm);
        QCOMPARE(p.namePooling(), encoder::Pooling::Cls);
        QCOMPARE(p.nameMarkers(), ContextMarkers::None);  // the plain name, no [S]/[E]
        // Presets without entity_pooling pool names as mentions, markers included.
        const TrainingPreset prototype = shipped("prototype-srn");
        QVERIFY(!prototype.entityPooling);
        QCOMPARE(prototype.namePooling(), encoder::Pooling::StartEnd);
        QCOMPARE(prototype.nameMarkers(), ContextMarkers::LeNguyen);
    }
    void sapbertHasThePapersValues() {
        const TrainingPreset p = shipped("sapbert");
        QCOMPARE(p.method, Method::SelfAlignment);
        QVERIFY(!linksMentions(p.method));
        QCOMPARE(p.pooling, encoder::Pooling::Cls);
        QCOMPARE(p.maxLength, std::size_t{25});
        QCOMPARE(p.training.learningRate, 2e-5);
        QCOMPARE(p.training.batchSize, std::size_t{512});
        QCOMPARE(p.training.epochs, std::size_t{1});
        QCOMPARE(p.training.weightDecay, 0.01);
        QCOMPARE(p.training.optimizer, std::string("adamw"));
        QCOMPARE(p.selfAlignment.alpha, 2.0);
        QCOMPARE(p.selfAlignment.beta, 50.0);
        QCOMPARE(p.selfAlignment.base, 0.5);
        QCOMPARE(p.selfAlignment.epsilon, 0.2);
        QCOMPARE(p.seed, std::uint64_t{33});
    }
    void mlmHasBertsValues() {
        const TrainingPreset p = shipped("mlm");
        QCOMPARE(p.method, Method::MaskedLm);
        QVERIFY(!linksMentions(p.method));
        QVERIFY(validatesOwnData(p.method));
        QVERIFY(!pretrainsEncoder(p.method));  // a start for the self-alignment, not for the methods
        QCOMPARE(p.maxLength, std::size_t{128});
        QCOMPARE(p.maskedLm.maskProbability, 0.15);
        QCOMPARE(p.maskedLm.maskTokenShare, 0.8);
        QCOMPARE(p.maskedLm.randomTokenShare, 0.1);
        QCOMPARE(p.training.learningRate, 1e-4);
        QCOMPARE(p.training.batchSize, std::size_t{256});
        QCOMPARE(p.training.weightDecay, 0.01);
        // Written for the masked-LM stage only, and read back the same.
        QVERIFY(contains(p.toJson(), "\"masked_lm\""));
        QVERIFY(!contains(shipped("sapbert").toJson(), "masked_lm"));
        QCOMPARE(TrainingPreset::load(dir_.write("mlm.json", p.toJson())), p);
    }
    void maskedLmSettingsAreChecked() {
        const auto sum =
            dir_.write("sum.json", withMethod(R"("masked_lm": {"mask_token_share": 0.8, "random_token_share": 0.3})"));
        LINKSCOPE_EXPECT_PARSE_ERROR(TrainingPreset::load(sum), sum, 0,
                                     "masked_lm.random_token_share plus mask_token_share must be at most 1");
        const auto none = dir_.write("none.json", withMethod(R"("masked_lm": {"mask_probability": 0})"));
        LINKSCOPE_EXPECT_PARSE_ERROR(TrainingPreset::load(none), none, 0, "masked_lm.mask_probability must be");
        const auto all = dir_.write("all.json", withMethod(R"("masked_lm": {"held_out_every": 1})"));
        LINKSCOPE_EXPECT_PARSE_ERROR(TrainingPreset::load(all), all, 0,
                                     "masked_lm.held_out_every must be 0 (none held out) or at least 2, not 1");
        const auto unknown = dir_.write("unknown.json", withMethod(R"("masked_lm": {"next_sentence": true})"));
        LINKSCOPE_EXPECT_PARSE_ERROR(TrainingPreset::load(unknown), unknown, 0, "next_sentence");
    }
    void tripletHasThePapersValues() {
        const TrainingPreset p = shipped("triplet");
        QCOMPARE(p.method, Method::Triplet);
        QCOMPARE(p.pooling, encoder::Pooling::Mean);
        QCOMPARE(p.similarity, Similarity::Cosine);  // at inference; the loss uses Euclidean distance
        QCOMPARE(p.triplet.trainingSet, TripletTrainingSet::OntologyAndData);
        QCOMPARE(p.triplet.mentionRatio, 1.0 / 3.0);  // exactly the double nearest 1/3
        QCOMPARE(p.triplet.sieveThreshold, 0.95);
        QCOMPARE(p.maxLength, std::size_t{8});
        QCOMPARE(p.training.batchSize, std::size_t{1500});
        QCOMPARE(p.training.learningRate, 3e-5);
        QCOMPARE(p.training.optimizer, std::string("adam"));
    }
    void prototypeSrnHasThePapersValues() {
        const TrainingPreset p = shipped("prototype-srn");
        QCOMPARE(p.method, Method::PrototypeSrn);
        QCOMPARE(p.markers, ContextMarkers::LeNguyen);
        QCOMPARE(p.pooling, encoder::Pooling::StartEnd);
        QCOMPARE(p.similarity, Similarity::Euclidean);
        QCOMPARE(p.maxLength, std::size_t{128});
        QCOMPARE(p.prototype.variant, PrototypeVariant::PrototypeSrn);
        QCOMPARE(p.prototype.radiusInit, 11.0);
        QCOMPARE(p.prototype.epsilon, 1.0);
        QCOMPARE(p.prototype.margin, 1.6);
        QCOMPARE(p.prototype.candidates, std::size_t{64});
        QCOMPARE(p.prototype.candidateSource, CandidateSource::Sparse);
        QCOMPARE(p.prototype.radiusLearningRate, 0.01);
        QCOMPARE(p.training.learningRate, 1e-5);
        QCOMPARE(p.training.batchSize, std::size_t{32});
    }
    void knnBioelHasThePapersValues() {
        const TrainingPreset p = shipped("knn-bioel");
        QCOMPARE(p.method, Method::KnnBioel);
        QCOMPARE(p.pooling, encoder::Pooling::Cls);
        QCOMPARE(p.similarity, Similarity::Cosine);
        QCOMPARE(p.contrastive.temperature, 0.01);
        QCOMPARE(p.contrastive.hardNegatives, std::size_t{4});
        QCOMPARE(p.training.batchSize, std::size_t{128});
        QCOMPARE(p.training.optimizer, std::string("adamw"));
        QCOMPARE(p.training.epochs, std::size_t{20});
        QVERIFY(p.training.earlyStoppingPatience > 0);  // "with early-stopping"
    }
    void shippedPresetsRoundTrip() {
        for (const std::string& name : kShipped) {
            const TrainingPreset original = shipped(name);
            const fs::path copy = dir_.write(name + ".json", original.toJson());
            const TrainingPreset reloaded = TrainingPreset::load(copy);
            QVERIFY2(reloaded == original, name.c_str());
            QCOMPARE(reloaded.toJson(), original.toJson());
        }
    }
    void findPresetByNameByFileAndByPath() {
        QCOMPARE(findPreset("belhd", kModels).method, Method::Belhd);
        QCOMPARE(findPreset("belhd.json", kModels).name, std::string("belhd"));
        const fs::path elsewhere = dir_.write("my-run.json", withMethod(R"("seed": 7)"));
        const TrainingPreset fromPath = findPreset(elsewhere.string(), kModels);
        QCOMPARE(fromPath.name, std::string("my-run"));
        QCOMPARE(fromPath.seed, std::uint64_t{7});
    }
    void findPresetListsTheAvailableNames() {
        const std::string message = errorOf([] { findPreset("krissbert", kModels); });
        QVERIFY2(contains(message, "no preset \"krissbert\""), message.c_str());
        QVERIFY2(
            contains(message,
                     "available: belhd, biosyn, context-alignment, knn-bioel, mlm, prototype-srn, sapbert, triplet"),
            message.c_str());
        const std::string path = errorOf([this] { findPreset(dir_.path("nowhere/x.json").string(), kModels); });
        QVERIFY2(contains(path, "no preset \"") && contains(path, "available: belhd"), path.c_str());
        const std::string noFolder = errorOf([this] { findPreset("biosyn", dir_.path("absent")); });
        QVERIFY2(contains(noFolder, "available: none"), noFolder.c_str());
    }

    // --- Reading: defaults, schedules, names -----------------------------------------------------

    void onlyTheMethodGivesTheHeaderDefaults() {
        const TrainingPreset preset = TrainingPreset::load(dir_.write("bare.json", R"({"method": "triplet"})"));
        TrainingPreset expected;
        expected.name = "bare";
        expected.method = Method::Triplet;
        QVERIFY(preset == expected);
        QVERIFY(preset.schedules.empty());
        QVERIFY(&preset.schedule("") == &preset.training);
        QVERIFY(&preset.schedule("paper") == &preset.training);
    }
    void aScheduleOverridesOnlyWhatItNames() {
        // "schedules" before "training" in the file: overrides apply to the final training values.
        const auto file = dir_.write("s.json", R"({
  "method": "knn-bioel",
  "schedules": {"short": {"epochs": 2, "batch_size": 64}, "one": {"max_train_mentions": 100}},
  "training": {"epochs": 20, "batch_size": 128, "learning_rate": 1e-4, "optimizer": "adamw",
               "early_stopping_patience": 3}
})");
        const TrainingPreset preset = TrainingPreset::load(file);
        const Schedule& shortSchedule = preset.schedule("short");
        QCOMPARE(shortSchedule.epochs, std::size_t{2});
        QCOMPARE(shortSchedule.batchSize, std::size_t{64});
        QCOMPARE(shortSchedule.learningRate, 1e-4);
        QCOMPARE(shortSchedule.earlyStoppingPatience, std::size_t{3});
        const Schedule& one = preset.schedule("one");
        QCOMPARE(one.maxTrainMentions, std::size_t{100});
        QCOMPARE(one.epochs, std::size_t{20});
        QCOMPARE(preset.training.maxTrainMentions, std::size_t{0});
    }
    void aScheduleMayNarrowTheContextWindow() {
        // A named schedule's max_length is the window the run trains and links with; the
        // paper's schedule keeps the preset's, and the scheduled preset reads back as it is.
        const auto file = dir_.write("window.json", R"({
  "method": "belhd",
  "encoder": {"max_length": 128},
  "schedules": {"short": {"epochs": 2, "max_length": 32}, "plain": {"epochs": 1}}
})");
        const TrainingPreset preset = TrainingPreset::load(file);
        QCOMPARE(preset.schedule("short").maxLength, std::size_t{32});
        QCOMPARE(preset.maxLength, std::size_t{128});
        const TrainingPreset narrowed = preset.scheduled("short");
        QCOMPARE(narrowed.maxLength, std::size_t{32});
        QCOMPARE(narrowed.training.epochs, std::size_t{2});
        QCOMPARE(narrowed.training.maxLength, std::size_t{0});
        QCOMPARE(preset.scheduled("plain").maxLength, std::size_t{128});
        QCOMPARE(preset.scheduled("paper").maxLength, std::size_t{128});
        QCOMPARE(preset.scheduled("paper").training, preset.training);
        const TrainingPreset reloaded = TrainingPreset::load(dir_.write("window.json", narrowed.toJson()));
        QVERIFY(reloaded == narrowed);                                     // same file name: the name a preset is given
        QCOMPARE(reloaded.scheduled("short").maxLength, std::size_t{32});  // resuming applies it again: same
    }
    void aScheduleMayReadTheMentionAloneToo() {
        // mention_alone is a named schedule's (the paper's schedule pools at the markers only);
        // the scheduled preset carries it in its encoder and reads back as it is.
        const auto file = dir_.write("alone.json", R"({
  "method": "belhd",
  "encoder": {"pooling": "markers", "markers": "belhd"},
  "schedules": {"small": {"epochs": 2, "mention_alone": true}, "plain": {"epochs": 1}}
})");
        const TrainingPreset preset = TrainingPreset::load(file);
        QVERIFY(!preset.mentionAlone);
        QVERIFY(preset.schedule("small").mentionAlone);
        const TrainingPreset small = preset.scheduled("small");
        QVERIFY(small.mentionAlone);
        QVERIFY(!small.training.mentionAlone);
        QVERIFY(!preset.scheduled("plain").mentionAlone);
        QVERIFY(!preset.scheduled("paper").mentionAlone);
        const TrainingPreset reloaded = TrainingPreset::load(dir_.write("alone.json", small.toJson()));
        QVERIFY(reloaded == small);
        QVERIFY(reloaded.scheduled("small").mentionAlone);
        QCOMPARE(small.mentionContextWeight, 0.5);  // the plain mean unless a key says otherwise

        // A schedule's mention_context_weight replaces the encoder's for its runs only.
        const auto weighted = dir_.write("weighted.json", R"({
  "method": "belhd",
  "encoder": {"pooling": "markers", "markers": "belhd", "mention_context_weight": 0.4, "projection_dim": 128},
  "schedules": {"small": {"epochs": 2, "mention_alone": true, "mention_context_weight": 0.2, "projection_dim": 0,
                          "first_stage_weight": 20},
                "plain": {"epochs": 1}}
})");
        const TrainingPreset weightedPreset = TrainingPreset::load(weighted);
        QCOMPARE(weightedPreset.mentionContextWeight, 0.4);
        QCOMPARE(weightedPreset.schedule("small").mentionContextWeight.value_or(-1.0), 0.2);
        const TrainingPreset weightedSmall = weightedPreset.scheduled("small");
        QCOMPARE(weightedSmall.mentionContextWeight, 0.2);
        QVERIFY(!weightedSmall.training.mentionContextWeight);
        QCOMPARE(weightedPreset.scheduled("plain").mentionContextWeight, 0.4);
        // ... and its projection_dim the head's size (0: none) for its runs only.
        QCOMPARE(weightedPreset.projectionDim, std::size_t{128});
        QCOMPARE(weightedSmall.projectionDim, std::size_t{0});
        QVERIFY(!weightedSmall.training.projectionDim);
        QCOMPARE(weightedPreset.scheduled("plain").projectionDim, std::size_t{128});
        // ... and its first_stage_weight prototype-srn's linking weight.
        QCOMPARE(weightedSmall.prototype.firstStageWeight, 20.0);
        QVERIFY(!weightedSmall.training.firstStageWeight);
        QCOMPARE(weightedPreset.scheduled("plain").prototype.firstStageWeight, 0.0);
        // (The file's stem is the preset's name, so each reads back from "weighted.json".)
        QVERIFY(TrainingPreset::load(dir_.write("weighted.json", weightedSmall.toJson())) == weightedSmall);
        QVERIFY(TrainingPreset::load(dir_.write("weighted.json", weightedPreset.toJson())) == weightedPreset);
        // A start that has only read names is no reason to warn when the mention is read alone
        // too; random weights still are.
        QVERIFY(!train::contextStartAdvice(preset, StartKind::NamesOnly).empty());
        QVERIFY(train::contextStartAdvice(small, StartKind::NamesOnly).empty());
        QVERIFY(!train::contextStartAdvice(small, StartKind::Scratch).empty());
    }
    void theShortSchedulesOfTheContextMethodsNarrowTheWindow() {
        // Chosen on NCBI Disease dev (the presets' choices say how): the compact encoder reads a
        // mention in a 32-token window better than in its whole sentence.
        for (const char* name : {"belhd", "prototype-srn"}) {
            const TrainingPreset preset = shipped(name);
            QCOMPARE(preset.maxLength, std::size_t{128});  // the paper's
            QCOMPARE(preset.scheduled("short").maxLength, std::size_t{32});
        }
        QCOMPARE(shipped("belhd").scheduled("short-pretrained").maxLength, std::size_t{32});
        QCOMPARE(shipped("context-alignment").scheduled("short").maxLength, std::size_t{32});
    }
    void unknownScheduleListsTheKnownOnes() {
        const TrainingPreset preset = shipped("biosyn");
        const std::string message = errorOf([&] { (void)preset.schedule("long"); });
        QVERIFY2(contains(message, "preset \"biosyn\" has no schedule \"long\""), message.c_str());
        QVERIFY2(contains(message, "available: paper, short"), message.c_str());
    }
    void everyFieldRoundTrips() {
        const TrainingPreset original = everythingSet();
        const TrainingPreset reloaded = TrainingPreset::load(dir_.write("everything.json", original.toJson()));
        QVERIFY(reloaded == original);
        QCOMPARE(reloaded.training.learningRate, 0.1 + 0.2);  // 0.30000000000000004, not 0.3
        QCOMPARE(reloaded.biosyn.sparseWeight, -2.718281828459045);
        QCOMPARE(reloaded.schedules.at("tiny").weightDecay, 1e-300);
    }
    void wholeNumbersWrittenAsRealsAreAccepted() {
        const TrainingPreset preset =
            TrainingPreset::load(dir_.write("w.json", withMethod(R"("training": {"epochs": 3.0})")));
        QCOMPARE(preset.training.epochs, std::size_t{3});
    }
    void namesRoundTrip() {
        for (const Method m : {Method::BioSyn, Method::Belhd, Method::Triplet, Method::PrototypeSrn, Method::KnnBioel,
                               Method::SelfAlignment, Method::ContextAlignment, Method::MaskedLm})
            QCOMPARE(parseMethod(methodName(m)), std::optional<Method>(m));
        for (const Similarity s : {Similarity::Dot, Similarity::Cosine, Similarity::Euclidean})
            QCOMPARE(parseSimilarity(similarityName(s)), std::optional<Similarity>(s));
        for (const ContextMarkers c : {ContextMarkers::None, ContextMarkers::Belhd, ContextMarkers::LeNguyen})
            QCOMPARE(parseMarkers(markersName(c)), std::optional<ContextMarkers>(c));
        for (const CandidateSource c : {CandidateSource::Sparse, CandidateSource::Dense, CandidateSource::Both})
            QCOMPARE(parseCandidateSource(candidateSourceName(c)), std::optional<CandidateSource>(c));
        for (const TripletTrainingSet t : {TripletTrainingSet::Ontology, TripletTrainingSet::OntologyAndData})
            QCOMPARE(parseTripletTrainingSet(tripletTrainingSetName(t)), std::optional<TripletTrainingSet>(t));
        for (const PrototypeVariant v : {PrototypeVariant::PrototypeSrn, PrototypeVariant::Prototype,
                                         PrototypeVariant::TripletAll, PrototypeVariant::TripletDownsampled})
            QCOMPARE(parsePrototypeVariant(prototypeVariantName(v)), std::optional<PrototypeVariant>(v));
        QCOMPARE(methodName(Method::PrototypeSrn), std::string_view("prototype-srn"));
        QCOMPARE(tripletTrainingSetName(TripletTrainingSet::OntologyAndData), std::string_view("OD"));
        QVERIFY(!parseMethod("BioSyn"));  // names are exact: a case slip is an error, not a guess
        QVERIFY(!parseSimilarity(""));
    }
    void presetFilesSkipsWhatIsNotAPreset() {
        const fs::path folder = dir_.path("models-mixed");
        fs::create_directories(folder / "sub.json");  // a folder named like a file
        test::writeFile(folder / "b-method.json", R"({"method": "belhd"})");
        test::writeFile(folder / "a-broken.json", "{\"method\": ");  // listed: loading it reports why
        test::writeFile(folder / "c-config.json", R"({"config": {"hidden_size": 256}})");
        test::writeFile(folder / "d-list.json", R"([{"method": "biosyn"}])");
        test::writeFile(folder / "e-notes.txt", R"({"method": "biosyn"})");
        test::writeFile(folder / "f-overflow.json", R"({"seed": 1e999})");  // nlohmann: out_of_range, not parse_error
        QCOMPARE(presetFiles(folder), (std::vector<fs::path>{folder / "a-broken.json", folder / "b-method.json",
                                                             folder / "f-overflow.json"}));
        QVERIFY(presetFiles(dir_.path("absent")).empty());
        QCOMPARE(findModelsDirectory({dir_.path("absent"), folder}), std::optional<fs::path>(folder));
        QCOMPARE(findModelsDirectory({dir_.path("absent")}), std::optional<fs::path>());
        LINKSCOPE_EXPECT_PARSE_ERROR(findPreset("a-broken", folder), folder / "a-broken.json", 1, "not valid JSON");
        LINKSCOPE_EXPECT_PARSE_ERROR(findPreset("c-config", folder), folder / "c-config.json", 0,
                                     "missing required key \"method\"");
    }

    // --- Malformed files -----------------------------------------------------------------------

    void syntaxErrorNamesItsLine() {
        const auto file =
            dir_.write("syntax.json", "{\n  \"method\": \"biosyn\",\n  \"seed\": 42,,\n  \"paper\": \"x\"\n}\n");
        LINKSCOPE_EXPECT_PARSE_ERROR(TrainingPreset::load(file), file, 3, "not valid JSON");
    }
    void truncatedFileNamesItsLastLine() {
        const auto file = dir_.write("truncated.json", "{\n  \"method\": \"biosyn\",\n  \"training\": {\"epochs\": 1");
        LINKSCOPE_EXPECT_PARSE_ERROR(TrainingPreset::load(file), file, 3, "not valid JSON");
    }
    void emptyFileIsAnError() {
        const auto file = dir_.write("empty.json", "");
        LINKSCOPE_EXPECT_PARSE_ERROR(TrainingPreset::load(file), file, 1, "not valid JSON");
    }
    void missingFileIsAnError() {
        const fs::path file = dir_.path("missing.json");
        LINKSCOPE_EXPECT_PARSE_ERROR(TrainingPreset::load(file), file, 0, "");
    }
    void nonUtf8BytesNameTheirLine() {
        const auto file = dir_.write("latin1.json", "{\n  \"method\": \"biosyn\",\n  \"paper\": \"M\xfcller\"\n}\n");
        LINKSCOPE_EXPECT_PARSE_ERROR(TrainingPreset::load(file), file, 3, "UTF-8");
    }
    void hugeLinesAreReadOrRefusedCleanly() {
        // A 4 MB description on one line is read as it is.
        const std::string description(std::size_t{4} << 20, 'x');
        const auto big = dir_.write("big.json", withMethod("\"description\": \"" + description + "\""));
        QCOMPARE(TrainingPreset::load(big).description.size(), description.size());
        // A megabyte of unclosed brackets is a syntax error on its line, not a stack overflow.
        const auto brackets =
            dir_.write("brackets.json", "{\"method\": \"biosyn\", \"choices\": " + std::string(1 << 20, '['));
        LINKSCOPE_EXPECT_PARSE_ERROR(TrainingPreset::load(brackets), brackets, 1, "not valid JSON");
        // Deeply nested: refused at the line where it passes 64 levels (every JSON reader's
        // bound), without writing the value out.
        const auto nested = dir_.write(
            "nested.json", withMethod("\"choices\": " + std::string(100000, '[') + std::string(100000, ']')));
        LINKSCOPE_EXPECT_PARSE_ERROR(TrainingPreset::load(nested), nested, 3, "nested deeper than 64 levels");
        // Nested within the bound: refused by type.
        const auto shallow =
            dir_.write("shallow.json", withMethod("\"choices\": " + std::string(30, '[') + std::string(30, ']')));
        LINKSCOPE_EXPECT_PARSE_ERROR(TrainingPreset::load(shallow), shallow, 0,
                                     "choices must be a list of strings; element 1 is a list");
    }
    void topLevelMustBeAnObject() {
        const auto file = dir_.write("list.json", R"(["biosyn"])");
        LINKSCOPE_EXPECT_PARSE_ERROR(TrainingPreset::load(file), file, 0, "must be a JSON object, not a list");
    }
    void missingMethod() {
        const auto file = dir_.write("nomethod.json", R"({"seed": 1, "paper": "x"})");
        LINKSCOPE_EXPECT_PARSE_ERROR(TrainingPreset::load(file), file, 0,
                                     "missing required key \"method\" (one of biosyn, belhd, triplet, prototype-srn, "
                                     "knn-bioel, sapbert, context-alignment, mlm)");
    }
    void methodOfTheWrongType() {
        const auto file = dir_.write("number.json", R"({"method": 1})");
        LINKSCOPE_EXPECT_PARSE_ERROR(TrainingPreset::load(file), file, 0, "method must be a string, one of biosyn");
    }
    void unknownMethod() {
        const auto file = dir_.write("krissbert.json", R"({"method": "krissbert"})");
        LINKSCOPE_EXPECT_PARSE_ERROR(TrainingPreset::load(file), file, 0,
                                     "method must be one of biosyn, belhd, triplet, prototype-srn, knn-bioel, sapbert, "
                                     "context-alignment, mlm, not "
                                     "\"krissbert\"");
    }
    void duplicateKey() {
        const auto file =
            dir_.write("dup.json", withMethod(R"("training": {"epochs": 10, "batch_size": 16, "epochs": 1})"));
        LINKSCOPE_EXPECT_PARSE_ERROR(TrainingPreset::load(file), file, 0, "duplicate key \"training.epochs\"");
        const auto top = dir_.write("dup-top.json", withMethod(R"("method": "belhd")"));
        LINKSCOPE_EXPECT_PARSE_ERROR(TrainingPreset::load(top), top, 0, "duplicate key \"method\"");
    }
    void reservedScheduleName() {
        const auto file = dir_.write("paper.json", withMethod(R"("schedules": {"paper": {"epochs": 1}})"));
        LINKSCOPE_EXPECT_PARSE_ERROR(TrainingPreset::load(file), file, 0, "the name \"paper\" is reserved");
    }
    void sharedCandidatesMustAddUpToK() {
        const auto file = dir_.write(
            "share.json", withMethod(R"("biosyn": {"top_k": 20, "own_candidates": 16, "shared_candidates": 16})"));
        LINKSCOPE_EXPECT_PARSE_ERROR(TrainingPreset::load(file), file, 0,
                                     "biosyn.own_candidates + biosyn.shared_candidates must equal biosyn.top_k");
    }

    // Every refusal of one key: the file is named, and so is the key by its full path.
    void malformedKey_data() {
        QTest::addColumn<QString>("body");
        QTest::addColumn<QString>("fragment");
        const auto row = [](const char* tag, const char* body, const char* fragment) {
            QTest::newRow(tag) << QString::fromUtf8(body) << QString::fromUtf8(fragment);
        };
        // Unknown keys, at the top and nested: a typo must not fall back to a default.
        row("unknown top", R"("metod": "x")", "unknown key \"metod\" (known: method, paper");
        row("unknown training", R"("training": {"batchsize": 8})",
            "unknown key \"training.batchsize\" (known in training: epochs, batch_size");
        row("unknown schedule key", R"("schedules": {"short": {"epoch": 2}})", "unknown key \"schedules.short.epoch\"");
        row("unknown encoder", R"("encoder": {"pool": "cls"})", "unknown key \"encoder.pool\"");
        row("unknown biosyn", R"("biosyn": {"topk": 5})", "unknown key \"biosyn.topk\"");
        row("unknown triplet", R"("triplet": {"ratio": 0.5})", "unknown key \"triplet.ratio\"");
        // The keys of the pretraining and of BELHD's names and head.
        row("unknown self_alignment", R"("self_alignment": {"gamma": 1})", "unknown key \"self_alignment.gamma\"");
        row("alpha zero", R"("self_alignment": {"alpha": 0})", "self_alignment.alpha must be greater than 0");
        row("base beyond a cosine", R"("self_alignment": {"base": 2})", "self_alignment.base must be between -1 and 1");
        row("negative epsilon", R"("self_alignment": {"epsilon": -0.1})", "self_alignment.epsilon must be at least 0");
        row("pairs not a count", R"("self_alignment": {"max_pairs_per_concept": 2.5})",
            "max_pairs_per_concept must be a whole number");
        row("unknown head", R"("encoder": {"projection_head": "mlp"})",
            "encoder.projection_head must be one of linear, layernorm");
        row("head not a string", R"("encoder": {"projection_head": 2})", "encoder.projection_head must be a string");
        row("unknown entity pooling", R"("encoder": {"entity_pooling": "max"})",
            "encoder.entity_pooling must be one of cls");
        row("unknown prototype", R"("prototype": {"radius": 1})", "unknown key \"prototype.radius\"");
        row("unknown contrastive", R"("contrastive": {"tau": 0.1})", "unknown key \"contrastive.tau\"");
        // Wrong types.
        row("epochs string", R"("training": {"epochs": "10"})",
            "training.epochs must be a non-negative integer, not string \"10\"");
        row("lr string", R"("training": {"learning_rate": "1e-5"})",
            "training.learning_rate must be a number, not string");
        row("bool number", R"("encoder": {"homonym_expansion": 1})",
            "encoder.homonym_expansion must be true or false, not number 1");
        row("paper number", R"("paper": 2020)", "paper must be a string, not number 2020");
        row("encoder list", R"("encoder": ["cls"])", "encoder must be an object {...}, not a list");
        row("schedules list", R"("schedules": ["short"])", "schedules must be an object of named schedules");
        row("schedule number", R"("schedules": {"short": 2})",
            "schedules.short must be an object of training keys, not number 2");
        row("choices string", R"("choices": "one")", "choices must be a list of strings, not string");
        row("choices element", R"("choices": ["one", 2])", "choices must be a list of strings; element 2 is number 2");
        row("pooling number", R"("encoder": {"pooling": 0})",
            "encoder.pooling must be a string, one of cls, mean, markers, start-end");
        row("null", R"("seed": null)", "seed must be a non-negative integer, not null");
        // Unknown names.
        row("pooling", R"("encoder": {"pooling": "max"})",
            "encoder.pooling must be one of cls, mean, markers, start-end, not \"max\"");
        row("similarity", R"("encoder": {"similarity": "l2"})",
            "encoder.similarity must be one of dot, cosine, euclidean");
        row("markers", R"("encoder": {"markers": "S/E"})", "encoder.markers must be one of none, belhd, le-nguyen");
        row("optimizer", R"("training": {"optimizer": "sgd"})",
            "training.optimizer must be one of adam, adamw, not \"sgd\"");
        row("schedule optimizer", R"("schedules": {"s": {"optimizer": "Adam"}})",
            "schedules.s.optimizer must be one of adam, adamw");
        row("candidates", R"("biosyn": {"candidates": "tfidf"})",
            "biosyn.candidates must be one of sparse, dense, both");
        row("training set", R"("triplet": {"training_set": "D"})",
            "triplet.training_set must be one of O, OD, not \"D\"");
        row("variant", R"("prototype": {"variant": "srn"})",
            "prototype.variant must be one of prototype-srn, prototype, triplet-all, triplet-downsampled");
        // Out of range.
        row("epochs 0", R"("training": {"epochs": 0})", "training.epochs must be at least 1, not 0");
        row("batch 0", R"("training": {"batch_size": 0})", "training.batch_size must be at least 1");
        row("schedule batch 0", R"("schedules": {"short": {"batch_size": 0}})",
            "schedules.short.batch_size must be at least 1");
        row("schedule window", R"("schedules": {"short": {"max_length": 2}})",
            "schedules.short.max_length must be at least 3, not 2");
        row("paper window", R"("training": {"max_length": 32})", "unknown key \"training.max_length\"");
        row("paper mention alone", R"("training": {"mention_alone": true})", "unknown key \"training.mention_alone\"");
        row("schedule mention alone", R"("schedules": {"s": {"mention_alone": 1}})",
            "schedules.s.mention_alone must be true or false");
        row("context weight above 1", R"("encoder": {"mention_context_weight": 1.5})",
            "encoder.mention_context_weight must be");
        row("schedule context weight", R"("schedules": {"s": {"mention_context_weight": -0.1}})",
            "schedules.s.mention_context_weight must be");
        row("paper context weight", R"("training": {"mention_context_weight": 0.3})",
            "unknown key \"training.mention_context_weight\"");
        row("schedule head size", R"("schedules": {"s": {"projection_dim": -2}})",
            "schedules.s.projection_dim must be");
        row("paper head size", R"("training": {"projection_dim": 64})", "unknown key \"training.projection_dim\"");
        row("schedule first-stage weight", R"("schedules": {"s": {"first_stage_weight": -3}})",
            "schedules.s.first_stage_weight must be");
        row("negative first-stage weight", R"("prototype": {"first_stage_weight": -1})",
            "prototype.first_stage_weight must be");
        row("accumulation 0", R"("training": {"gradient_accumulation": 0})",
            "training.gradient_accumulation must be at least 1");
        row("lr 0", R"("training": {"learning_rate": 0})", "training.learning_rate must be greater than 0, not 0");
        row("lr negative", R"("training": {"learning_rate": -1e-5})", "training.learning_rate must be greater than 0");
        row("weight decay", R"("training": {"weight_decay": -0.01})", "training.weight_decay must be at least 0");
        row("max length", R"("encoder": {"max_length": 2})", "encoder.max_length must be at least 3, not 2");
        row("entity length", R"("encoder": {"entity_max_length": 0})", "encoder.entity_max_length must be at least 3");
        row("top k", R"("biosyn": {"top_k": 0})", "biosyn.top_k must be at least 1");
        row("dense ratio high", R"("biosyn": {"dense_ratio": 1.5})",
            "biosyn.dense_ratio must be between 0 and 1, not 1.5");
        row("dense ratio low", R"("biosyn": {"dense_ratio": -0.1})", "biosyn.dense_ratio must be between 0 and 1");
        row("mention ratio", R"("triplet": {"mention_ratio": 0})", "triplet.mention_ratio must be greater than 0");
        row("sieve threshold", R"("triplet": {"sieve_threshold": 1.01})",
            "triplet.sieve_threshold must be between -1 and 1");
        row("prototype k", R"("prototype": {"candidates": 0})", "prototype.candidates must be at least 1");
        row("margin", R"("prototype": {"margin": -0.5})", "prototype.margin must be at least 0");
        row("radius", R"("prototype": {"radius_init": 0})", "prototype.radius_init must be greater than 0");
        row("epsilon", R"("prototype": {"epsilon": -1})", "prototype.epsilon must be at least 0");
        row("radius lr", R"("prototype": {"radius_learning_rate": -0.01})",
            "prototype.radius_learning_rate must be at least 0");
        row("temperature", R"("contrastive": {"temperature": 0})", "contrastive.temperature must be greater than 0");
        row("beyond double", R"("training": {"learning_rate": 1e999})",
            "not valid JSON: [json.exception.out_of_range.406] number overflow");
        // Integers: neither fractional nor negative nor beyond 64 bits.
        row("fractional epochs", R"("training": {"epochs": 2.5})", "training.epochs must be a whole number, not 2.5");
        row("fractional k", R"("biosyn": {"top_k": 19.9})", "biosyn.top_k must be a whole number");
        row("negative epochs", R"("training": {"epochs": -1})",
            "training.epochs must be a non-negative integer, not -1");
        row("negative patience", R"("schedules": {"short": {"early_stopping_patience": -3}})",
            "schedules.short.early_stopping_patience must be a non-negative integer, not -3");
        row("negative seed", R"("seed": -42)", "seed must be a non-negative integer, not -42");
        row("negative real", R"("contrastive": {"hard_negatives": -4.0})",
            "contrastive.hard_negatives must be a non-negative integer, not -4.0");
        row("too large", R"("seed": 1e30)", "seed is too large");
        row("beyond uint64", R"("seed": 18446744073709551616)", "seed is too large");
    }
    void malformedKey() {
        QFETCH(QString, body);
        QFETCH(QString, fragment);
        const auto file = dir_.write("malformed.json", withMethod(body.toStdString()));
        LINKSCOPE_EXPECT_PARSE_ERROR(TrainingPreset::load(file), file, 0, fragment.toStdString());
    }
};

QTEST_APPLESS_MAIN(TestTrainingPreset)
#include "test_training_preset.moc"
