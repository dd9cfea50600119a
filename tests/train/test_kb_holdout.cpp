// The validation data of a run without dev set, and what a validation says about the kept
// model: the KB holdout (its size rule, determinism, held-out concepts absent from the training
// pairs, every query's concept still in the dictionary under another name), the verdicts (below
// the sparse linker; training lowered Acc@1 at every epoch; not validated), and run.json's
// "validation" written, read back, and absent from older files. Torch-free.
#include <QTemporaryDir>
#include <QtTest>

#include <algorithm>
#include <filesystem>
#include <set>
#include <string>

#include "eval/dictionary.h"
#include "kb/dictionary_loader.h"
#include "test_data.h"
#include "train/kb_holdout.h"
#include "train/run_directory.h"
#include "train/synonym_pairs.h"
#include "train/training_data.h"
#include "train/training_preset.h"
#include "train/validation_summary.h"
#include "util/error.h"

using namespace linkscope;
namespace fs = std::filesystem;

namespace {

// A MEDIC-style KB of `concepts` concepts: every third has one name, the others two or three;
// every tenth shares a name with the next concept (a homonym, which names no concept alone).
std::string kbText(std::size_t concepts) {
    std::string text;
    for (std::size_t c = 0; c < concepts; ++c) {
        const std::string id = "D" + std::to_string(100000 + c);
        text += id + "||disorder " + std::to_string(c);
        if (c % 3 != 0) text += "|syndrome " + std::to_string(c);
        if (c % 3 == 2) text += "|disease " + std::to_string(c);
        if (c % 10 == 0) text += "|shared " + std::to_string(c / 10);
        if (c % 10 == 1) text += "|shared " + std::to_string(c / 10);
        text += "\n";
    }
    return text;
}

retrieval::NameDictionary plainDictionary(const kb::KnowledgeBase& kb) {
    eval::EvalDictionaryBuilder builder;
    builder.addKnowledgeBase(kb);
    return builder.build().entries;
}

}  // namespace

class TestKbHoldout : public QObject {
    Q_OBJECT
    QTemporaryDir dir_;
    kb::KnowledgeBase kb_;
    retrieval::NameDictionary dictionary_;

private Q_SLOTS:
    void initTestCase() {
        QVERIFY(dir_.isValid());
        const fs::path file = fs::path(dir_.path().toStdString()) / "kb.txt";
        test::writeFile(file, kbText(1500));
        kb_ = kb::loadDictionary(file).kb;
        dictionary_ = plainDictionary(kb_);
    }

    // 2 % of the eligible concepts, at least 50, at most a tenth of them and 2000, at most the
    // schedule's cap; none when fewer than 20 remain.
    void sizeRule() {
        QCOMPARE(train::kbHoldoutSize(0), std::size_t{0});
        QCOMPARE(train::kbHoldoutSize(199), std::size_t{0});  // a tenth is 19
        QCOMPARE(train::kbHoldoutSize(200), std::size_t{20});
        QCOMPARE(train::kbHoldoutSize(400), std::size_t{40});
        QCOMPARE(train::kbHoldoutSize(2500), std::size_t{50});
        QCOMPARE(train::kbHoldoutSize(9667), std::size_t{193});  // MEDIC's concepts with two names or more
        QCOMPARE(train::kbHoldoutSize(4'000'000), std::size_t{2000});
        QCOMPARE(train::kbHoldoutSize(9667, 100), std::size_t{100});
        QCOMPARE(train::kbHoldoutSize(9667, 10), std::size_t{0});
    }

