// Reports: the JSON report's keys and values (against the metrics they come from), the table,
// the per-mention JSON Lines file (one line per mention, predictions with names, ids and scores),
// comparisons, atomic writing and inconsistent input.
#include <nlohmann/json.hpp>

#include <fstream>

#include "eval/compare.h"
#include "eval/evaluate.h"
#include "eval/report.h"
#include "eval_test_support.h"
#include "test_data.h"
#include "util/error.h"

using namespace linkscope;
using namespace linkscope::eval;
using nlohmann::json;
using retrieval::NameDictionary;
using Strings = std::vector<std::string>;

namespace {

EvalQuery query(std::string document, std::size_t start, Strings parts, Strings gold, std::string type) {
    EvalQuery q;
    q.document = std::move(document);
    q.start = start;
    q.end = start + 10;
    q.mention = parts.front();
    q.expanded = q.mention;
    q.parts = std::move(parts);
    q.goldIds = std::move(gold);
    q.type = std::move(type);
    q.idColumn = "ids";
    return q;
}

}  // namespace

class TestEvalReport : public QObject {
    Q_OBJECT

    QTemporaryDir dir_;
    NameDictionary dictionary_ = {{"cold", {"C1", "C2"}},
                                  {"common cold", {"C1"}},
                                  {"breast cancer", {"B"}},
                                  {"ovarian cancer", {"O"}},
                                  {"cancer", {"N"}}};
    std::vector<EvalQuery> queries_ = {
        query("1", 0, {"cold"}, {"C1"}, "Disease"),                           // lenient 1, strict 2
        query("1", 20, {"breast cancer", "cancer"}, {"B", "O"}, "Modifier"),  // rank 2
        query("2", 0, {"melanoma"}, {"M"}, "Disease"),                        // never
    };

    std::filesystem::path file(const char* name) const {
        return std::filesystem::path(dir_.path().toStdString()) / name;
    }

    EvalResult run() const {
        const test::WordOverlapRanker ranker(dictionary_);
        EvalOptions options;
        options.trainingIds = std::unordered_set<std::string>{"C1"};
        QuerySet set{queries_, {}};
        set.statistics.queries = 3;
        set.statistics.cuiLessDropped = 4;
        return evaluate(set, dictionary_, ranker.asRankFn(), options);
    }

private Q_SLOTS:
    void jsonReportHoldsTheMetrics() {
        const EvalResult result = run();
        ReportOptions options;
        options.extra["ranker"] = "word overlap";
        const json report = json::parse(reportJson(result, options));
        for (const char* key : {"acc@1", "acc@5", "mentions", "seconds", "acc@k", "recall@k", "strict", "per_type",
                                "seen", "unseen", "homonym_affected", "queries", "depth", "parts", "ranker"})
            QVERIFY2(report.contains(key), key);
        QCOMPARE(report["mentions"].get<std::size_t>(), std::size_t{3});
        QCOMPARE(report["parts"].get<std::size_t>(), std::size_t{4});
        QCOMPARE(report["acc@1"].get<double>(), 1.0 / 3.0);
        QCOMPARE(report["acc@5"].get<double>(), 2.0 / 3.0);
        QCOMPARE(report["correct@1"].get<std::size_t>(), std::size_t{1});
        QCOMPARE(report["acc@k"].size(), std::size_t{64});
        QCOMPARE(report["acc@k"][1].get<double>(), 2.0 / 3.0);  // acc@2
        QCOMPARE(report["strict"]["acc@1"].get<double>(), 0.0);
        QCOMPARE(report["strict"]["acc@k"][1].get<double>(), 2.0 / 3.0);
        QCOMPARE(report["per_type"]["Disease"]["mentions"].get<std::size_t>(), std::size_t{2});
        QCOMPARE(report["per_type"]["Modifier"]["acc@5"].get<double>(), 1.0);
        QCOMPARE(report["seen"]["mentions"].get<std::size_t>(), std::size_t{1});
        QCOMPARE(report["unseen"]["mentions"].get<std::size_t>(), std::size_t{2});
        QVERIFY(report["homonym_affected"].is_null());  // the queries were not marked
        QCOMPARE(report["queries"]["cuiless_dropped"].get<std::size_t>(), std::size_t{4});
        QCOMPARE(report["ranker"].get<std::string>(), std::string("word overlap"));
        QCOMPARE(report["gold_ids"].get<std::size_t>(), std::size_t{4});
        QCOMPARE(report["recall@k"][0].get<double>(), result.all.recall(1));

        writeJsonReport(file("report.json"), result, options);
        QCOMPARE(json::parse(test::readFile(file("report.json"))), report);
    }

