// linkscope-cli eval on the real NCBI Disease corpus and MEDIC: the accuracy targets of the
// sparse linker (BioSyn's sparse score with our own preprocessing).
#include "cli_runner.h"
#include "test_data.h"

using namespace linkscope;

class TestCliEvalData : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void ncbiDiseaseTestReachesBioSynSparse() {
        LINKSCOPE_REQUIRE_DATA(train, "ncbi-disease/NCBItrainset_corpus.txt");
        LINKSCOPE_REQUIRE_DATA(dev, "ncbi-disease/NCBIdevelopset_corpus.txt");
        LINKSCOPE_REQUIRE_DATA(testSet, "ncbi-disease/NCBItestset_corpus.txt");
        LINKSCOPE_REQUIRE_DATA(medic, "medic/medic_06Jul2012.txt");
        LINKSCOPE_REQUIRE_DATA(spelling, "medic/ncbi-spell-check.txt");
        const auto q = [](const std::filesystem::path& p) { return QString::fromStdString(p.string()); };
        const auto r =
            test::runCli({"eval", "--train", q(train), "--dev", q(dev), "--test", q(testSet), "--kb", q(medic),
                          "--spelling", q(spelling), "--split", "test", "--method", "sparse", "--json"});
        QVERIFY2(r.exitCode == 0, r.err.constData());
        const auto j = r.json();
        QCOMPARE(j["mentions"].get<int>(), 960);
        // scikit-learn's TF-IDF on BioSyn's own preprocessed queries gives 0.872 / 0.899.
        QVERIFY2(j["acc@1"].get<double>() >= 0.872, j.dump().c_str());
        QVERIFY2(j["acc@5"].get<double>() >= 0.899, j.dump().c_str());
    }
};

QTEST_GUILESS_MAIN(TestCliEvalData)
#include "test_cli_eval_data.moc"