    void drawIsDeterministicAndAsksWithAnOwnName() {
        const auto holdout = train::holdOutConcepts(dictionary_, 42);
        // 1500 concepts: 1000 with two names or more of their own, and 100 with one own name
        // and a shared one.
        QCOMPARE(holdout.eligibleConcepts, std::size_t{1100});
        QCOMPARE(holdout.conceptIds.size(), std::size_t{50});
        QCOMPARE(holdout.queryNames.size(), holdout.conceptIds.size());
        QCOMPARE(train::holdOutConcepts(dictionary_, 42), holdout);
        QVERIFY(!(train::holdOutConcepts(dictionary_, 7) == holdout));
        QCOMPARE(std::set<std::string>(holdout.conceptIds.begin(), holdout.conceptIds.end()).size(),
                 holdout.conceptIds.size());

        const auto filtered = train::withoutQueryNames(dictionary_, holdout);
        QCOMPARE(filtered.size(), dictionary_.size() - holdout.queryNames.size());
        for (std::size_t i = 0; i < holdout.conceptIds.size(); ++i) {
            const std::string& id = holdout.conceptIds[i];
            const std::string& name = holdout.queryNames[i];
            QVERIFY(holdout.holdsConcept(id));
            QVERIFY(holdout.holdsName(name));
            // The query name is an entry of the KB naming this concept alone...
            const auto entry = std::find_if(dictionary_.begin(), dictionary_.end(),
                                            [&](const retrieval::DictionaryEntry& e) { return e.name == name; });
            QVERIFY(entry != dictionary_.end());
            QCOMPARE(entry->ids, std::vector<std::string>{id});
            // ...gone from the dictionary searched, where the concept still has another name.
            QVERIFY(std::none_of(filtered.begin(), filtered.end(),
                                 [&](const retrieval::DictionaryEntry& e) { return e.name == name; }));
            QVERIFY2(std::any_of(filtered.begin(), filtered.end(),
                                 [&](const retrieval::DictionaryEntry& e) {
                                     return std::find(e.ids.begin(), e.ids.end(), id) != e.ids.end();
                                 }),
                     id.c_str());
        }
        QVERIFY(!holdout.holdsConcept("D999999"));

        const auto queries = train::holdoutQueries(holdout);
        QCOMPARE(queries.queries.size(), holdout.conceptIds.size());
        for (std::size_t i = 0; i < queries.queries.size(); ++i) {
            QCOMPARE(queries.queries[i].parts, std::vector<std::string>{holdout.queryNames[i]});
            QCOMPARE(queries.queries[i].goldIds, std::vector<std::string>{holdout.conceptIds[i]});
        }

        // A KB too small to hold 20 concepts out: no holdout, the eligible ones still counted.
        const fs::path small = fs::path(dir_.path().toStdString()) / "small.txt";
        test::writeFile(small, kbText(60));
        const auto none = train::holdOutConcepts(plainDictionary(kb::loadDictionary(small).kb), 42);
        QVERIFY(none.empty());
        QCOMPARE(none.eligibleConcepts, std::size_t{44});
    }

    // The self-alignment's pairs: none of a held-out concept, none with a query name, the
    // other concepts' pairs as without a holdout.
    void heldOutConceptsGiveNoTrainingPair() {
        const auto holdout = train::holdOutConcepts(dictionary_, 42);
        const kb::KnowledgeBase* const kbs[] = {&kb_};
        train::SelfAlignmentSettings settings;
        const auto all = train::buildSynonymPairs(kbs, settings, 42);
        const auto kept = train::buildSynonymPairs(kbs, settings, 42, &holdout);
        QCOMPARE(kept.conceptsHeldOut, holdout.conceptIds.size());
        std::size_t heldOutPairs = 0;
        for (std::size_t i = 0; i < all.pairs.size(); ++i)
            if (holdout.holdsConcept(all.conceptIds[all.pairConcept[i]])) ++heldOutPairs;
        QVERIFY(heldOutPairs >= holdout.conceptIds.size());
        QCOMPARE(kept.pairs.size(), all.pairs.size() - heldOutPairs);
        for (std::size_t i = 0; i < kept.pairs.size(); ++i) {
            QVERIFY(!holdout.holdsConcept(kept.conceptIds[kept.pairConcept[i]]));
            for (const auto name : kept.pairs[i]) QVERIFY(!holdout.holdsName(kept.names[name]));
        }
    }

