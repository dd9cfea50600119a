// linkscope-cli link with an encoder (--model DIR, dense or hybrid) and with a training run (--run
// RUN, alone, with --knn or with --sieve): the links it writes, scored against the gold, are right
// for exactly the mentions eval finds right with the same linker (its per-mention file), and each
// BioC annotation names the linker and its fingerprint. The models are tiny random BERTs
// (tiny_run.h): the rankings are arbitrary, but eval and link must agree on every mention. NCBI
// Disease: test_cli_link_models_data.
#include <QStringList>
#include <QTemporaryDir>

#include <filesystem>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "cli_runner.h"
#include "kb/knowledge_base.h"
#include "linked_bioc.h"
#include "project/loaded_project.h"
#include "test_data.h"
#include "tiny_run.h"

using namespace linkscope;
namespace fs = std::filesystem;

namespace {

QString q(const fs::path& path) { return QString::fromStdString(path.string()); }

}  // namespace

class TestCliLinkModels : public QObject {
    Q_OBJECT
    QTemporaryDir dir_;
    fs::path bioc_;  ///< the demo project's test split as BioC XML
    std::unique_ptr<kb::KnowledgeBase> kb_;
    std::map<std::string, test::CliResult> linked_;  ///< link's result of each compareWithEval, by name

    fs::path path(const char* name) const { return fs::path(dir_.filePath(QString::fromLatin1(name)).toStdString()); }

    // `link` on the demo's test split (BioC, --keep-gold) with the demo's training data as --train
    // and --dev, as demoEvalArguments' dictionary, plus `linker`.
    test::CliResult link(const fs::path& out, const QStringList& linker) const {
        return test::runCli(QStringList{"link", "--corpus", q(bioc_), "--kb", test::demoFile("demo-kb.txt"), "--train",
                                        test::demoFile("demo-train.txt"), "--dev", test::demoFile("demo-train.txt"),
                                        "--keep-gold", "--device", "cpu", "--out", q(out)}
                            << linker);
    }

    // eval with `evalArguments` writes its per-mention file; link with `linker` writes its links.
    // Each mention eval scored is linked, right exactly when eval found it right at rank 1, and
    // the share right is eval's Acc@1.
    void compareWithEval(const QStringList& evalArguments, const QStringList& linker, const char* name) {
        const fs::path perMention = path((std::string(name) + ".jsonl").c_str());
        const auto e = test::runCli(QStringList(evalArguments) << "--device"
                                                               << "cpu"
                                                               << "--json"
                                                               << "--per-mention" << q(perMention));
        QVERIFY2(e.exitCode == 0, e.err.constData());
        const double evalAcc1 = e.json()["acc@1"].get<double>();

        const fs::path out = path((std::string(name) + ".bioc.xml").c_str());
        const auto r = link(out, linker);
        QVERIFY2(r.exitCode == 0, r.err.constData());
        linked_[name] = r;
        test::checkAgainstEval(perMention, evalAcc1, test::linkedParts(out, *kb_));
    }

    QStringList runEvalArguments(const QStringList& linker) const {
        return QStringList{"eval",
                           "--train",
                           test::demoFile("demo-train.txt"),
                           "--dev",
                           test::demoFile("demo-train.txt"),
                           "--test",
                           test::demoFile("demo-test.txt"),
                           "--kb",
                           test::demoFile("demo-kb.txt"),
                           "--split",
                           "test"}
               << linker;
    }

private Q_SLOTS:
    void initTestCase() {
        QVERIFY(dir_.isValid());
        // A finished run (the triplet preset, a tiny random BERT) that reads every demo text, and its
        // model folder copied out of it: a plain Hugging Face checkpoint.
        test::writeTinyTripletRun(
            path("run"), {test::demoFile("demo-kb.txt").toStdString(), test::demoFile("demo-train.txt").toStdString(),
                          test::demoFile("demo-test.txt").toStdString()});
        fs::copy(path("run") / "model", path("checkpoint"), fs::copy_options::recursive);
        bioc_ = path("test.bioc.xml");
        const auto r = test::runCli({"export", "--manifest", test::demoFile("demo-project.json"), "--format", "bioc",
                                     "--split", "test", "--date", "20260101", "--out", q(bioc_)});
        QVERIFY2(r.exitCode == 0, r.err.constData());
        KbReference reference;
        reference.path = test::demoFile("demo-kb.txt").toStdString();
        std::vector<Diagnostic> notes;
        kb_ = std::make_unique<kb::KnowledgeBase>(loadKnowledgeBase(reference, notes));
    }

    void denseModelLinksAsEval() {
        compareWithEval(test::demoEvalArguments("dense") << "--model" << q(path("checkpoint")),
                        {"--model", q(path("checkpoint"))}, "dense");
    }

