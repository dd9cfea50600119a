// linkscope-cli eval on the demo project: the whole protocol (dictionary with training
// mentions, abbreviation expansion, sparse index, metrics) end to end, plus index reuse and
// refusal, and bad arguments.
#include <sstream>

#include "cli_runner.h"
#include "test_data.h"

using namespace linkscope;

class TestCliEval : public QObject {
    Q_OBJECT
    QTemporaryDir dir_;
    QString file(const char* name) const { return dir_.filePath(QString::fromLatin1(name)); }
    static QString demo(const char* name) { return test::demoFile(name); }
    static QStringList demoArguments() { return test::demoEvalArguments(); }

private Q_SLOTS:
    void demoTestSplitIsLinkedPerfectly() {
        // Every demo test mention is a KB name once "COPD" is expanded from its own abstract, so
        // an exact TF-IDF match must rank the gold concept first.
        const auto r = test::runCli(demoArguments() << "--json");
        QVERIFY2(r.exitCode == 0, r.err.constData());
        const auto j = r.json();
        QCOMPARE(j["mentions"].get<int>(), 15);
        QCOMPARE(j["acc@1"].get<double>(), 1.0);
        QCOMPARE(j["acc@5"].get<double>(), 1.0);
        QVERIFY(j.contains("seconds"));
        QVERIFY(j["seconds"].get<double>() > 0.0);
    }
    void withoutAbbreviationsCopdIsNotExpanded() {
        const auto r = test::runCli(demoArguments() << "--no-abbreviations"
                                                    << "--json"
                                                    << "--per-mention" << file("no-abbreviations.jsonl"));
        QVERIFY2(r.exitCode == 0, r.err.constData());
        // The two "COPD" mentions are read as written, not expanded from their abstract; they
        // still link, since the demo KB lists "COPD" as a synonym of D029424 ("HD"/"MS"-style
        // homonyms are not in the test split).
        QCOMPARE(r.json()["acc@1"].get<double>(), 1.0);
        QCOMPARE(r.json()["mentions"].get<int>(), 15);
        std::istringstream lines(test::readFile(file("no-abbreviations.jsonl").toStdString()));
        int copd = 0;
        for (std::string line; std::getline(lines, line);) {
            const auto mention = nlohmann::json::parse(line);
            if (mention["mention"] != "COPD") continue;
            ++copd;
            QCOMPARE(mention["abbreviation_expanded"].get<bool>(), false);
            QCOMPARE(mention["normalized"], nlohmann::json::array({"copd"}));
            QCOMPARE(mention["rank"].get<int>(), 1);
        }
        QCOMPARE(copd, 2);
    }
    void typesRestrictTheMentions() {
        const auto r = test::runCli(demoArguments() << "--types"
                                                    << "SpecificDisease"
                                                    << "--json");
        QVERIFY2(r.exitCode == 0, r.err.constData());
        QCOMPARE(r.json()["mentions"].get<int>(), 15);
        const auto none = test::runCli(demoArguments() << "--types"
                                                       << "Chemical"
                                                       << "--json");
        QVERIFY2(none.exitCode == 0, none.err.constData());
        QCOMPARE(none.json()["mentions"].get<int>(), 0);
    }
    void perMentionFileAndReportAreWritten() {
        const auto r = test::runCli(demoArguments()
                                    << "--per-mention" << file("mentions.tsv") << "--report" << file("report.json"));
        QVERIFY2(r.exitCode == 0, r.err.constData());
        QVERIFY(r.out.contains("acc@1"));
        const std::string perMention = test::readFile(file("mentions.tsv").toStdString());
        QVERIFY2(perMention.find("chronic obstructive pulmonary disease") != std::string::npos, perMention.c_str());
        QVERIFY(perMention.find("90000007") != std::string::npos);
        const auto report = nlohmann::json::parse(test::readFile(file("report.json").toStdString()));
        QCOMPARE(report["mentions"].get<int>(), 15);
    }
    void savedIndexIsReusedAndRefusedForAnotherDictionary() {
        const QString index = file("demo.index");
        const auto first = test::runCli(demoArguments() << "--index" << index << "--json");
        QVERIFY2(first.exitCode == 0, first.err.constData());
        QVERIFY(QFile::exists(index));
        const auto second = test::runCli(demoArguments() << "--index" << index << "--json");
        QVERIFY2(second.exitCode == 0, second.err.constData());
        QCOMPARE(second.json()["index"].get<std::string>().rfind("loaded", 0), std::size_t{0});
        QCOMPARE(second.json()["acc@1"].get<double>(), first.json()["acc@1"].get<double>());
        // Another vocabulary makes another dictionary: the saved index must be refused.
        test::writeFile(file("kb2.txt").toStdString(),
                        test::readFile(demo("demo-kb.txt").toStdString()) + "D000001||Something Else\n");
        QStringList other = demoArguments();
        other[other.indexOf("--kb") + 1] = file("kb2.txt");
        const auto refused = test::runCli(other << "--index" << index);
        QVERIFY(refused.exitCode != 0);
        QVERIFY(refused.out.isEmpty());
        QVERIFY2(refused.err.contains("demo.index"), refused.err.constData());
        QVERIFY2(refused.err.contains("dictionary"), refused.err.constData());
        // The comparison without preprocessing searches another dictionary and leaves the saved
        // index (made for the preprocessed one) alone.
        const auto compared = test::runCli(demoArguments() << "--index" << index << "--compare-preprocessing"
                                                           << "--json");
        QVERIFY2(compared.exitCode == 0, compared.err.constData());
        QVERIFY(compared.json().contains("comparison_without_preprocessing"));
    }
    void approximateSearchLinksTheDemoAndIsSaved() {
        // Forced on a small dictionary (auto switches above 500,000 names): the 3-gram stage finds
        // every demo mention's KB name, the report says the search was approximate, and --index
        // is written; a second run loads it (approximate still) and links the same.
        const QString index = file("approximate.index");
        const auto r = test::runCli(demoArguments() << "--sparse-search"
                                                    << "approximate"
                                                    << "--sparse-candidates"
                                                    << "8"
                                                    << "--index" << index << "--json");
        QVERIFY2(r.exitCode == 0, r.err.constData());
        QCOMPARE(r.json()["acc@1"].get<double>(), 1.0);
        QVERIFY2(r.json()["ranker"].get<std::string>().find("approximate") != std::string::npos, r.out.constData());
        QVERIFY(QFile::exists(index));
        const auto loaded = test::runCli(demoArguments() << "--index" << index << "--json");
        QVERIFY2(loaded.exitCode == 0, loaded.err.constData());
        QCOMPARE(loaded.json()["acc@1"].get<double>(), 1.0);
        QVERIFY2(loaded.json()["ranker"].get<std::string>().find("approximate") != std::string::npos,
                 loaded.out.constData());
        const auto exact = test::runCli(demoArguments() << "--sparse-search"
                                                        << "exact"
                                                        << "--json");
        QVERIFY2(exact.exitCode == 0, exact.err.constData());
        QVERIFY(exact.json()["ranker"].get<std::string>().find("approximate") == std::string::npos);
        const auto bad = test::runCli(demoArguments() << "--sparse-search"
                                                      << "fast");
        QVERIFY(bad.exitCode != 0);
        QVERIFY2(bad.err.contains("--sparse-search"), bad.err.constData());
    }
    void leNguyenCandidatesAlsoLinkTheDemo() {
        // Char 2-5 grams and words, merged: exact names still come first.
        const auto r = test::runCli(demoArguments() << "--sparse"
                                                    << "le-nguyen"
                                                    << "--json");
        QVERIFY2(r.exitCode == 0, r.err.constData());
        QCOMPARE(r.json()["acc@1"].get<double>(), 1.0);
        QVERIFY(r.json()["ranker"].get<std::string>().find("merged") != std::string::npos);
    }
    void compareTwoSavedRuns() {
        // Run A: the full protocol; run B: without abbreviation expansion. B can only lose.
        const auto a = test::runCli(demoArguments() << "--per-mention" << file("a.jsonl"));
        QVERIFY2(a.exitCode == 0, a.err.constData());
        const auto b = test::runCli(demoArguments() << "--no-abbreviations"
                                                    << "--per-mention" << file("b.jsonl") << "--json");
        QVERIFY2(b.exitCode == 0, b.err.constData());
        const auto r = test::runCli({"compare", file("a.jsonl"), file("b.jsonl"), "--json"});
        QVERIFY2(r.exitCode == 0, r.err.constData());
        const auto j = r.json();
        const int onlyA = j["mcnemar"]["only_a"].get<int>();
        const int onlyB = j["mcnemar"]["only_b"].get<int>();
        const int both = j["mcnemar"]["both_correct"].get<int>();
        const int neither = j["mcnemar"]["both_wrong"].get<int>();
        QCOMPARE(onlyA + onlyB + both + neither, 15);
        QCOMPARE(onlyA + both, 15);  // run A links every demo test mention
        QCOMPARE(j["accuracy_b"]["estimate"].get<double>(), b.json()["acc@1"].get<double>());
        QCOMPARE(j["difference"]["estimate"].get<double>(), 1.0 - b.json()["acc@1"].get<double>());
        const auto text = test::runCli({"compare", file("a.jsonl"), file("b.jsonl"), "--k", "5"});
        QVERIFY2(text.exitCode == 0, text.err.constData());
        QVERIFY(text.out.contains("McNemar"));
        QVERIFY(text.out.contains("acc@5"));
    }
    void compareRefusesBrokenAndMismatchedFiles() {
        QVERIFY(test::runCli(demoArguments() << "--per-mention" << file("ok.jsonl")).exitCode == 0);
        test::writeFile(file("broken.jsonl").toStdString(), "{\"document\":\"1\",\"start\":0}\nnot json\n");
        const auto broken = test::runCli({"compare", file("ok.jsonl"), file("broken.jsonl")});
        QVERIFY(broken.exitCode != 0);
        QVERIFY2(broken.err.contains("broken.jsonl:1:"), broken.err.constData());
        const std::string okText = test::readFile(file("ok.jsonl").toStdString());
        test::writeFile(file("short.jsonl").toStdString(), okText.substr(0, okText.find('\n') + 1));
        const auto mismatched = test::runCli({"compare", file("ok.jsonl"), file("short.jsonl")});
        QVERIFY(mismatched.exitCode != 0);
        QVERIFY2(mismatched.err.contains("different"), mismatched.err.constData());
        test::writeFile(file("empty.jsonl").toStdString(), "");
        const auto empty = test::runCli({"compare", file("ok.jsonl"), file("empty.jsonl")});
        QVERIFY(empty.exitCode != 0);
        QVERIFY2(empty.err.contains("empty.jsonl"), empty.err.constData());
    }
    void testSplitNeedsTheDevCorpus() {
        const auto r = test::runCli({"eval", "--train", demo("demo-train.txt"), "--test", demo("demo-test.txt"), "--kb",
                                     demo("demo-kb.txt"), "--split", "test"});
        QVERIFY(r.exitCode != 0);
        QVERIFY2(r.err.contains("--dev"), r.err.constData());
    }
    void denseMethodsNeedAnEncoder() {
        // The dense and hybrid linkers themselves are tested in test_cli_encoder. A build without
        // LibTorch refuses the method itself, in plain words, before asking for an encoder.
        for (const char* method : {"dense", "hybrid"}) {
            QStringList args = demoArguments();
            args[args.indexOf("--method") + 1] = QString::fromLatin1(method);
            const auto r = test::runCli(args);
            QVERIFY(r.exitCode != 0);
            if (LINKSCOPE_EXPECT_CLI_DENSE)
                QVERIFY2(r.err.contains("--model DIR"), r.err.constData());
            else
                QVERIFY2(r.err.contains("needs the dense engine (LibTorch), which this build of linkscope-cli lacks"),
                         r.err.constData());
        }
    }
};

QTEST_GUILESS_MAIN(TestCliEval)
#include "test_cli_eval.moc"