    // The trainer's data without dev set: the dev queries are the holdout's, the dictionary
    // lacks their names; with a dev corpus nothing is held out.
    void trainingDataHoldsOutWithoutDev() {
        const auto preset = train::findPreset("sapbert", fs::path(LINKSCOPE_SOURCE_DIR) / "models");
        const auto data =
            train::buildTrainingData(preset, preset.training, kb_, nullptr, nullptr, {}, {}, /*holdOut=*/true);
        QCOMPARE(data.holdout, train::holdOutConcepts(dictionary_, preset.seed, preset.training.maxDevMentions));
        QCOMPARE(data.devQueries.queries.size(), data.holdout.conceptIds.size());
        QCOMPARE(data.dictionary.size(), dictionary_.size() - data.holdout.conceptIds.size());
        for (const auto& entry : data.dictionary) QVERIFY(!data.holdout.holdsName(entry.name));
        const auto plain = train::buildTrainingData(preset, preset.training, kb_, nullptr, nullptr, {});
        QVERIFY(plain.holdout.empty());
        QVERIFY(plain.devQueries.queries.empty());
        QCOMPARE(plain.dictionary.size(), dictionary_.size());
    }

    // ---- verdicts --------------------------------------------------------------------------
    void belowTheSparseLinkerWarns() {
        train::ValidationSummary summary;
        summary.source = train::kValidationFromDev;
        summary.queries = 960;
        summary.sparseAcc1 = 0.8792;
        summary.keptAcc1 = 0.7990;
        summary.epochAcc1 = {0.75, 0.799};
        const auto warnings = train::validationWarnings(summary, 0.5);
        QCOMPARE(warnings.size(), std::size_t{1});
        QVERIFY2(warnings[0].find("sparse linker") != std::string::npos, warnings[0].c_str());
        QVERIFY2(warnings[0].find("0.7990 against 0.8792") != std::string::npos, warnings[0].c_str());
        QVERIFY2(warnings[0].find("960 dev mentions") != std::string::npos, warnings[0].c_str());
        // At or above the sparse linker: nothing to say.
        summary.keptAcc1 = 0.8792;
        QVERIFY(train::validationWarnings(summary, 0.5).empty());
        summary.keptAcc1 = 0.9;
        QVERIFY(train::validationWarnings(summary, 0.5).empty());
        // Not measured (an older run): no verdict.
        summary.keptAcc1 = 0.5;
        summary.sparseAcc1 = -1.0;
        QVERIFY(train::validationWarnings(summary, 0.4).empty());
    }

    void trainingThatLoweredEveryEpochWarns() {
        train::ValidationSummary summary;
        summary.source = train::kValidationFromKbHoldout;
        summary.queries = 193;
        summary.sparseAcc1 = 0.5;
        summary.keptAcc1 = 0.6569;
        summary.epochAcc1 = {0.3380, 0.2541};
        auto warnings = train::validationWarnings(summary, 0.6569);
        QCOMPARE(warnings.size(), std::size_t{1});
        QVERIFY2(warnings[0].find("lowered") != std::string::npos, warnings[0].c_str());
        QVERIFY2(warnings[0].find("untrained 0.6569, then 0.3380, 0.2541") != std::string::npos, warnings[0].c_str());
        QVERIFY2(warnings[0].find("untrained one") != std::string::npos, warnings[0].c_str());
        // Both at once, the held-out names named as the data.
        summary.sparseAcc1 = 0.7;
        warnings = train::validationWarnings(summary, 0.6569);
        QCOMPARE(warnings.size(), std::size_t{2});
        QVERIFY2(warnings[0].find("193 held-out KB names") != std::string::npos, warnings[0].c_str());
        // One epoch that held its ground is no loss at every epoch.
        summary.sparseAcc1 = 0.5;
        summary.epochAcc1 = {0.3380, 0.6569};
        QVERIFY(train::validationWarnings(summary, 0.6569).empty());
        // No epoch validated yet: no verdict on the training.
        summary.epochAcc1.clear();
        QVERIFY(train::validationWarnings(summary, 0.6569).empty());
    }

