// linkscope-cli link with an encoder on NCBI Disease test against MEDIC (+ the train and dev
// mentions): the links scored against the gold give eval's Acc@1 for the same linker, mention for
// mention. The encoder is a tiny random BERT (tiny_run.h): its rankings are arbitrary, which is
// enough for eval and link to agree or not. Skips when the shared data is absent.
#include <QStringList>
#include <QTemporaryDir>

#include <filesystem>
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

class TestCliLinkModelsData : public QObject {
    Q_OBJECT
    QTemporaryDir dir_;

    fs::path path(const char* name) const { return fs::path(dir_.filePath(QString::fromLatin1(name)).toStdString()); }

private Q_SLOTS:
    // The dictionary's vectors are encoded once, by eval, and link loads them (--dense-index): the
    // index's fingerprint check says that they fit link's model and dictionary.
    void ncbiWithAModelLinksAsEval() {
        LINKSCOPE_REQUIRE_DATA(train, "ncbi-disease/NCBItrainset_corpus.txt");
        LINKSCOPE_REQUIRE_DATA(dev, "ncbi-disease/NCBIdevelopset_corpus.txt");
        LINKSCOPE_REQUIRE_DATA(testSet, "ncbi-disease/NCBItestset_corpus.txt");
        LINKSCOPE_REQUIRE_DATA(medic, "medic/medic_06Jul2012.txt");
        QVERIFY(dir_.isValid());
        // A model whose vocabulary is the demo's: NCBI's words are mostly [UNK] to it, and the
        // vocabulary is learned in no time.
        test::writeTinyTripletRun(
            path("run"), {test::demoFile("demo-kb.txt").toStdString(), test::demoFile("demo-train.txt").toStdString()});
        const fs::path checkpoint = path("run") / "model";
        const fs::path index = path("ncbi.dense");
        const fs::path perMention = path("ncbi.jsonl");
        const auto e = test::runCli({"eval",     "--train", q(train),        "--dev",         q(dev),   "--test",
                                     q(testSet), "--kb",    q(medic),        "--split",       "test",   "--method",
                                     "dense",    "--model", q(checkpoint),   "--dense-index", q(index), "--device",
                                     "cpu",      "--json",  "--per-mention", q(perMention)});
        QVERIFY2(e.exitCode == 0, e.err.constData());
        const double evalAcc1 = e.json()["acc@1"].get<double>();

        // As BioC with --keep-gold, so that each part's link of a composite mention is read back.
        const fs::path manifest = path("ncbi.json");
        test::writeFile(manifest,
                        "{\"format\": \"linkscope-project-manifest\", \"version\": 1, \"name\": \"ncbi\", "
                        "\"knowledgeBase\": {\"path\": \"" +
                            medic.string() +
                            "\", \"format\": \"medic\"}, \"corpora\": [{\"split\": \"test\", "
                            "\"path\": \"" +
                            testSet.string() + "\", \"format\": \"pubtator\"}]}");
        const fs::path bioc = path("ncbi-test.bioc.xml");
        auto r = test::runCli(
            {"export", "--manifest", q(manifest), "--format", "bioc", "--date", "20260101", "--out", q(bioc)});
        QVERIFY2(r.exitCode == 0, r.err.constData());
        const fs::path out = path("ncbi-linked.bioc.xml");
        r = test::runCli({"link", "--corpus", q(bioc), "--kb", q(medic), "--train", q(train), "--dev", q(dev),
                          "--model", q(checkpoint), "--dense-index", q(index), "--device", "cpu", "--keep-gold",
                          "--out", q(out)});
        QVERIFY2(r.exitCode == 0, r.err.constData());
        QVERIFY2(!r.err.contains("Encoding dictionary"), r.err.constData());  // the index eval saved, loaded

        KbReference reference;
        reference.path = medic;
        std::vector<Diagnostic> notes;
        const kb::KnowledgeBase kb = loadKnowledgeBase(reference, notes);
        test::checkAgainstEval(perMention, evalAcc1, test::linkedParts(out, kb));
    }
};

QTEST_GUILESS_MAIN(TestCliLinkModelsData)
#include "test_cli_link_models_data.moc"
