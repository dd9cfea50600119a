// linkscope-cli simulate-curation --order: the mention-level simulated review with
// the sparse ranker on the demo KB and a dev corpus written here, whose one wrong proposal is a
// tie ("HD" names Huntington's and Hirschsprung's disease) at the end of the document order:
// the queue reviews it first, document order last; "apply to all" carries a decision to the
// other "HD", which names the other entity; the CSV and SVG; the refusals. The sparse review needs
// no LibTorch; the refusals of a review with --run, which linkscope-cli-dense links, are checked
// where it is built (LINKSCOPE_HAVE_TORCH).
#include <algorithm>
#include <cmath>
#include <filesystem>
#include <string>

#include "cli_runner.h"
#include "test_data.h"

using namespace linkscope;
namespace fs = std::filesystem;

class TestCliReview : public QObject {
    Q_OBJECT
    QTemporaryDir dir_;
    QString path(const char* name) const { return dir_.filePath(QString::fromLatin1(name)); }
    QStringList dataArguments() const {
        return {"--train", test::demoFile("demo-train.txt"), "--dev",   path("dev.txt"),
                "--kb",    test::demoFile("demo-kb.txt"),    "--split", "dev"};
    }
    static nlohmann::json json(const test::CliResult& r) { return nlohmann::json::parse(r.out.toStdString()); }

private Q_SLOTS:
    void initTestCase() {
        QVERIFY(dir_.isValid());
        test::writeFile(path("dev.txt").toStdString(),
                        "90000101|t|Asthma and chronic obstructive pulmonary disease.\n"
                        "90000101|a|Asthma again.\n"
                        "90000101\t0\t6\tAsthma\tSpecificDisease\tD001249\n"
                        "90000101\t11\t48\tchronic obstructive pulmonary disease\tSpecificDisease\tD029424\n"
                        "90000101\t50\t56\tAsthma\tSpecificDisease\tD001249\n"
                        "\n"
                        "90000102|t|Huntington disease and HD.\n"
                        "90000102|a|HD is here.\n"
                        "90000102\t0\t18\tHuntington disease\tSpecificDisease\tD006816\n"
                        "90000102\t23\t25\tHD\tSpecificDisease\tD006627\n"
                        "90000102\t27\t29\tHD\tSpecificDisease\tD006816\n\n");
    }

    void theQueueReviewsTheTieFirst() {
        const auto r = test::runCli(QStringList{"simulate-curation", "--order", "queue,document", "--target", "1",
                                                "--json", "--csv", path("review.csv"), "--svg", path("review.svg")}
                                    << dataArguments());
        QVERIFY2(r.exitCode == 0, r.err.constData());
        const auto report = json(r);
        QCOMPARE(report["mentions"].get<int>(), 6);
        QCOMPARE(report["walks"].size(), std::size_t{2});
        const auto& queue = report["walks"][0];
        const auto& document = report["walks"][1];
        QCOMPARE(queue["order"].get<std::string>(), std::string("queue"));
        QCOMPARE(document["order"].get<std::string>(), std::string("document"));
        for (const auto* walk : {&queue, &document}) {
            QVERIFY(std::abs((*walk)["initial_accuracy"].get<double>() - 5.0 / 6.0) < 1e-9);  // one "HD" is wrong
            QCOMPARE((*walk)["final_accuracy"].get<double>(), 1.0);
            QCOMPARE((*walk)["decisions"].get<int>(), 6);
            QCOMPARE((*walk)["corrections"].get<int>(), 1);
        }
        // Both "HD" are ties, first in the queue: the wrong one is among its first two decisions;
        // in document order it is the fifth or the sixth mention.
        QVERIFY(queue["decisions_to_target"].get<int>() <= 2);
        QVERIFY(document["decisions_to_target"].get<int>() >= 5);

        // One CSV row per step (7 per walk) after the header; the SVG draws both.
        const std::string csv = test::readFile(path("review.csv").toStdString());
        QCOMPARE(std::count(csv.begin(), csv.end(), '\n'), std::ptrdiff_t{1 + 2 * 7});
        QVERIFY(csv.rfind("order,apply_to_all,decisions,corrections,decided,applied_to_all,accuracy\n", 0) == 0);
        const std::string svg = test::readFile(path("review.svg").toStdString());
        QVERIFY(svg.rfind("<svg", 0) == 0);
        QVERIFY(svg.find("queue order") != std::string::npos);
        QVERIFY(svg.find("document order") != std::string::npos);
    }

    // The first "HD" decided is applied to the other, which names the other entity: one click
    // makes it wrong, and nobody reviews it again (it has a decision).
    void applyToAllCarriesADecisionToTheOtherHomonym() {
        const auto r = test::runCli(QStringList{"simulate-curation", "--order", "queue", "--apply-to-all", "--json"}
                                    << dataArguments());
        QVERIFY2(r.exitCode == 0, r.err.constData());
        const auto report = json(r);
        const auto& walk = report["walks"][0];
        QCOMPARE(walk["applied_to_all"].get<int>(), 1);
        QCOMPARE(walk["decisions"].get<int>(), 5);
        QVERIFY(std::abs(walk["final_accuracy"].get<double>() - 5.0 / 6.0) < 1e-9);
        QVERIFY(walk["decisions_to_target"].is_null());  // 0.98 never reached
    }

    void refusals() {
        const auto unknown = test::runCli(QStringList{"simulate-curation", "--order", "random"} << dataArguments());
        QVERIFY(unknown.exitCode != 0);
        QVERIFY2(unknown.err.contains("unknown order 'random'"), unknown.err.constData());
        const auto noRun = test::runCli(QStringList{"simulate-curation"} << dataArguments());
        QVERIFY(noRun.exitCode != 0);
        QVERIFY2(noRun.err.contains("--run"), noRun.err.constData());
    }

#ifdef LINKSCOPE_HAVE_TORCH
    void runRefusals() {
        const auto withRun =
            test::runCli(QStringList{"simulate-curation", "--order", "queue", "--run", dir_.path()} << dataArguments());
        QVERIFY(withRun.exitCode != 0);  // a run's review links with its datastore
        QVERIFY2(withRun.err.contains("--knn or --sieve"), withRun.err.constData());
        const auto notRun = test::runCli(
            QStringList{"simulate-curation", "--order", "queue", "--run", dir_.path(), "--knn"} << dataArguments());
        QVERIFY(notRun.exitCode != 0);  // not a run directory: named
        QVERIFY2(notRun.err.contains(dir_.path().toUtf8()), notRun.err.constData());
    }
#endif
};

QTEST_GUILESS_MAIN(TestCliReview)
#include "test_cli_review.moc"