    void hybridModelLinksAsEval() {
        compareWithEval(test::demoEvalArguments("hybrid") << "--model" << q(path("checkpoint")) << "--sparse-weight"
                                                          << "2",
                        {"--model", q(path("checkpoint")), "--method", "hybrid", "--sparse-weight", "2"}, "hybrid");
    }

    void runLinksAsEval() {
        compareWithEval(runEvalArguments({"--run", q(path("run"))}), {"--run", q(path("run"))}, "run");
    }

    void runWithKnnLinksAsEval() {
        compareWithEval(runEvalArguments({"--run", q(path("run")), "--knn", "--knn-k", "2"}),
                        {"--run", q(path("run")), "--knn", "--knn-k", "2"}, "knn");
    }

    void runWithSieveLinksAsEval() {
        compareWithEval(runEvalArguments({"--run", q(path("run")), "--sieve", "D-T+OD-T"}),
                        {"--run", q(path("run")), "--sieve", "D-T+OD-T"}, "sieve");
    }

    // Every annotation names the linker and its fingerprint, as printed on standard output; the
    // dictionary part is the same for every linker of the same data, the model part the model's,
    // and --model RUN is --run RUN. (The dense, run and knn links are those compared above.)
    void fingerprintNamesModelAndDictionary() {
        const fs::path sparseOut = path("fp-sparse.bioc.xml");
        const auto sparse = link(sparseOut, {"--method", "sparse"});
        QVERIFY2(sparse.exitCode == 0, sparse.err.constData());
        const QString sparsePrint = test::printed(sparse, "fingerprint");
        QVERIFY2(sparsePrint.startsWith("dictionary "), sparse.out.constData());
        QVERIFY2(!sparsePrint.contains("model"), qPrintable(sparsePrint));
        const QStringList sparseInfons = test::infonValues(sparseOut, "linkscope_fingerprint");
        QVERIFY(!sparseInfons.isEmpty());
        QCOMPARE(sparseInfons.size(), test::infonValues(sparseOut, "linkscope_identifier").size());
        for (const auto& value : sparseInfons) QCOMPARE(value, sparsePrint);
        QVERIFY2(test::printed(sparse, "linker").startsWith("sparse "), sparse.out.constData());

        QVERIFY(linked_.count("dense") && linked_.count("run") && linked_.count("knn"));
        const QString densePrint = test::printed(linked_["dense"], "fingerprint");
        QCOMPARE(densePrint.section(';', 0, 0), sparsePrint);
        QVERIFY2(densePrint.contains("; model "), qPrintable(densePrint));
        QCOMPARE(test::infonValues(path("dense.bioc.xml"), "linkscope_fingerprint").first(), densePrint);
        QVERIFY2(test::printed(linked_["dense"], "linker").startsWith("dense encoder "),
                 linked_["dense"].out.constData());

        const QString runPrint = test::printed(linked_["run"], "fingerprint");
        QVERIFY2(runPrint.contains("; model "), qPrintable(runPrint));
        QVERIFY2(test::printed(linked_["run"], "linker").startsWith("run "), linked_["run"].out.constData());
        const auto modelRun = link(path("fp-model-run.bioc.xml"), {"--model", q(path("run"))});
        QVERIFY2(modelRun.exitCode == 0, modelRun.err.constData());
        QCOMPARE(test::printed(modelRun, "fingerprint"), runPrint);

        QVERIFY2(test::printed(linked_["knn"], "fingerprint").contains("; datastore "), linked_["knn"].out.constData());
        QVERIFY2(test::printed(linked_["knn"], "linker").contains("linking knn (k 2"), linked_["knn"].out.constData());
    }

    // Options that do not go together are refused before anything is written, saying why.
    void mismatchedLinkerOptionsAreRefused() {
        const struct {
            QStringList linker;
            const char* message;
        } cases[] = {
            {{"--knn"}, "give --run RUN_DIR"},
            {{"--model", q(path("checkpoint")), "--method", "sparse"}, "--method sparse links without an encoder"},
            {{"--run", q(path("run")), "--sparse-weight", "2"}, "is a training run, linked as its preset says"},
            {{"--run", q(path("run")), "--linking", "knn,O-T"}, "give one item"},
        };
        for (const auto& c : cases) {
            const fs::path out = path("refused.bioc.xml");
            const auto r = link(out, c.linker);
            QVERIFY2(r.exitCode != 0, qPrintable(c.linker.join(' ')));
            QVERIFY2(r.err.contains(c.message), r.err.constData());
            QVERIFY(!fs::exists(out));
        }
    }
};

QTEST_GUILESS_MAIN(TestCliLinkModels)
#include "test_cli_link_models.moc"
