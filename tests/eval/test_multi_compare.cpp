// Comparing many runs (eval/multi_compare.h, mention_groups.h, multi_report.h): Holm's
// adjustment against values computed by hand, the McNemar matrix (symmetric, each cell the
// pair's own test), N = 2 against compareRuns, group rows counted by hand, the reader of a
// per-mention file's mention properties with malformed lines, and the JSON / text reports.
#include <nlohmann/json.hpp>

#include "eval/compare.h"
#include "eval/evaluate.h"
#include "eval/mention_groups.h"
#include "eval/multi_compare.h"
#include "eval/multi_report.h"
#include "fixtures.h"
#include "test_data.h"
#include "util/error.h"

using namespace linkscope;
using namespace linkscope::eval;

namespace {

constexpr double kTolerance = 1e-12;  // sums of a few doubles

/// A result over n mentions of document D whose mention i is right at 1 when correct[i] is 1
/// (rank 1), else not found (rank 0).
EvalResult resultOf(const std::vector<int>& correct, const std::string& document = "D") {
    EvalResult result;
    result.depth = kMinimumDepth;
    for (std::size_t i = 0; i < correct.size(); ++i) {
        MentionOutcome mention;
        mention.document = document;
        mention.start = i * 10;
        mention.end = i * 10 + 4;
        mention.rank = correct[i] != 0 ? 1 : 0;
        mention.strictRank = mention.rank;
        result.mentions.push_back(mention);
    }
    return result;
}

/// n mentions: the first `right` correct, the rest wrong.
std::vector<int> firstRight(std::size_t n, std::size_t right) {
    std::vector<int> v(n, 0);
    for (std::size_t i = 0; i < right; ++i) v[i] = 1;
    return v;
}

void compareIntervals(const ConfidenceInterval& x, const ConfidenceInterval& y) {
    QVERIFY(std::abs(x.estimate - y.estimate) < kTolerance);
    QVERIFY(std::abs(x.lower - y.lower) < kTolerance);
    QVERIFY(std::abs(x.upper - y.upper) < kTolerance);
    QCOMPARE(x.resamples, y.resamples);
}

}  // namespace

