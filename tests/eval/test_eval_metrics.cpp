// Metrics on small cases computed by hand, ranked by a word-overlap ranker (Jaccard of word
// sets, ties in dictionary order; see eval_test_support.h): k boundaries, composite mentions
// (every part needed), homonyms (lenient vs strict), seen / unseen, per type, recall, the
// homonym-affected breakdown, and a ranking function that misbehaves.
#include "eval/evaluate.h"
#include "eval/homonym_affected.h"
#include "eval_fixtures.h"
#include "eval_test_support.h"
#include "kb/dictionary_loader.h"
#include "test_data.h"
#include "util/error.h"

using namespace linkscope;
using namespace linkscope::eval;
using retrieval::NameDictionary;
using Strings = std::vector<std::string>;

namespace {

EvalQuery query(std::string document, Strings parts, Strings gold, std::string type = "Disease") {
    EvalQuery q;
    q.document = std::move(document);
    q.mention = parts.front();
    q.parts = std::move(parts);
    q.goldIds = std::move(gold);
    q.type = std::move(type);
    q.composite = q.goldIds.size() > 1;
    return q;
}

/// 70 entries "alpha filler<i>" with ids X:<i>: a query "alpha" scores 1/2 against each, so
/// the tie-break puts entry i at rank i + 1.
NameDictionary fillerDictionary() {
    NameDictionary dictionary;
    for (int i = 0; i < 70; ++i) dictionary.push_back({"alpha filler" + std::to_string(i), {"X:" + std::to_string(i)}});
    return dictionary;
}

}  // namespace

class TestEvalMetrics : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void kBoundaries() {
        const NameDictionary dictionary = fillerDictionary();
        const test::WordOverlapRanker ranker(dictionary);
        const std::vector<EvalQuery> queries = {query("1", {"alpha"}, {"X:4"}), query("2", {"alpha"}, {"X:66"})};
        const EvalResult result = evaluate(queries, dictionary, ranker.asRankFn());
        QCOMPARE(result.depth, kMinimumDepth);
        QCOMPARE(result.mentions[0].rank, std::size_t{5});
        QCOMPARE(result.mentions[1].rank, std::size_t{0});  // rank 67 lies beyond depth 64
        QVERIFY(!result.mentions[0].correctAt(4));
        QVERIFY(result.mentions[0].correctAt(5));
        QCOMPARE(result.all.accuracy(4), 0.0);
        QCOMPARE(result.all.accuracy(5), 0.5);
        QCOMPARE(result.all.accuracy(64), 0.5);
        QCOMPARE(result.all.hits.size(), std::size_t{64});
        QCOMPARE(result.all.accuracy(1000), 0.5);  // beyond the depth reads as the depth
        for (const auto& part : result.mentions[0].parts) QCOMPARE(part.candidates.size(), std::size_t{64});

        EvalOptions deeper;
        deeper.k = 100;
        const EvalResult deep = evaluate(queries, dictionary, ranker.asRankFn(), deeper);
        QCOMPARE(deep.depth, std::size_t{100});
        QCOMPARE(deep.mentions[1].rank, std::size_t{67});
        QCOMPARE(deep.all.accuracy(66), 0.5);
        QCOMPARE(deep.all.accuracy(67), 1.0);
        // The ranker returns 70 candidates: every entry there is.
        QCOMPARE(deep.mentions[1].parts[0].candidates.size(), std::size_t{70});