    void tableShowsEveryGroup() {
        const std::string table = formatTable(run());
        for (const char* row : {"all ", "type Disease", "type Modifier", "seen in training", "unseen in training",
                                "recall@k over 4 gold ids", "dropped 4 CUI-less", "3 mentions, 4 query parts"})
            QVERIFY2(table.find(row) != std::string::npos, row);
        QVERIFY(table.find("0.3333") != std::string::npos);  // acc@1 of all
    }

    void perMentionFileHasOneLinePerMention() {
        const EvalResult result = run();
        PerMentionOptions options;
        options.predictions = 2;
        writePerMention(file("mentions.jsonl"), result, queries_, dictionary_, options);
        std::ifstream in(file("mentions.jsonl"));
        std::vector<json> lines;
        for (std::string line; std::getline(in, line);) lines.push_back(json::parse(line));
        QCOMPARE(lines.size(), std::size_t{3});

        const json& cold = lines[0];
        QCOMPARE(cold["document"].get<std::string>(), std::string("1"));
        QCOMPARE(cold["start"].get<std::size_t>(), std::size_t{0});
        QCOMPARE(cold["end"].get<std::size_t>(), std::size_t{10});
        QCOMPARE(cold["mention"].get<std::string>(), std::string("cold"));
        QCOMPARE(cold["normalized"].get<Strings>(), Strings{"cold"});
        QCOMPARE(cold["gold"].get<Strings>(), Strings{"C1"});
        QCOMPARE(cold["rank"].get<std::size_t>(), std::size_t{1});
        QCOMPARE(cold["strict_rank"].get<std::size_t>(), std::size_t{2});
        QCOMPARE(cold["correct@1"].get<bool>(), true);
        QCOMPARE(cold["strict@1"].get<bool>(), false);
        QCOMPARE(cold["seen"].get<bool>(), true);
        QVERIFY(cold["homonym_affected"].is_null());
        const json& predictions = cold["parts"][0]["predictions"];
        QCOMPARE(predictions.size(), std::size_t{2});
        QCOMPARE(predictions[0]["name"].get<std::string>(), std::string("cold"));
        QCOMPARE(predictions[0]["ids"].get<Strings>(), (Strings{"C1", "C2"}));
        QCOMPARE(predictions[0]["score"].get<double>(), 1.0);
        QCOMPARE(predictions[0]["correct"].get<bool>(), true);
        QCOMPARE(predictions[0]["strict"].get<bool>(), false);
        QCOMPARE(predictions[1]["name"].get<std::string>(), std::string("common cold"));
        QCOMPARE(predictions[1]["score"].get<double>(), 0.5);

        const json& composite = lines[1];
        QCOMPARE(composite["parts"].size(), std::size_t{2});
        QCOMPARE(composite["parts"][1]["rank"].get<std::size_t>(), std::size_t{2});
        QCOMPARE(composite["rank"].get<std::size_t>(), std::size_t{2});
        QCOMPARE(composite["correct@1"].get<bool>(), false);
        QCOMPARE(composite["correct@5"].get<bool>(), true);

        const json& missed = lines[2];
        QVERIFY(missed["rank"].is_null());
        QVERIFY(missed["parts"][0]["predictions"].empty());
    }

    void perMentionRejectsOtherQueries() {
        const EvalResult result = run();
        auto shorter = queries_;
        shorter.pop_back();
        QVERIFY_THROWS_EXCEPTION(Error, writePerMention(file("x.jsonl"), result, shorter, dictionary_));
        auto moved = queries_;
        moved[1].start = 99;
        QVERIFY_THROWS_EXCEPTION(Error, writePerMention(file("x.jsonl"), result, moved, dictionary_));
        // Nothing half-written is left behind.
        QVERIFY(!std::filesystem::exists(file("x.jsonl")));
    }

    void writingIntoAMissingFolderIsAnError() {
        const EvalResult result = run();
        const auto target = file("no-such-folder") / "report.json";
        QVERIFY_THROWS_EXCEPTION(Error, writeJsonReport(target, result));
        QVERIFY(!std::filesystem::exists(target));
    }

    void comparisonReports() {
        const EvalResult a = run();
        const EvalResult b = run();
        const RunComparison comparison = compareRuns(a, b, 1);
        const json out = json::parse(comparisonJson(comparison));
        QCOMPARE(out["mcnemar"]["only_a"].get<std::size_t>(), std::size_t{0});
        QCOMPARE(out["mcnemar"]["p"].get<double>(), 1.0);
        QCOMPARE(out["difference"]["estimate"].get<double>(), 0.0);
        QCOMPARE(out["accuracy_a"]["estimate"].get<double>(), 1.0 / 3.0);
        const std::string text = formatComparison(comparison, "tfidf", "tfidf again");
        QVERIFY(text.find("McNemar") != std::string::npos);
        QVERIFY(text.find("tfidf again") != std::string::npos);
    }
};

QTEST_APPLESS_MAIN(TestEvalReport)
#include "test_eval_report.moc"