class TestMultiCompare : public QObject {
    Q_OBJECT
    test::FixtureDir dir_;

private Q_SLOTS:
    void holmByHand() {
        // m = 4, sorted 0.005, 0.01, 0.03, 0.04 times 4, 3, 2, 1 = 0.02, 0.03, 0.06, 0.04; the
        // running maximum makes the last 0.06. Back in input order:
        const std::vector<double> p = {0.01, 0.04, 0.03, 0.005};
        const std::vector<double> expected = {0.03, 0.06, 0.06, 0.02};
        const std::vector<double> adjusted = holmAdjust(p);
        QCOMPARE(adjusted.size(), expected.size());
        for (std::size_t i = 0; i < p.size(); ++i)
            QVERIFY2(std::abs(adjusted[i] - expected[i]) < kTolerance, qPrintable(QString::number(adjusted[i])));
        // Capped at 1: 2 * 0.6 = 1.2 -> 1, and the larger raw p cannot get a smaller adjusted one.
        const std::vector<double> capped = holmAdjust(std::vector<double>{0.7, 0.6});
        QCOMPARE(capped, (std::vector<double>{1.0, 1.0}));
        // One test: unchanged. None: nothing.
        QCOMPARE(holmAdjust(std::vector<double>{0.0123}), std::vector<double>{0.0123});
        QVERIFY(holmAdjust(std::vector<double>{}).empty());
        QVERIFY_THROWS_EXCEPTION(Error, holmAdjust(std::vector<double>{0.5, 1.5}));
        QVERIFY_THROWS_EXCEPTION(Error, holmAdjust(std::vector<double>{std::nan("")}));
    }
    void twoRunsAreCompareRuns() {
        const EvalResult a = resultOf({1, 1, 1, 0, 1, 0, 1, 1, 0, 1, 1, 1});
        const EvalResult b = resultOf({1, 0, 0, 0, 1, 1, 0, 1, 0, 0, 1, 0});
        const std::vector<NamedRun> runs = {{"a", &a}, {"b", &b}};
        const MultiComparison many = compareManyRuns(runs);
        const RunComparison two = compareRuns(a, b);
        QCOMPARE(many.pairs.size(), std::size_t{1});
        const PairComparison& pair = many.pair(0, 1);
        QCOMPARE(pair.mcnemar.onlyA, two.mcnemar.onlyA);
        QCOMPARE(pair.mcnemar.onlyB, two.mcnemar.onlyB);
        QCOMPARE(pair.mcnemar.pValue, two.mcnemar.pValue);
        QCOMPARE(pair.adjustedP, two.mcnemar.pValue);  // Holm with m = 1
        compareIntervals(many.runs[0].accuracy, two.accuracyA);
        compareIntervals(many.runs[1].accuracy, two.accuracyB);
        compareIntervals(pair.difference, two.difference);
        QCOMPARE(many.runs[0].correct, std::size_t{9});
        QCOMPARE(many.runs[1].correct, std::size_t{5});
    }
    void matrixIsSymmetricAndHolmAdjusted() {
        // 200 mentions; run 0 right on 180, run 1 on 120, run 2 on 118, run 3 on 60, each
        // right on a prefix, so run i's right mentions contain run j's when i is better.
        const std::size_t n = 200;
        const std::vector<std::size_t> right = {180, 120, 118, 60};
        std::vector<EvalResult> results;
        for (const std::size_t r : right) results.push_back(resultOf(firstRight(n, r)));
        std::vector<NamedRun> runs;
        for (std::size_t i = 0; i < results.size(); ++i) runs.push_back({"run" + std::to_string(i), &results[i]});
        const MultiComparison c = compareManyRuns(runs);
        QCOMPARE(c.pairs.size(), std::size_t{6});
        std::vector<double> raw;
        for (const PairComparison& pair : c.pairs) {
            QVERIFY(pair.first < pair.second);
            // Nested runs: every discordant mention is one the better run has right.
            QCOMPARE(pair.mcnemar.onlyA, right[pair.first] - right[pair.second]);
            QCOMPARE(pair.mcnemar.onlyB, std::size_t{0});
            const McNemarResult own = mcnemarFromCounts(pair.mcnemar.onlyA, 0);
            QCOMPARE(pair.mcnemar.pValue, own.pValue);
            raw.push_back(pair.mcnemar.pValue);
        }
        const std::vector<double> adjusted = holmAdjust(raw);
        for (std::size_t i = 0; i < 4; ++i) {
            QCOMPARE(c.adjustedP(i, i), 1.0);
            for (std::size_t j = 0; j < 4; ++j) {
                if (i == j) continue;
                QCOMPARE(c.adjustedP(i, j), c.adjustedP(j, i));
                QCOMPARE(&c.pair(i, j), &c.pair(j, i));
                QCOMPARE(c.pair(i, j).first, std::min(i, j));
                QCOMPARE(c.pair(i, j).second, std::max(i, j));
            }
        }
        for (std::size_t p = 0; p < c.pairs.size(); ++p) {
            QCOMPARE(c.pairs[p].adjustedP, adjusted[p]);
            QVERIFY(c.pairs[p].adjustedP >= c.pairs[p].mcnemar.pValue);
            QCOMPARE(c.pairs[p].significant, adjusted[p] < 0.05);
        }
        // Runs 1 and 2 differ on 2 mentions (exact p = 0.5, adjusted 1): not significant; every
        // pair with run 0 or run 3 differs on 60 or more: significant.
        QCOMPARE(c.pair(1, 2).mcnemar.pValue, 0.5);
        QVERIFY(!c.pair(1, 2).significant);
        QVERIFY(c.pair(0, 1).significant);
        QVERIFY(c.pair(2, 3).significant);
        QVERIFY_THROWS_EXCEPTION(Error, c.pair(1, 1));
        QVERIFY_THROWS_EXCEPTION(Error, c.pair(0, 4));
    }
    void groupRowsCountTheirMentions() {
        const EvalResult a = resultOf({1, 1, 0, 0, 1, 1});
        const EvalResult b = resultOf({0, 1, 1, 0, 0, 1});
        const EvalResult c = resultOf({1, 1, 1, 1, 1, 0});
        const std::vector<NamedRun> runs = {{"a", &a}, {"b", &b}, {"c", &c}};
        std::vector<MentionFacts> facts(6);
        for (std::size_t i = 0; i < 6; ++i) {
            facts[i].type = i < 4 ? "Disease" : "Chemical";
            facts[i].seen = i % 2 == 0;
        }
        facts[2].composite = true;
        const std::vector<MentionGroup> groups = mentionGroups(facts);
        // seen, unseen, composite, type Chemical, type Disease: no homonym flags, no expansions.
        QCOMPARE(groups.size(), std::size_t{5});
        QCOMPARE(groups[0].name, std::string("seen"));
        QCOMPARE(groups[0].members, (std::vector<std::uint8_t>{1, 0, 1, 0, 1, 0}));
        QCOMPARE(groups[1].name, std::string("unseen"));
        QCOMPARE(groups[2].name, std::string("composite"));
        QCOMPARE(groups[3].name, std::string("type Chemical"));
        QCOMPARE(groups[4].name, std::string("type Disease"));
        const MultiComparison comparison = compareManyRuns(runs, groups);
        QCOMPARE(comparison.groups.size(), groups.size());
        const GroupRow& seen = comparison.groups[0];  // mentions 0, 2, 4
        QCOMPARE(seen.mentions, std::size_t{3});
        QCOMPARE(seen.correct, (std::vector<std::size_t>{2, 1, 3}));
        QVERIFY(std::abs(seen.accuracy[0].estimate - 2.0 / 3.0) < kTolerance);
        QVERIFY(std::abs(seen.accuracy[2].estimate - 1.0) < kTolerance);
        QVERIFY(seen.accuracy[0].lower <= seen.accuracy[0].estimate &&
                seen.accuracy[0].estimate <= seen.accuracy[0].upper);
        const GroupRow& chemical = comparison.groups[3];  // mentions 4, 5
        QCOMPARE(chemical.correct, (std::vector<std::size_t>{2, 1, 1}));
        QVERIFY(std::abs(chemical.accuracy[1].estimate - 0.5) < kTolerance);
        // A group over another number of mentions is refused.
        const std::vector<MentionGroup> wrong = {{"short", {1, 0}}};
        QVERIFY_THROWS_EXCEPTION(Error, compareManyRuns(runs, wrong));
    }
    void mismatchedRunsAreRefusedByName() {
        const EvalResult a = resultOf({1, 0, 1});
        const EvalResult shorter = resultOf({1, 0});
        const EvalResult other = resultOf({1, 0, 1}, "E");
        try {
            compareManyRuns(std::vector<NamedRun>{{"first", &a}, {"second", &a}, {"third", &shorter}});
            QFAIL("runs of different lengths were compared");
        } catch (const Error& e) {
            QVERIFY2(std::string(e.what()).find("third") != std::string::npos, e.what());
        }
        try {
            compareManyRuns(std::vector<NamedRun>{{"first", &a}, {"other", &other}});
            QFAIL("runs of different mentions were compared");
        } catch (const Error& e) {
            QVERIFY2(std::string(e.what()).find("mention 1") != std::string::npos, e.what());
            QVERIFY2(std::string(e.what()).find("other") != std::string::npos, e.what());
        }
        QVERIFY_THROWS_EXCEPTION(Error, compareManyRuns(std::vector<NamedRun>{{"alone", &a}}));
        QVERIFY_THROWS_EXCEPTION(Error, compareManyRuns(std::vector<NamedRun>{{"a", &a}, {"null", nullptr}}));
    }
    void readsMentionFactsOfAPerMentionFile() {
        const auto file = dir_.write("facts.jsonl",
                                     "{\"document\":\"1\",\"start\":0,\"end\":5,\"type\":\"Disease\",\"seen\":true,"
                                     "\"homonym_affected\":false,\"composite\":true,\"abbreviation_expanded\":false}\n"
                                     "\n"
                                     "{\"document\":\"1\",\"start\":7,\"end\":9,\"type\":\"Chemical\",\"seen\":null,"
                                     "\"homonym_affected\":true,\"abbreviation_expanded\":true}\n");
        const std::vector<MentionFacts> facts = readMentionFacts(file);
        QCOMPARE(facts.size(), std::size_t{2});
        QCOMPARE(facts[0].type, std::string("Disease"));
        QCOMPARE(facts[0].seen, std::optional<bool>(true));
        QCOMPARE(facts[0].homonymAffected, std::optional<bool>(false));
        QVERIFY(facts[0].composite);
        QVERIFY(!facts[0].abbreviationExpanded);
        QVERIFY(!facts[1].seen.has_value());
        QCOMPARE(facts[1].homonymAffected, std::optional<bool>(true));
        QVERIFY(!facts[1].composite);  // absent: false
        QVERIFY(facts[1].abbreviationExpanded);
    }
    void malformedMentionFactsNameFileAndLine() {
        const std::string good = "{\"document\":\"1\",\"start\":0,\"end\":5,\"type\":\"Disease\"}\n";
        const auto notJson = dir_.write("f1.jsonl", good + "{oops\n");
        LINKSCOPE_EXPECT_PARSE_ERROR(readMentionFacts(notJson), notJson, 2, "not valid JSON");
        const auto seen = dir_.write("f2.jsonl", good + good + "{\"seen\":\"yes\"}\n");
        LINKSCOPE_EXPECT_PARSE_ERROR(readMentionFacts(seen), seen, 3, "\"seen\" must be true, false or null");
        const auto type = dir_.write("f3.jsonl", "{\"type\":7}\n");
        LINKSCOPE_EXPECT_PARSE_ERROR(readMentionFacts(type), type, 1, "\"type\" must be a string");
        const auto array = dir_.write("f4.jsonl", "[true]\n");
        LINKSCOPE_EXPECT_PARSE_ERROR(readMentionFacts(array), array, 1, "one JSON object per line");
        const auto empty = dir_.write("f5.jsonl", "\n");
        LINKSCOPE_EXPECT_PARSE_ERROR(readMentionFacts(empty), empty, 0, "no mentions");
        const auto missing = dir_.path("absent.jsonl");
        QVERIFY_THROWS_EXCEPTION(ParseError, readMentionFacts(missing));
    }
    void reportsHoldTheMatrixAndTheGroups() {
        const EvalResult a = resultOf(firstRight(40, 35));
        const EvalResult b = resultOf(firstRight(40, 20));
        const EvalResult c = resultOf(firstRight(40, 19));
        const std::vector<NamedRun> runs = {{"sparse", &a}, {"triplet", &b}, {"belhd", &c}};
        std::vector<MentionFacts> facts(40);
        for (std::size_t i = 0; i < 40; ++i) {
            facts[i].seen = i < 30;
            facts[i].type = "Disease";
        }
        const MultiComparison comparison = compareManyRuns(runs, mentionGroups(facts));
        const nlohmann::json json = nlohmann::json::parse(multiComparisonJson(comparison));
        QCOMPARE(json.at("runs").size(), std::size_t{3});
        QCOMPARE(json.at("runs")[1].at("name").get<std::string>(), std::string("triplet"));
        QCOMPARE(json.at("runs")[0].at("correct").get<std::size_t>(), std::size_t{35});
        QCOMPARE(json.at("pairs").size(), std::size_t{3});
        const auto& matrix = json.at("p_adjusted");
        QCOMPARE(matrix.size(), std::size_t{3});
        for (std::size_t i = 0; i < 3; ++i) {
            QVERIFY(matrix[i][i].is_null());
            for (std::size_t j = 0; j < 3; ++j)
                if (i != j) QCOMPARE(matrix[i][j].get<double>(), comparison.adjustedP(i, j));
        }
        QCOMPARE(json.at("groups").size(), std::size_t{3});  // seen, unseen, type Disease
        QCOMPARE(json.at("groups")[2].at("name").get<std::string>(), std::string("type Disease"));
        QCOMPARE(json.at("groups")[2].at("mentions").get<std::size_t>(), std::size_t{40});
        QCOMPARE(json.at("groups")[0].at("name").get<std::string>(), std::string("seen"));
        QCOMPARE(json.at("groups")[0].at("correct")[0].get<std::size_t>(), std::size_t{30});
        QCOMPARE(json.at("groups")[1].at("correct")[0].get<std::size_t>(), std::size_t{5});
        const std::string text = formatMultiComparison(comparison);
        QVERIFY2(text.find("[1]   sparse") != std::string::npos, text.c_str());
        QVERIFY2(text.find("Holm-adjusted over 3 pairs") != std::string::npos, text.c_str());
        QVERIFY2(text.find("unseen") != std::string::npos, text.c_str());
        // sparse against triplet differs on 15 mentions, all one way: significant, marked.
        QVERIFY(comparison.pair(0, 1).significant);
        QVERIFY(!comparison.pair(1, 2).significant);
        QVERIFY2(text.find('*') != std::string::npos, text.c_str());
    }
};

QTEST_APPLESS_MAIN(TestMultiCompare)
#include "test_multi_compare.moc"
