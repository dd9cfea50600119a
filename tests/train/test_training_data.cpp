// The torch-free parts of the training data: SapBERT's synonym pairs from one or more
// vocabularies, the schedule's cap applied by whole documents, the objectives' candidate rules
// (BELHD's sharing and gold injection, Le & Nguyen's groups and negatives), and the collapse
// check every validation runs.
#include <QtTest>

#include <cmath>
#include <filesystem>
#include <set>

#include "eval/evaluate.h"
#include "kb/dictionary_loader.h"
#include "test_data.h"
#include "train/candidate_rows.h"
#include "train/collapse_check.h"
#include "train/synonym_pairs.h"
#include "train/training_data.h"
#include "util/error.h"

using namespace linkscope;
namespace fs = std::filesystem;

namespace {

constexpr double kTolerance = 1e-9;

kb::KnowledgeBase dictionaryKb(const fs::path& file, const std::string& text) {
    test::writeFile(file, text);
    return kb::loadDictionary(file).kb;
}

std::set<std::pair<std::string, std::string>> namedPairs(const train::SynonymPairs& pairs) {
    std::set<std::pair<std::string, std::string>> out;
    for (std::size_t i = 0; i < pairs.pairs.size(); ++i)
        out.emplace(pairs.conceptIds[pairs.pairConcept[i]] + ":" + pairs.names[pairs.pairs[i][0]],
                    pairs.names[pairs.pairs[i][1]]);
    return out;
}

train::TrainingMention mentionIn(std::uint32_t document) {
    train::TrainingMention mention;
    mention.document = document;
    return mention;
}

}  // namespace