    void notValidatedWarns() {
        train::ValidationSummary summary;
        summary.source = train::kValidationNone;
        summary.eligibleConcepts = 8;
        const auto warnings = train::validationWarnings(summary, -1.0);
        QCOMPARE(warnings.size(), std::size_t{1});
        QVERIFY2(warnings[0].find("not validated") != std::string::npos, warnings[0].c_str());
        QVERIFY2(warnings[0].find("the KB has 8 concepts") != std::string::npos, warnings[0].c_str());
    }

    // ---- run.json --------------------------------------------------------------------------
    void runJsonKeepsTheValidation() {
        const fs::path run = fs::path(dir_.path().toStdString()) / "run";
        train::RunInfo info;
        info.status = "finished";
        info.preset = "sapbert";
        info.bestDevAccuracy = 0.6;
        train::ValidationSummary summary;
        summary.source = train::kValidationFromKbHoldout;
        summary.queries = 50;
        summary.holdoutShare = train::kKbHoldoutShare;
        summary.eligibleConcepts = 1000;
        summary.sparseAcc1 = 0.7;
        summary.keptAcc1 = 0.6;
        summary.epochAcc1 = {0.5, 0.6};
        summary.warnings = train::validationWarnings(summary, 0.4);
        QCOMPARE(summary.warnings.size(), std::size_t{1});
        info.validation = summary;
        train::writeRunInfo(run, info);
        QCOMPARE(train::readRunInfo(run), info);
        summary.source = train::kValidationFromDev;  // a dev validation has no holdout keys
        summary.holdoutShare = 0.0;
        summary.eligibleConcepts = 0;
        info.validation = summary;
        train::writeRunInfo(run, info);
        QVERIFY(test::readFile(train::runInfoFile(run)).find("holdout_share") == std::string::npos);
        QCOMPARE(train::readRunInfo(run), info);

        // A run.json of an older version has none.
        info.validation.reset();
        train::writeRunInfo(run, info);
        QVERIFY(test::readFile(train::runInfoFile(run)).find("\"validation\"") == std::string::npos);
        QVERIFY(!train::readRunInfo(run).validation);

        // What no version wrote is refused, naming the key.
        const std::string written = test::readFile(train::runInfoFile(run));
        const auto withValidation = [&](const std::string& object) {
            std::string text = written;
            text.insert(text.rfind('}'), ",\n  \"validation\": " + object + "\n");
            test::writeFile(train::runInfoFile(run), text);
        };
        const std::string good =
            R"({"source": "dev", "queries": 3, "sparse_acc1": 0.5, "kept_acc1": 0.5, "epoch_acc1": [0.5], "warnings": []})";
        withValidation(good);
        QCOMPARE(train::readRunInfo(run).validation->queries, std::size_t{3});
        for (const auto& [bad, key] : {std::pair<std::string, std::string>{R"({"source": "test"})", "source"},
                                       {R"({"source": "dev", "queries": 3, "sparse_acc1": 2, "kept_acc1": 0.5,
                                           "epoch_acc1": [], "warnings": []})",
                                        "sparse_acc1"},
                                       {R"({"source": "dev", "queries": 3, "sparse_acc1": 0.5, "kept_acc1": 0.5,
                                           "epoch_acc1": ["x"], "warnings": []})",
                                        "epoch_acc1"},
                                       {R"({"source": "dev", "queries": 3, "sparse_acc1": 0.5, "kept_acc1": 0.5,
                                           "epoch_acc1": [], "warnings": [], "extra": 1})",
                                        "extra"},
                                       {R"([1])", "validation"}}) {
            withValidation(bad);
            try {
                (void)train::readRunInfo(run);
                QFAIL(("accepted " + bad).c_str());
            } catch (const Error& e) {
                QVERIFY2(std::string(e.what()).find(key) != std::string::npos, e.what());
            }
        }
    }
};

QTEST_GUILESS_MAIN(TestKbHoldout)
#include "test_kb_holdout.moc"
