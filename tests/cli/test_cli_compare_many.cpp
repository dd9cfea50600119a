// linkscope-cli compare with three or more saved runs of the demo project: the runs
// table, the Holm-corrected McNemar matrix and the group rows, as JSON and as text, checked
// against the per-mention files' own figures; and files that cannot be paired.
#include "cli_runner.h"
#include "test_data.h"

using namespace linkscope;

class TestCliCompareMany : public QObject {
    Q_OBJECT
    QTemporaryDir dir_;
    QString file(const char* name) const { return dir_.filePath(QString::fromLatin1(name)); }
    static QStringList demoArguments() { return test::demoEvalArguments(); }
    /// Runs eval with extra arguments, saving the per-mention file; returns eval's JSON report.
    nlohmann::json saveRun(const char* name, const QStringList& extra) {
        const auto r = test::runCli(demoArguments() << extra << "--per-mention" << file(name) << "--json");
        if (r.exitCode != 0) qWarning("%s", r.err.constData());
        return r.exitCode == 0 ? r.json() : nlohmann::json();
    }

private Q_SLOTS:
    void initTestCase() {
        QVERIFY(!saveRun("full.jsonl", {}).is_null());
        QVERIFY(!saveRun("no-abbreviations.jsonl", {"--no-abbreviations"}).is_null());
        QVERIFY(!saveRun("le-nguyen.jsonl", {"--sparse", "le-nguyen"}).is_null());
    }
    void threeRunsAsJson() {
        const nlohmann::json b = saveRun("b.jsonl", {"--no-abbreviations"});
        const auto r =
            test::runCli({"compare", file("full.jsonl"), file("b.jsonl"), file("le-nguyen.jsonl"), "--json"});
        QVERIFY2(r.exitCode == 0, r.err.constData());
        const auto j = r.json();
        QCOMPARE(j["runs"].size(), std::size_t{3});
        QCOMPARE(j["mentions"].get<int>(), 15);
        QCOMPARE(j["correction"].get<std::string>(), std::string("holm"));
        // Each run's accuracy is what eval reported for it.
        QCOMPARE(j["runs"][0]["accuracy"]["estimate"].get<double>(), 1.0);
        QCOMPARE(j["runs"][1]["accuracy"]["estimate"].get<double>(), b["acc@1"].get<double>());
        QCOMPARE(j["pairs"].size(), std::size_t{3});
        // The matrix: symmetric, null diagonal, each cell its pair's adjusted p, never below the raw p.
        const auto& matrix = j["p_adjusted"];
        for (const auto& pair : j["pairs"]) {
            const auto a = pair["a"].get<std::size_t>(), c = pair["b"].get<std::size_t>();
            QCOMPARE(matrix[a][c].get<double>(), pair["p_adjusted"].get<double>());
            QCOMPARE(matrix[c][a].get<double>(), pair["p_adjusted"].get<double>());
            QVERIFY(pair["p_adjusted"].get<double>() >= pair["mcnemar"]["p"].get<double>());
            const auto m = pair["mcnemar"];
            QCOMPARE(m["both_correct"].get<int>() + m["only_a"].get<int>() + m["only_b"].get<int>() +
                         m["both_wrong"].get<int>(),
                     15);
        }
        for (std::size_t i = 0; i < 3; ++i) QVERIFY(matrix[i][i].is_null());
        // Group rows: the demo test split is all "SpecificDisease" mentions.
        bool sawType = false;
        for (const auto& group : j["groups"]) {
            QCOMPARE(group["accuracy"].size(), std::size_t{3});
            if (group["name"].get<std::string>() == "type SpecificDisease") {
                sawType = true;
                QCOMPARE(group["mentions"].get<int>(), 15);
                QCOMPARE(group["correct"][0].get<int>(), 15);
            }
        }
        QVERIFY2(sawType, r.out.constData());
    }
    void threeRunsAsText() {
        const auto r = test::runCli(
            {"compare", file("full.jsonl"), file("no-abbreviations.jsonl"), file("le-nguyen.jsonl"), "--k", "5"});
        QVERIFY2(r.exitCode == 0, r.err.constData());
        QVERIFY2(r.out.contains("acc@5 of 3 runs on 15 mentions"), r.out.constData());
        QVERIFY2(r.out.contains("Holm-adjusted over 3 pairs"), r.out.constData());
        QVERIFY2(r.out.contains("per group"), r.out.constData());
        QVERIFY2(r.out.contains("no-abbreviations.jsonl"), r.out.constData());
    }
    void twoRunsWithMatrixUseTheManyRunReport() {
        const auto r =
            test::runCli({"compare", file("full.jsonl"), file("no-abbreviations.jsonl"), "--matrix", "--json"});
        QVERIFY2(r.exitCode == 0, r.err.constData());
        const auto j = r.json();
        QCOMPARE(j["pairs"].size(), std::size_t{1});
        // Holm over one pair changes nothing.
        QCOMPARE(j["pairs"][0]["p_adjusted"].get<double>(), j["pairs"][0]["mcnemar"]["p"].get<double>());
    }
    void mismatchedOrBrokenFilesAreRefused() {
        const std::string okText = test::readFile(file("full.jsonl").toStdString());
        test::writeFile(file("short.jsonl").toStdString(), okText.substr(0, okText.find('\n') + 1));
        const auto mismatched =
            test::runCli({"compare", file("full.jsonl"), file("le-nguyen.jsonl"), file("short.jsonl")});
        QVERIFY(mismatched.exitCode != 0);
        QVERIFY2(mismatched.err.contains("short.jsonl"), mismatched.err.constData());
        QVERIFY(mismatched.out.isEmpty());
        test::writeFile(file("bad-seen.jsonl").toStdString(),
                        "{\"document\":\"1\",\"start\":0,\"end\":5,\"rank\":1,\"strict_rank\":1,\"seen\":\"yes\"}\n");
        const auto badSeen =
            test::runCli({"compare", file("bad-seen.jsonl"), file("bad-seen.jsonl"), file("bad-seen.jsonl")});
        QVERIFY(badSeen.exitCode != 0);
        QVERIFY2(badSeen.err.contains("bad-seen.jsonl:1:"), badSeen.err.constData());
        const auto one = test::runCli({"compare", file("full.jsonl")});
        QVERIFY(one.exitCode != 0);
    }
};

QTEST_GUILESS_MAIN(TestCliCompareMany)
#include "test_cli_compare_many.moc"
