// The real corpora through every export format and back, read in place from ../shared/data:
// NCBI Disease train through BioC and brat gives back the original annotations, BC5CDR training
// likewise through BioC (relations and individual mentions included) and through brat (with the
// relations and individual-mention lists it cannot hold counted exactly), and the PubTator export
// without decisions is the input file byte for byte.
#include "corpus/bioc_reader.h"
#include "corpus/bioc_writer.h"
#include "corpus/brat_reader.h"
#include "corpus/brat_writer.h"
#include "corpus/pubtator_reader.h"
#include "corpus/pubtator_writer.h"
#include "curation/apply_decisions.h"
#include "export_fixtures.h"

using namespace linkscope;

class TestExportData : public QObject {
    Q_OBJECT
    test::FixtureDir dir_;

    void bioCRoundTrip(const Corpus& corpus, const std::string& name) {
        const auto file = dir_.path(name + ".bioc.xml");
        writeBioC(corpus, file);
        const Corpus back = readBioC(file);
        QVERIFY(back.diagnostics.empty());
        for (std::size_t i = 0; i < corpus.size(); ++i)
            QCOMPARE(back.documents()[i].pmid(), corpus.documents()[i].pmid());
        const auto difference = test::annotationDifference(corpus, back);
        QVERIFY2(difference.empty(), difference.c_str());
        qInfo("%s: BioC file of %llu bytes", name.c_str(),
              static_cast<unsigned long long>(std::filesystem::file_size(file)));
    }

    // Returns the summary after checking that what brat holds came back.
    BratExportSummary bratRoundTrip(const Corpus& corpus, const std::string& name) {
        const auto folder = dir_.path(name + "-brat");
        const BratExportSummary summary = writeBrat(corpus, folder);
        const Corpus back = readBrat(folder);
        [&] {
            QVERIFY(back.diagnostics.empty());
            const auto difference =
                test::annotationDifference(corpus, back, {.relations = false, .individualMentions = false});
            QVERIFY2(difference.empty(), difference.c_str());
        }();
        return summary;
    }

private Q_SLOTS:
    void ncbiTrainThroughBioCAndBrat() {
        LINKSCOPE_REQUIRE_DATA(path, "ncbi-disease/NCBItrainset_corpus.txt");
        const Corpus corpus = readPubTator(path);
        QCOMPARE(corpus.size(), std::size_t{592});  // 593 documents, one of them twice
        bioCRoundTrip(corpus, "ncbi-train");
        if (QTest::currentTestFailed()) return;
        const BratExportSummary summary = bratRoundTrip(corpus, "ncbi-train");
        if (QTest::currentTestFailed()) return;
        QCOMPARE(summary.documents, corpus.size());
        QCOMPARE(summary.mentions, std::size_t{5134});  // 5,145 lines less the 11 of the duplicate
        QVERIFY(summary.complete());                    // NCBI Disease has no relations and no individual mentions
    }

    void bc5cdrTrainingThroughBioC() {
        LINKSCOPE_REQUIRE_DATA(path, "bc5cdr/CDR_TrainingSet.PubTator.txt");
        const Corpus corpus = readPubTator(path);
        std::size_t relations = 0, individual = 0;
        for (const auto& document : corpus.documents()) {
            relations += document.relations.size();
            for (const auto& mention : document.mentions) individual += mention.individualMentions.empty() ? 0 : 1;
        }
        QVERIFY(relations > 0 && individual > 0);
        bioCRoundTrip(corpus, "cdr-train");
        if (QTest::currentTestFailed()) return;
        const BratExportSummary summary = bratRoundTrip(corpus, "cdr-train");
        if (QTest::currentTestFailed()) return;
        QCOMPARE(summary.relationsLeftOut, relations);
        QCOMPARE(summary.individualMentionListsLeftOut, individual);
        qInfo("BC5CDR training: %llu relations and %llu individual-mention lists left out of brat",
              static_cast<unsigned long long>(relations), static_cast<unsigned long long>(individual));
    }

    void pubTatorExportWithoutDecisionsIsTheInput() {
        for (const char* relative : {"ncbi-disease/NCBIdevelopset_corpus.txt", "ncbi-disease/NCBItestset_corpus.txt",
                                     "bc5cdr/CDR_DevelopmentSet.PubTator.txt", "bc5cdr/CDR_TrainingSet.PubTator.txt"}) {
            LINKSCOPE_REQUIRE_DATA(path, relative);
            const Corpus corpus = readPubTator(path);
            QVERIFY2(corpus.duplicates.empty(), relative);
            curation::ApplySummary summary;
            const Corpus exported = curation::applyDecisions(corpus, "dev", {}, &summary);
            QCOMPARE(summary.changedMentions, std::size_t{0});
            const auto out = dir_.path(std::filesystem::path(relative).filename().string());
            writePubTator(exported, out);
            QVERIFY2(test::readFile(out) == test::readFile(path), relative);
        }
    }
};

QTEST_APPLESS_MAIN(TestExportData)
#include "test_export_data.moc"
