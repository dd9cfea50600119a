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

    // --linking-difficulty: "Alpha disease" is its gold concept's name, "cold" a name of two
    // concepts, "Beta disease" another concept's name, "lithium tremor" no name but a chemical's
    // (the corpus' Chemical mention "Lithium"), "foo" CUI-less.
    void writeDifficultyFixtures() {
        test::writeFile(file("dkb.txt").toStdString(),
                        "D000001||Alpha Disease\nD000002||Beta Disease|Cold\nD000003||Gamma Disease|Cold\n");
        test::writeFile(file("d.txt").toStdString(),
                        "7|t|Alpha disease, cold, Beta disease, lithium tremor, foo.\n7|a|Lithium.\n"
                        "7\t0\t13\tAlpha disease\tDisease\tD000001\n"
                        "7\t15\t19\tcold\tDisease\tD000002\n"
                        "7\t21\t33\tBeta disease\tDisease\tD000003\n"
                        "7\t35\t49\tlithium tremor\tDisease\tD000001\n"
                        "7\t51\t54\tfoo\tDisease\t-1\n"
                        "7\t56\t63\tLithium\tChemical\tD008094\n");
        test::writeFile(file("d.jsonl").toStdString(),
                        "{\"document\":\"7\",\"start\":0,\"end\":13,\"rank\":1,\"strict_rank\":1}\n"
                        "{\"document\":\"7\",\"start\":15,\"end\":19,\"rank\":1,\"strict_rank\":null}\n"
                        "{\"document\":\"7\",\"start\":21,\"end\":33,\"rank\":2,\"strict_rank\":2}\n"
                        "{\"document\":\"7\",\"start\":35,\"end\":49,\"rank\":null,\"strict_rank\":null}\n");
    }
    static const nlohmann::json& named(const nlohmann::json& groups, const std::string& name) {
        for (const auto& g : groups)
            if (g["name"] == name) return g;
        qFatal("no group %s", name.c_str());
    }
    void linkingDifficultyClassesAndAccuracy() {
        writeDifficultyFixtures();
        const auto r = test::runCli({"stats", "--corpus", file("d.txt"), "--kb", file("dkb.txt"),
                                     "--linking-difficulty", "--types", "Disease", "--chemical-corpus", file("d.txt"),
                                     "--outcomes", file("d.jsonl"), "--json"});
        QVERIFY2(r.exitCode == 0, r.err.constData());
        const auto d = r.json()["corpora"][0]["linking_difficulty"];
        QCOMPARE(d["mentions"].get<int>(), 5);
        QCOMPARE(named(d["classes"], "cui-less")["mentions"].get<int>(), 1);
        QCOMPARE(named(d["classes"], "gold name")["mentions"].get<int>(), 1);
        QCOMPARE(named(d["classes"], "shared name")["mentions"].get<int>(), 1);
        QCOMPARE(named(d["classes"], "other's name")["mentions"].get<int>(), 1);
        QCOMPARE(named(d["classes"], "no KB name")["mentions"].get<int>(), 1);
        QCOMPARE(named(d["classes"], "gold name")["share"].get<double>(), 0.2);
        QCOMPARE(named(d["classes"], "other's name")["acc_at_1"].get<double>(), 0.0);
        QCOMPARE(named(d["classes"], "other's name")["error_share"].get<double>(), 0.5);
        QVERIFY(named(d["classes"], "composite")["acc_at_1"].is_null());  // none linked
        QCOMPARE(named(d["properties"], "chemical-adjacent")["mentions"].get<int>(), 1);
        QCOMPARE(named(d["properties"], "chemical-adjacent")["errors"].get<int>(), 1);
        QCOMPARE(d["outcomes"]["acc_at_1"].get<double>(), 0.5);
        QCOMPARE(d["outcomes"]["errors"].get<int>(), 2);

        const auto text = test::runCli({"stats", "--corpus", file("d.txt"), "--kb", file("dkb.txt"),
                                        "--linking-difficulty", "--types", "Disease", "--outcomes", file("d.jsonl")});
        QVERIFY2(text.exitCode == 0, text.err.constData());
        QVERIFY(text.out.contains("Linking difficulty (5 mentions of type Disease)"));
        QVERIFY(text.out.contains("shared name"));
        QVERIFY(text.out.contains("Acc@1 0.5000"));
    }
    void linkingDifficultyNeedsKbAndOneOutcomeFilePerCorpus() {
        writeDifficultyFixtures();
        expectFailure(test::runCli({"stats", "--corpus", file("d.txt"), "--linking-difficulty"}), "needs --kb");
        expectFailure(test::runCli({"stats", "--corpus", file("d.txt"), "--types", "Disease"}),
                      "belong to --linking-difficulty");
        expectFailure(test::runCli({"stats", "--corpus", file("d.txt"), file("d.txt"), "--kb", file("dkb.txt"),
                                    "--linking-difficulty", "--outcomes", file("d.jsonl")}),
                      "one per-mention file per corpus report");
        test::writeFile(file("other.jsonl").toStdString(),
                        "{\"document\":\"8\",\"start\":0,\"end\":3,\"rank\":1,\"strict_rank\":1}\n");
        expectFailure(test::runCli({"stats", "--corpus", file("d.txt"), "--kb", file("dkb.txt"), "--linking-difficulty",
                                    "--outcomes", file("other.jsonl")}),
                      "none of its mentions");
    }
};

QTEST_GUILESS_MAIN(TestCliStats)
#include "test_cli_stats.moc"
