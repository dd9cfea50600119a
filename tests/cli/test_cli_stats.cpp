// linkscope-cli stats on the demo project and on broken input.
#include "cli_runner.h"
#include "test_data.h"

using namespace linkscope;

class TestCliStats : public QObject {
    Q_OBJECT
    QTemporaryDir dir_;
    QString file(const char* name) const { return dir_.filePath(QString::fromLatin1(name)); }
    static QString demo(const char* name) { return test::demoFile(name); }
    static void expectFailure(const test::CliResult& r, const QByteArray& fragment) {
        QVERIFY2(r.exitCode != 0, "expected a non-zero exit status");
        QVERIFY2(r.out.isEmpty(), r.out.constData());  // nothing half-written to stdout
        QVERIFY2(r.err.contains(fragment), r.err.constData());
        QCOMPARE(r.err.count('\n'), 1);  // one clear message
    }

private Q_SLOTS:
    void demoProjectFigures() {
        const auto r = test::runCli({"stats", "--corpus", demo("demo-train.txt"), demo("demo-test.txt"), "--kb",
                                     demo("demo-kb.txt"), "--json"});
        QVERIFY2(r.exitCode == 0, r.err.constData());
        const auto j = r.json();
        QCOMPARE(j["documents"].get<int>(), 8);
        QCOMPARE(j["mentions"].get<int>(), 55);
        QCOMPARE(j["corpora"].size(), std::size_t{2});
        QCOMPARE(j["corpora"][0]["documents"].get<int>(), 6);
        QCOMPARE(j["total"]["composite_mentions"].get<int>(), 3);
        QCOMPARE(j["total"]["cui_less_mentions"].get<int>(), 1);
        QCOMPARE(j["total"]["ids_missing_from_kb"].get<int>(), 0);
        QCOMPARE(j["kb"]["entities"].get<int>(), 35);
        // "HD" and "MS" each name two concepts of the demo vocabulary.
        QCOMPARE(j["kb"]["homonyms_exact"].get<int>(), 2);
        QCOMPARE(j["kb"]["homonym_table"]["exact"]["homonym_pairs"].get<int>(), 4);
        QCOMPARE(j["kb"]["homonym_table"]["exact"]["success_rate"].get<double>(), 1.0);
        QVERIFY(j["kb"]["homonyms_normalized"].get<int>() >= 2);
        QVERIFY(j["kb"]["names"].get<int>() > j["kb"]["entities"].get<int>());
    }
    void textReportNamesEverySection() {
        const auto r = test::runCli({"stats", "--corpus", demo("demo-train.txt"), "--kb", demo("demo-kb.txt")});
        QVERIFY2(r.exitCode == 0, r.err.constData());
        QVERIFY(r.out.contains("Corpus demo-train"));
        QVERIFY(r.out.contains("Knowledge base"));
        QVERIFY(r.out.contains("Homonyms (BELHD Table 2)"));
    }
    void idsMissingFromTheKbAreCounted() {
        test::writeFile(file("c.txt").toStdString(),
                        "1|t|Alpha disease and beta syndrome.\n1|a|Nothing else.\n"
                        "1\t0\t13\tAlpha disease\tDisease\tD006816\n1\t18\t31\tbeta syndrome\tDisease\tD999999\n");
        const auto r = test::runCli({"stats", "--corpus", file("c.txt"), "--kb", demo("demo-kb.txt"), "--json"});
        QVERIFY2(r.exitCode == 0, r.err.constData());
        const auto j = r.json();
        QCOMPARE(j["total"]["ids_missing_from_kb"].get<int>(), 1);
        QCOMPARE(j["total"]["mentions_with_ids_missing_from_kb"].get<int>(), 1);
        QCOMPARE(j["total"]["missing_ids"][0].get<std::string>(), std::string("MESH:D999999"));
    }
    void omimIdsResolveThroughAlternativeIds() {
        test::writeFile(file("o.txt").toStdString(),
                        "2|t|Huntington disease.\n2|a|x\n2\t0\t18\tHuntington disease\tDisease\tOMIM:143100\n");
        const auto r = test::runCli({"stats", "--corpus", file("o.txt"), "--kb", demo("demo-kb.txt"), "--json"});
        QVERIFY2(r.exitCode == 0, r.err.constData());
        QCOMPARE(r.json()["total"]["ids_missing_from_kb"].get<int>(), 0);
    }
    void brokenCorpusLineFailsWithFileAndLine() {
        test::writeFile(file("bad.txt").toStdString(), "1|t|Title here\n1|a|Abstract\n1\t0\tx\tTitle\tDisease\tD1\n");
        expectFailure(test::runCli({"stats", "--corpus", file("bad.txt"), "--json"}), "bad.txt:3:");
    }
    void offsetMismatchFailsUnlessLenient() {
        test::writeFile(file("m.txt").toStdString(),
                        "1|t|Title here\n1|a|Abstract\n1\t0\t5\tTitel\tDisease\tD006816\n");
        expectFailure(test::runCli({"stats", "--corpus", file("m.txt")}), "m.txt:3:");
        const auto r = test::runCli({"stats", "--corpus", file("m.txt"), "--lenient", "--json"});
        QVERIFY2(r.exitCode == 0, r.err.constData());
        const auto j = r.json();
        QCOMPARE(j["total"]["mentions_with_invalid_offsets"].get<int>(), 1);
        QCOMPARE(j["diagnostics"].size(), std::size_t{1});
    }
    void missingFileIsAUsageError() {
        const auto r = test::runCli({"stats", "--corpus", file("nope.txt")});
        QVERIFY(r.exitCode != 0);
        QVERIFY(r.out.isEmpty());
        QVERIFY2(r.err.contains("nope.txt"), r.err.constData());
    }
    void brokenKbFailsWithFileAndLine() {
        test::writeFile(file("kb.txt").toStdString(), "D000001||Good name\nD000002 no separator here\n");
        test::writeFile(file("ok.txt").toStdString(), "1|t|T\n1|a|A\n");
        expectFailure(
            test::runCli({"stats", "--corpus", file("ok.txt"), "--kb", file("kb.txt"), "--kb-format", "medic"}),
            "kb.txt:2:");
    }
    void emptyCorpusFileIsAnError() {
        test::writeFile(file("empty.txt").toStdString(), "");
        expectFailure(test::runCli({"stats", "--corpus", file("empty.txt")}), "empty.txt");
    }
    void unrecognisedKbFormatIsExplained() {
        test::writeFile(file("what.txt").toStdString(), "this is not a vocabulary\n");
        test::writeFile(file("ok2.txt").toStdString(), "1|t|T\n1|a|A\n");
        expectFailure(test::runCli({"stats", "--corpus", file("ok2.txt"), "--kb", file("what.txt")}), "--kb-format");
    }
};

QTEST_GUILESS_MAIN(TestCliStats)
#include "test_cli_stats.moc"
