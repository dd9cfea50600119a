// Corpus statistics: counts by type, composites, CUI-less mentions, relations, duplicates,
// distinct ids, and ids a knowledge base does not know.
#include <set>

#include "corpus/corpus_stats.h"
#include "corpus/pubtator_reader.h"
#include "corpus_fixtures.h"

using namespace linkscope;
using test::FixtureDir;

namespace {
// Text of every document: "Lung cancer. Breast cancer." (27 characters).
constexpr std::string_view kStatsCorpus =
    "1|t|Lung cancer.\n1|a|Breast cancer.\n"
    "1\t0\t11\tLung cancer\tDisease\tD008175\n"
    "1\t13\t26\tBreast cancer\tDisease\tD001943|D010051\tBreast cancer|Breast cancer\n"
    "1\t0\t4\tLung\tChemical\t-1\t\n"
    "1\tCID\tD008175\tD001943\n"
    "\n"
    "2|t|Lung cancer.\n2|a|Breast cancer.\n"
    "2\t0\t11\tLung cancer\tDisease\tD008175+D001943\n"
    "2\t13\t26\tBreast cancer\tDisease\tD001943|-1\n"
    "2\t13\t19\tBreast\tChemical\tOMIM:114480\n"
    "2\tCID\tD008175\tD001943\n"
    "2\tOTHER\tD008175\tD001943\n"
    "\n"
    "1|t|Lung cancer.\n1|a|Breast cancer.\n";  // duplicate of 1 with fewer mentions
}  // namespace

class TestCorpusStats : public QObject {
    Q_OBJECT
    FixtureDir dir_;

private Q_SLOTS:
    void countsEverything() {
        const Corpus corpus = readPubTator(dir_.write("stats.txt", kStatsCorpus));
        const CorpusStats stats = computeCorpusStats(corpus);
        QCOMPARE(stats.documents, std::size_t{2});
        QCOMPARE(stats.mentions, std::size_t{6});
        QCOMPARE(stats.mentionsByType.size(), std::size_t{2});
        QCOMPARE(stats.mentionsByType.at("Disease"), std::size_t{4});
        QCOMPARE(stats.mentionsByType.at("Chemical"), std::size_t{2});
        QCOMPARE(stats.alternativeMentions, std::size_t{2});
        QCOMPARE(stats.conjunctionMentions, std::size_t{1});
        QCOMPARE(stats.cuiLessMentions, std::size_t{1});
        QCOMPARE(stats.mentionsWithCuiLessPart, std::size_t{1});
        QCOMPARE(stats.mentionsWithIndividualMentions, std::size_t{1});  // the trailing TAB does not count
        QCOMPARE(stats.mentionsWithInvalidOffsets, std::size_t{0});
        QCOMPARE(stats.relations, std::size_t{3});
        QCOMPARE(stats.relationsByType.at("CID"), std::size_t{2});
        QCOMPARE(stats.relationsByType.at("OTHER"), std::size_t{1});
        QCOMPARE(stats.duplicateDocuments, std::size_t{1});
        // MESH:D008175, MESH:D001943, MESH:D010051, OMIM:114480
        QCOMPARE(stats.distinctIds, std::size_t{4});
    }

    void countsMentionsKeptByALenientReader() {
        PubTatorOptions lenient;
        lenient.lenient = true;
        const Corpus corpus = readPubTator(
            dir_.write("lenient.txt", "1|t|Lung cancer.\n1|a|x\n1\t0\t4\tLing\tDisease\tD008175\n"), lenient);
        QCOMPARE(computeCorpusStats(corpus).mentionsWithInvalidOffsets, std::size_t{1});
    }

    void emptyCorpus() {
        const CorpusStats stats = computeCorpusStats(Corpus("empty"));
        QCOMPARE(stats.documents, std::size_t{0});
        QCOMPARE(stats.mentions, std::size_t{0});
        QCOMPARE(stats.distinctIds, std::size_t{0});
        QVERIFY(stats.mentionsByType.empty());
    }

    void unknownIds() {
        const Corpus corpus = readPubTator(dir_.write("unknown.txt", kStatsCorpus));
        const std::set<std::string, std::less<>> kb{"MESH:D008175", "MESH:D010051"};
        std::vector<std::string> asked;
        const auto stats = countUnknownIds(corpus, [&](std::string_view id) {
            asked.emplace_back(id);
            return kb.contains(id);
        });
        // mentions 1.2 (D001943), 2.1 (D008175+D001943), 2.2 (D001943|-1), 2.3 (OMIM)
        QCOMPARE(stats.mentionsWithUnknownId, std::size_t{4});
        QCOMPARE(stats.unknownIds, (std::vector<std::string>{"MESH:D001943", "OMIM:114480"}));
        // each id is asked about once, "-1" never
        const std::set<std::string> distinctAsked(asked.begin(), asked.end());
        QCOMPARE(asked.size(), distinctAsked.size());
        QVERIFY(!distinctAsked.contains("-1"));
        QCOMPARE(distinctAsked.size(), std::size_t{4});

        const auto allKnown = countUnknownIds(corpus, [](std::string_view) { return true; });
        QCOMPARE(allKnown.mentionsWithUnknownId, std::size_t{0});
        QVERIFY(allKnown.unknownIds.empty());
    }
};

QTEST_APPLESS_MAIN(TestCorpusStats)
#include "test_corpus_stats.moc"