        EvalOptions shallow;
        shallow.k = 5;  // still ranked to 64: acc@k up to 64 is always reported
        QCOMPARE(evaluate(queries, dictionary, ranker.asRankFn(), shallow).depth, kMinimumDepth);
    }

    void compositeNeedsEveryPart() {
        const NameDictionary dictionary = {{"breast cancer", {"B"}}, {"ovarian cancer", {"O"}}, {"cancer", {"N"}}};
        const test::WordOverlapRanker ranker(dictionary);
        // Part 1 "breast cancer": exact entry at rank 1 (B is gold).
        // Part 2 "cancer": "cancer" (N, wrong) at 1, then "breast cancer" and "ovarian cancer"
        // tie at 1/2 and dictionary order puts "breast cancer" (B, gold) at 2.
        const std::vector<EvalQuery> queries = {query("1", {"breast cancer", "cancer"}, {"B", "O"})};
        const EvalResult result = evaluate(queries, dictionary, ranker.asRankFn());
        QCOMPARE(result.parts, std::size_t{2});
        QCOMPARE(result.mentions[0].parts[0].rank, std::size_t{1});
        QCOMPARE(result.mentions[0].parts[1].rank, std::size_t{2});
        QCOMPARE(result.mentions[0].rank, std::size_t{2});
        QCOMPARE(result.all.accuracy(1), 0.0);
        QCOMPARE(result.all.accuracy(2), 1.0);
        // Recall counts gold entities: B found at 1; O first appears at rank 3 of part 2.
        QCOMPARE(result.mentions[0].goldRanks, (std::vector<std::size_t>{1, 3}));
        QCOMPARE(result.all.goldIds, std::size_t{2});
        QCOMPARE(result.all.recall(1), 0.5);
        QCOMPARE(result.all.recall(2), 0.5);
        QCOMPARE(result.all.recall(3), 1.0);

        // A part that never finds a gold entry makes the whole mention wrong at every k.
        const std::vector<EvalQuery> missing = {query("2", {"breast cancer", "melanoma"}, {"B", "M"})};
        const EvalResult none = evaluate(missing, dictionary, ranker.asRankFn());
        QCOMPARE(none.mentions[0].parts[0].rank, std::size_t{1});
        QCOMPARE(none.mentions[0].parts[1].rank, std::size_t{0});
        QCOMPARE(none.mentions[0].rank, std::size_t{0});
        QCOMPARE(none.all.accuracy(64), 0.0);
        QCOMPARE(none.all.recall(64), 0.5);
    }

    void homonymsLenientVersusStrict() {
        const NameDictionary dictionary = {
            {"cold", {"C1", "C2"}}, {"common cold", {"C1"}}, {"cold temperature", {"C2"}}};
        const test::WordOverlapRanker ranker(dictionary);
        const std::vector<EvalQuery> queries = {
            query("1", {"cold"}, {"C1"}),        // homonym entry first, then "common cold" (1/2, index 1)
            query("2", {"cold"}, {"C1", "C2"}),  // a composite whose golds are both entities of "cold"
            query("3", {"cold temperature"}, {"C2"}),
        };
        const EvalResult result = evaluate(queries, dictionary, ranker.asRankFn());
        QCOMPARE(result.mentions[0].rank, std::size_t{1});
        QCOMPARE(result.mentions[0].strictRank, std::size_t{2});
        QCOMPARE(result.mentions[1].strictRank, std::size_t{1});  // every id the entry names is gold
        QCOMPARE(result.mentions[2].strictRank, std::size_t{1});
        QCOMPARE(result.all.accuracy(1), 1.0);
        QCOMPARE(result.all.strictAccuracy(1), 2.0 / 3.0);
        QCOMPARE(result.all.strictAccuracy(2), 1.0);

        QVERIFY(idsMatch(Strings{"C1", "C2"}, Strings{"C2"}));
        QVERIFY(!idsMatchStrictly(Strings{"C1", "C2"}, Strings{"C2"}));
        QVERIFY(idsMatchStrictly(Strings{"C2"}, Strings{"C2", "C3"}));
        QVERIFY(!idsMatch(Strings{}, Strings{"C2"}));
        QVERIFY(!idsMatchStrictly(Strings{}, Strings{}));
    }

    void seenUnseenAndTypes() {
        const NameDictionary dictionary = {{"breast cancer", {"B"}}, {"ovarian cancer", {"O"}}, {"melanoma", {"M"}}};
        const test::WordOverlapRanker ranker(dictionary);
        const std::vector<EvalQuery> queries = {
            query("1", {"breast cancer"}, {"B"}, "SpecificDisease"),                  // seen, right
            query("1", {"ovarian cancer"}, {"O"}, "SpecificDisease"),                 // unseen, right
            query("2", {"breast cancer", "ovarian cancer"}, {"B", "O"}, "Modifier"),  // unseen (O), right
            query("2", {"skin tumour"}, {"M"}, "DiseaseClass"),                       // seen, wrong
        };
        EvalOptions options;
        options.trainingIds = std::unordered_set<std::string>{"B", "M"};
        const EvalResult result = evaluate(queries, dictionary, ranker.asRankFn(), options);
        QVERIFY(result.seen && result.unseen);
        QCOMPARE(result.seen->mentions, std::size_t{2});
        QCOMPARE(result.unseen->mentions, std::size_t{2});
        QCOMPARE(result.seen->accuracy(1), 0.5);
        QCOMPARE(result.unseen->accuracy(1), 1.0);
        QCOMPARE(*result.mentions[0].seen, true);
        QCOMPARE(*result.mentions[2].seen, false);

        QCOMPARE(result.byType.size(), std::size_t{3});
        QCOMPARE(result.byType.at("SpecificDisease").mentions, std::size_t{2});
        QCOMPARE(result.byType.at("SpecificDisease").accuracy(1), 1.0);
        QCOMPARE(result.byType.at("Modifier").accuracy(1), 1.0);
        QCOMPARE(result.byType.at("DiseaseClass").accuracy(64), 0.0);
        QCOMPARE(result.all.accuracy(1), 0.75);

        // Without training ids there is no seen/unseen breakdown, nor homonym groups unmarked.
        const EvalResult plain = evaluate(queries, dictionary, ranker.asRankFn());
        QVERIFY(!plain.seen && !plain.unseen);
        QVERIFY(!plain.homonymAffected);
        QVERIFY(!plain.mentions[0].seen.has_value());
    }

    void homonymAffectedMentions() {
        QTemporaryDir dir;
        const auto kbFile = std::filesystem::path(dir.path().toStdString()) / "kb.txt";
        test::writeFile(kbFile, test::kFixtureKb);
        const auto kb = kb::loadDictionary(kbFile).kb;

        std::vector<EvalQuery> queries = {
            query("1", {"cold"}, {"MESH:D003139"}),         // "COLD" is a homonym name of its gold
            query("1", {"common cold"}, {"MESH:D003139"}),  // similar to "Cold" only at 2*4/14
            query("1", {"breast cancer"}, {"MESH:D001943"}),
        };
        queries[0].mention = "COLD";
        queries[1].mention = "Common-cold";
        QCOMPARE(markHomonymAffected(queries, kb), std::size_t{1});
        QCOMPARE(*queries[0].homonymAffected, true);
        QCOMPARE(*queries[1].homonymAffected, false);
        QCOMPARE(*queries[2].homonymAffected, false);

        HomonymAffectedOptions loose;
        loose.minSimilarity = 0.5;
        QCOMPARE(markHomonymAffected(queries, kb, loose), std::size_t{2});

        const NameDictionary dictionary = {{"cold", {"MESH:D003139", "MESH:D003080"}},
                                           {"breast cancer", {"MESH:D001943"}}};
        const test::WordOverlapRanker ranker(dictionary);
        const EvalResult result = evaluate(queries, dictionary, ranker.asRankFn());
        QVERIFY(result.homonymAffected && result.notHomonymAffected);
        QCOMPARE(result.homonymAffected->mentions, std::size_t{2});
        QCOMPARE(result.notHomonymAffected->mentions, std::size_t{1});
        QCOMPARE(result.homonymAffected->strictAccuracy(64), 0.0);

        QCOMPARE(homonymMatchKey("Huntington's Chorea, Type-2"), std::string("huntingtonschoreatype2"));
        QCOMPARE(homonymMatchKey("Sjögren SYNDROME"), std::string("sjögrensyndrome"));
        QCOMPARE(indelSimilarity("abc", "abd"), 2.0 * 2.0 / 6.0);
        QCOMPARE(indelSimilarity("", ""), 1.0);
        QCOMPARE(indelSimilarity("abc", ""), 0.0);
        QCOMPARE(indelSimilarity("ö", "o"), 0.0);  // code points, not bytes
    }

    void homonymsOnExactStringsOrMatchKeys() {
        QTemporaryDir dir;
        const auto kbFile = std::filesystem::path(dir.path().toStdString()) / "kb.txt";
        test::writeFile(kbFile, "D000001||Cold\nD000002||COLD\n");
        const auto kb = kb::loadDictionary(kbFile).kb;
        std::vector<EvalQuery> queries = {query("1", {"cold"}, {"MESH:D000001"})};
        QCOMPARE(markHomonymAffected(queries, kb), std::size_t{0});  // two different KB strings
        HomonymAffectedOptions keys;
        keys.homonymsOnMatchKeys = true;
        QCOMPARE(markHomonymAffected(queries, kb, keys), std::size_t{1});  // one BELHD key, "cold"
    }

    void misbehavingRankerIsAnError() {
        const NameDictionary dictionary = {{"alpha", {"A"}}};
        const std::vector<EvalQuery> queries = {query("1", {"alpha"}, {"A"}), query("2", {"beta"}, {"A"})};
        const RankFn tooFew = [](std::span<const std::string>, std::size_t) {
            return std::vector<std::vector<retrieval::Candidate>>(1);
        };
        QVERIFY_THROWS_EXCEPTION(Error, evaluate(queries, dictionary, tooFew));
        const RankFn outside = [](std::span<const std::string> texts, std::size_t) {
            const std::vector<retrieval::Candidate> bad = {retrieval::Candidate{7, 1.0f}};
            return std::vector<std::vector<retrieval::Candidate>>(texts.size(), bad);
        };
        try {
            evaluate(queries, dictionary, outside);
            QFAIL("expected Error");
        } catch (const Error& e) {
            QVERIFY(std::string(e.what()).find("entry 7") != std::string::npos);
        }
        QVERIFY_THROWS_EXCEPTION(Error, evaluate(queries, dictionary, RankFn{}));
        std::vector<EvalQuery> partless = queries;
        partless[1].parts.clear();
        const test::WordOverlapRanker ranker(dictionary);
        QVERIFY_THROWS_EXCEPTION(Error, evaluate(partless, dictionary, ranker.asRankFn()));
    }

    void overlongRankingsAreCut() {
        const NameDictionary dictionary = fillerDictionary();
        // Returns every entry in reverse order, ignoring k.
        const RankFn everything = [&](std::span<const std::string> texts, std::size_t) {
            std::vector<retrieval::Candidate> all;
            for (std::uint32_t i = 70; i-- > 0;) all.push_back({i, 1.0f});
            return std::vector<std::vector<retrieval::Candidate>>(texts.size(), all);
        };
        const EvalResult result =
            evaluate(std::vector<EvalQuery>{query("1", {"alpha"}, {"X:69"})}, dictionary, everything);
        QCOMPARE(result.mentions[0].parts[0].candidates.size(), kMinimumDepth);
        QCOMPARE(result.mentions[0].rank, std::size_t{1});
    }

    void emptyEvaluation() {
        const NameDictionary dictionary = fillerDictionary();
        const test::WordOverlapRanker ranker(dictionary);
        const EvalResult result = evaluate(std::vector<EvalQuery>{}, dictionary, ranker.asRankFn());
        QCOMPARE(result.all.mentions, std::size_t{0});
        QCOMPARE(result.all.accuracy(1), 0.0);
        QCOMPARE(result.all.recall(1), 0.0);
        QVERIFY(result.byType.empty());
    }

    void batchesProgressAndCancellation() {
        const NameDictionary dictionary = fillerDictionary();
        const test::WordOverlapRanker ranker(dictionary);
        std::vector<EvalQuery> queries;
        for (int i = 0; i < 10; ++i) queries.push_back(query(std::to_string(i), {"alpha"}, {"X:" + std::to_string(i)}));
        std::size_t calls = 0;
        std::vector<double> fractions;
        EvalOptions options;
        options.batchSize = 3;
        options.progress.report = [&](std::string_view, double fraction) { fractions.push_back(fraction); };
        const RankFn counting = [&](std::span<const std::string> texts, std::size_t k) {
            ++calls;
            return ranker(texts, k);
        };
        const EvalResult result = evaluate(queries, dictionary, counting, options);
        QCOMPARE(calls, std::size_t{4});
        // Said at once (0), then after each batch.
        QCOMPARE(fractions.size(), std::size_t{5});
        QCOMPARE(fractions.front(), 0.0);
        QCOMPARE(fractions.back(), 1.0);
        // Query i has its gold at rank i + 1, whatever the batching.
        for (std::size_t i = 0; i < 10; ++i) QCOMPARE(result.mentions[i].rank, i + 1);
        QCOMPARE(result.all.accuracy(5), 0.5);

        options.progress.cancelled = [&] { return calls >= 2; };
        calls = 0;
        QVERIFY_THROWS_EXCEPTION(Cancelled, evaluate(queries, dictionary, counting, options));
        QCOMPARE(calls, std::size_t{2});
    }

    void correctnessVector() {
        const NameDictionary dictionary = fillerDictionary();
        const test::WordOverlapRanker ranker(dictionary);
        const std::vector<EvalQuery> queries = {query("1", {"alpha"}, {"X:0"}), query("2", {"alpha"}, {"X:2"})};
        const EvalResult result = evaluate(queries, dictionary, ranker.asRankFn());
        QCOMPARE(correctness(result, 1), (std::vector<std::uint8_t>{1, 0}));
        QCOMPARE(correctness(result, 3), (std::vector<std::uint8_t>{1, 1}));
    }
};

QTEST_APPLESS_MAIN(TestEvalMetrics)
#include "test_eval_metrics.moc"