class TestTrainingData : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void init() { QVERIFY(dir_.isValid()); }

    // ---- synonym pairs ---------------------------------------------------------------------
    void pairsEveryTwoNamesOfAConcept() {
        const fs::path dir = dir_.path().toStdString();
        // D1 has three names (three pairs), D2 one (a pair with itself), D3 two names that
        // normalize to one ("Fever" and "fever,"): one name, so a self pair too.
        const auto kb = dictionaryKb(
            dir / "a.txt", "D000001||Heart attack|myocardial infarction|MI\nD000002||fever\nD000003||Fever|fever,\n");
        const kb::KnowledgeBase* kbs[] = {&kb};
        train::SelfAlignmentSettings settings;
        const auto pairs = train::buildSynonymPairs(kbs, settings, 1);
        QCOMPARE(pairs.conceptsWithSynonyms, std::size_t{1});
        QCOMPARE(pairs.pairsAvailable, std::size_t{3});
        const auto named = namedPairs(pairs);
        QVERIFY(named.count({"MESH:D000001:heart attack", "myocardial infarction"}));
        QVERIFY(named.count({"MESH:D000001:heart attack", "mi"}));
        QVERIFY(named.count({"MESH:D000001:myocardial infarction", "mi"}));
        // "fever" is a name of D2 and D3: one dictionary entry with both ids, a self pair of each.
        QVERIFY(named.count({"MESH:D000002:fever", "fever"}));
        QVERIFY(named.count({"MESH:D000003:fever", "fever"}));
        QCOMPARE(pairs.pairs.size(), std::size_t{5});

        settings.singleNamePairs = false;
        QCOMPARE(train::buildSynonymPairs(kbs, settings, 1).pairs.size(), std::size_t{3});
        // The cap draws that many of a concept's pairs, the same ones for the same seed.
        settings.maxPairsPerConcept = 2;
        const auto capped = train::buildSynonymPairs(kbs, settings, 5);
        QCOMPARE(capped.pairs.size(), std::size_t{2});
        QCOMPARE(capped.pairsAvailable, std::size_t{3});
        QCOMPARE(namedPairs(train::buildSynonymPairs(kbs, settings, 5)), namedPairs(capped));
    }

    // A concept id in two vocabularies gathers the names of both (MEDIC and CTD share MeSH ids).
    void pairsAcrossVocabularies() {
        const fs::path dir = dir_.path().toStdString();
        const auto medic = dictionaryKb(dir / "medic.txt", "D000001||stroke\nD000002||fever\n");
        const auto other = dictionaryKb(dir / "other.txt", "D000001||apoplexy\n");
        const kb::KnowledgeBase* kbs[] = {&medic, &other};
        train::SelfAlignmentSettings settings;
        settings.singleNamePairs = false;
        const auto pairs = train::buildSynonymPairs(kbs, settings, 1);
        QCOMPARE(pairs.pairs.size(), std::size_t{1});
        QCOMPARE(*namedPairs(pairs).begin(),
                 std::make_pair(std::string("MESH:D000001:stroke"), std::string("apoplexy")));
        // Nothing to pair: a clear error, not an empty epoch.
        const kb::KnowledgeBase* single[] = {&medic};
        QVERIFY_THROWS_EXCEPTION(Error, train::buildSynonymPairs(single, settings, 1));
        QVERIFY_THROWS_EXCEPTION(Error, train::buildSynonymPairs({}, settings, 1));
    }

    // ---- the cap by documents --------------------------------------------------------------
    void capKeepsWholeDocuments() {
        // Documents 0..9 with 1..10 mentions (55 in all), interleaved as a corpus has them.
        std::vector<train::TrainingMention> mentions;
        for (std::uint32_t d = 0; d < 10; ++d)
            for (std::uint32_t m = 0; m <= d; ++m) mentions.push_back(mentionIn(d));
        for (const std::size_t cap : {std::size_t{1}, std::size_t{7}, std::size_t{20}, std::size_t{54}}) {
            const auto kept = train::sampleByDocument(mentions, cap, 42);
            QVERIFY2(kept.size() <= cap, qPrintable(QString::number(kept.size())));
            QVERIFY(!kept.empty());
            QVERIFY(std::is_sorted(kept.begin(), kept.end()));
            // Every document is in whole or not at all.
            std::map<std::uint32_t, std::size_t> perDocument;
            for (const auto index : kept) ++perDocument[mentions[index].document];
            for (const auto& [document, count] : perDocument) QCOMPARE(count, std::size_t{document + 1});
            QCOMPARE(train::sampleByDocument(mentions, cap, 42), kept);  // seeded
        }
        // The draw depends on the seed; no cap or a cap above the count keeps everything.
        QVERIFY(train::sampleByDocument(mentions, 20, 1) != train::sampleByDocument(mentions, 20, 2));
        QCOMPARE(train::sampleByDocument(mentions, 0, 1).size(), mentions.size());
        QCOMPARE(train::sampleByDocument(mentions, 55, 1).size(), mentions.size());
        // No document fits a cap of 0 < cap < its size: the first drawn comes alone.
        std::vector<train::TrainingMention> big(5, mentionIn(3));
        QCOMPARE(train::sampleByDocument(big, 2, 1).size(), std::size_t{5});
    }

    // ---- candidate rows ----------------------------------------------------------------------
    // BELHD's sharing: mention 0 of document 7 keeps its own top 2 (10, 11), takes the 2 entries
    // its document's other mention offers that score highest for it (of 20, 21 and its own 11,
    // already taken), skips mention 2 of another document, and fills from its own list.
    void sharedRowTakesOwnThenTheDocumentsBest() {
        const std::vector<std::vector<std::uint32_t>> dense = {{10, 11, 12, 13}, {20, 11, 21, 22}, {30, 31, 32, 33}};
        const std::vector<std::uint32_t> documents = {7, 7, 8};
        const auto score = [](std::uint32_t entry) { return entry == 20 ? 0.9f : entry == 21 ? 0.5f : 0.1f; };
        // own 2, shared 2: the other mention offers its first 2 (20, 11): 11 is taken, so 20.
        QCOMPARE(train::sharedCandidateRow(0, dense, documents, 2, 2, score),
                 (std::vector<std::uint32_t>{10, 11, 20, 12}));
        // own 3: the other offers 20, 11, 21; shared 2 takes the two best (20, 21), none from doc 8.
        QCOMPARE(train::sharedCandidateRow(0, dense, documents, 3, 2, score),
                 (std::vector<std::uint32_t>{10, 11, 12, 20, 21}));
        // Alone in its document: its own candidates fill the row.
        QCOMPARE(train::sharedCandidateRow(2, dense, documents, 2, 2, score),
                 (std::vector<std::uint32_t>{30, 31, 32, 33}));
    }

    void goldIsInjectedOnlyWhenMissing() {
        const auto positive = [](std::uint32_t entry) { return entry >= 100; };
        const auto score = [](std::uint32_t entry) { return entry == 102 ? 2.0f : 1.0f; };
        std::vector<std::uint32_t> row = {1, 2, 3};
        QVERIFY(train::injectGold(row, positive, std::vector<std::uint32_t>{101, 102, 103}, score));
        QCOMPARE(row, (std::vector<std::uint32_t>{1, 2, 102}));  // the best-scored gold name, last place
        QVERIFY(!train::injectGold(row, positive, std::vector<std::uint32_t>{101}, score));  // holds a gold now
        std::vector<std::uint32_t> withGold = {101, 2, 3};
        QVERIFY(!train::injectGold(withGold, positive, std::vector<std::uint32_t>{102}, score));
        QCOMPARE(withGold, (std::vector<std::uint32_t>{101, 2, 3}));
    }

    void groupsAreDocumentAndEntity() {
        std::vector<train::TrainingMention> mentions(6);
        const std::uint32_t documents[] = {0, 0, 0, 1, 0, 1};
        const std::vector<std::uint32_t> gold[] = {{5}, {6}, {5}, {5}, {5, 6}, {5}};
        for (std::size_t m = 0; m < mentions.size(); ++m) {
            mentions[m].document = documents[m];
            mentions[m].gold = gold[m];
        }
        const auto groups = train::groupByDocumentEntity(mentions);
        QCOMPARE(groups.size(), std::size_t{3});  // (0, 5), (0, 6), (1, 5); the composite left out
        QCOMPARE(groups[0].entity, 5u);
        QCOMPARE(groups[0].mentions, (std::vector<std::size_t>{0, 2}));
        QCOMPARE(groups[1].mentions, (std::vector<std::size_t>{1}));
        QCOMPARE(groups[2].mentions, (std::vector<std::size_t>{3, 5}));
    }

    // The prototype's negatives: the candidates of the cluster's mentions that are not its gold,
    // nearest first, each once; with none, every row of the table.
    void negativesAreTheNearestNonGoldCandidates() {
        const std::vector<std::vector<std::uint32_t>> candidateRows = {{0, 1, 2}, {2, 3}, {4}};
        const std::uint32_t entityOfRow[] = {50, 51, 52, 53, 50};
        const auto entityOf = [&](std::uint32_t row) { return entityOfRow[row]; };
        const float distances[] = {0.1f, 0.4f, 0.2f, 0.3f, 0.0f};
        const auto distance = [&](std::uint32_t row) { return distances[row]; };
        const std::size_t cluster[] = {0, 1};
        QCOMPARE(train::shortlistNegatives(cluster, candidateRows, entityOf, 5, 50, distance, 8),
                 (std::vector<std::uint32_t>{52, 53, 51}));
        QCOMPARE(train::shortlistNegatives(cluster, candidateRows, entityOf, 5, 50, distance, 1),
                 (std::vector<std::uint32_t>{52}));
        // Mention 2's only candidate is its gold: the whole table is searched.
        const std::size_t alone[] = {2};
        QCOMPARE(train::shortlistNegatives(alone, candidateRows, entityOf, 5, 50, distance, 2),
                 (std::vector<std::uint32_t>{52, 53}));
    }

    // ---- collapse ------------------------------------------------------------------------
    void meanPairwiseCosine() {
        // Three rows: two equal, one orthogonal: cosines 1, 0, 0 -> mean 1/3.
        const std::vector<float> rows = {1, 0, 2, 0, 0, 3};
        QVERIFY(std::abs(train::meanPairwiseCosine(rows, 2) - 1.0 / 3.0) < kTolerance);
        const std::vector<float> same = {1, 1, 2, 2, 3, 3, 0.5f, 0.5f};
        QVERIFY(std::abs(train::meanPairwiseCosine(same, 2) - 1.0) < 1e-6);
        const std::vector<float> opposite = {1, 0, -1, 0};
        QVERIFY(std::abs(train::meanPairwiseCosine(opposite, 2) + 1.0) < kTolerance);
        QVERIFY(std::isnan(train::meanPairwiseCosine(std::vector<float>{1, 0}, 2)));
        QVERIFY_THROWS_EXCEPTION(Error, train::meanPairwiseCosine(std::vector<float>{1, 0, 1}, 2));
    }

    void collapseIsOneAnswerForEveryMention() {
        // A dictionary of 10 entities and 10 queries, one per entity.
        retrieval::NameDictionary dictionary;
        std::vector<eval::EvalQuery> queries;
        for (int e = 0; e < 10; ++e) {
            dictionary.push_back({"name" + std::to_string(e), {"E" + std::to_string(e)}});
            eval::EvalQuery query;
            query.parts = {"q"};
            query.goldIds = {"E" + std::to_string(e)};
            queries.push_back(query);
        }
        const auto resultAnswering = [&](auto answerOf) {
            eval::EvalResult result;
            for (int q = 0; q < 10; ++q) {
                eval::MentionOutcome mention;
                eval::PartOutcome part;
                part.candidates.push_back({static_cast<std::uint32_t>(answerOf(q)), 1.0f});
                mention.parts.push_back(part);
                result.mentions.push_back(mention);
            }
            return result;
        };
        const std::vector<float> spread = {1, 0, 0, 1, -1, 0, 0, -1, 1, 1, 1, -1, -1, 1, -1, -1, 2, 1, 1, 2};
        // Every entity answered: fine.
        const auto fine =
            train::checkCollapse(resultAnswering([](int q) { return q; }), queries, dictionary, spread, 2);
        QCOMPARE(fine.distinctTop1, std::size_t{10});
        QCOMPARE(fine.goldEntities, std::size_t{10});
        QVERIFY(!fine.collapsed());
        QVERIFY(fine.warning().empty());
        // One entity for every mention (BELHD's failure): collapsed, and the warning says so.
        const auto one = train::checkCollapse(resultAnswering([](int) { return 3; }), queries, dictionary, spread, 2);
        QCOMPARE(one.distinctTop1, std::size_t{1});
        QVERIFY(one.fewAnswers());
        QVERIFY(one.collapsed());
        QVERIFY(one.warning().find("1 distinct entity at rank 1 for 10 dev mentions of 10 gold entities") !=
                std::string::npos);
        // Two answers for ten entities is still at the 0.2 share (not below): not collapsed.
        QVERIFY(!train::checkCollapse(resultAnswering([](int q) { return q % 2; }), queries, dictionary, spread, 2)
                     .fewAnswers());
        // Identical mention vectors, however the answers spread: collapsed.
        const std::vector<float> identical(20, 0.5f);
        const auto same =
            train::checkCollapse(resultAnswering([](int q) { return q; }), queries, dictionary, identical, 2);
        QVERIFY(same.identicalVectors());
        QVERIFY(same.warning().find("identical") != std::string::npos);
        // Nearly equal is not identical: a random BERT's [CLS] vectors sit at about 0.99999.
        std::vector<float> near(20, 0.5f);
        for (std::size_t i = 0; i < near.size(); i += 2) near[i] += 0.0005f * float(i % 7);
        const auto nearly =
            train::checkCollapse(resultAnswering([](int q) { return q; }), queries, dictionary, near, 2);
        QVERIFY(nearly.meanCosine > 0.9999);
        QVERIFY(!nearly.identicalVectors());
    }

private:
    QTemporaryDir dir_;
};

QTEST_APPLESS_MAIN(TestTrainingData)
#include "test_training_data.moc"
