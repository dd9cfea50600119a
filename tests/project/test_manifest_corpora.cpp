// Manifests: corpora in every format, MedMentions' corpus + PMID lists per split, and
// the UMLS filters; version 2 for what a version-1 reader would get wrong. Loaded end to end.
#include <algorithm>

#include "corpus/bioc_writer.h"
#include "corpus/brat_writer.h"
#include "corpus/pubtator_reader.h"
#include "fixtures.h"
#include "gzip_fixture.h"
#include "kb/kb_builder.h"
#include "project/loaded_project.h"
#include "project/project_manifest.h"

using namespace linkscope;

namespace {

constexpr const char* kCorpus =
    "1|t|Fever and cough.\n1|a|Influenza.\n1\t0\t5\tFever\tT033\tC0015967\n1\t17\t26\tInfluenza\tT038\tC0021400\n\n"
    "2|t|Cough.\n2|a|Fever.\n2\t0\t5\tCough\tT033\tC0010200\n\n"
    "3|t|Headache.\n3|a|Pain.\n3\t0\t8\tHeadache\tT033\tC0018681\n";

// CUI|LAT|TS|LUI|STT|SUI|ISPREF|AUI|SAUI|SCUI|SDUI|SAB|TTY|CODE|STR|SRL|SUPPRESS|CVF|
std::string conso(const std::string& cui, const std::string& lat, const std::string& sab, const std::string& str) {
    return cui + "|" + lat + "|P|L1|PF|S1|Y|A1|||D1|" + sab + "|PT|D1|" + str + "|0|N||\n";
}

}  // namespace

class TestManifestCorpora : public QObject {
    Q_OBJECT
    test::FixtureDir dir_;

    std::filesystem::path manifest(const std::string& version, const std::string& kb, const std::string& corpora) {
        return dir_.write("m.json", R"({"format":"linkscope-project-manifest","version":)" + version +
                                        R"(,"knowledgeBase":)" + kb + R"(,"corpora":)" + corpora + "}");
    }
    void expectError(const std::string& version, const std::string& kb, const std::string& corpora,
                     const std::string& fragment) {
        const auto path = manifest(version, kb, corpora);
        LINKSCOPE_EXPECT_PARSE_ERROR(readProjectManifest(path), path, 0, fragment);
    }

private Q_SLOTS:
    void initTestCase() {
        test::writeGzip(dir_.path("corpus_pubtator.txt.gz"), kCorpus);
        dir_.write("trng.txt", "1\n");
        dir_.write("dev.txt", "2\n");
        dir_.write("test.txt", "3\n");
        dir_.write("kb.txt", "D1||Fever\n");
        dir_.write("MRCONSO.RRF",
                   conso("C0015967", "ENG", "MSH", "Fever") + conso("C0015967", "FRE", "MSHFRE", "Fievre") +
                       conso("C0010200", "ENG", "MSH", "Cough") + conso("C0010200", "ENG", "LNC", "Tussis") +
                       conso("C0021400", "ENG", "MSH", "Influenza") + conso("C0018681", "ENG", "MSH", "Headache") +
                       conso("C0000001", "ENG", "MSH", "Aspirin"));
        dir_.write("MRSTY.RRF",
                   "C0015967|T184|A2.2.2|Sign or Symptom|AT1||\n"
                   "C0010200|T184|A2.2.2|Sign or Symptom|AT2||\n"
                   "C0021400|T047|B2.2.1.2.1|Disease or Syndrome|AT3||\n"
                   "C0018681|T184|A2.2.2|Sign or Symptom|AT4||\n"
                   "C0000001|T109|A1.4.1.2.1|Organic Chemical|AT5||\n"
                   "C0000002|T033|A2.2|Finding|AT6||\n"
                   "C0000003|T038|B2.2.1|Biologic Function|AT7||\n");
        const Corpus corpus = readPubTator(dir_.write("c.txt", kCorpus));
        writeBioC(corpus, dir_.path("c.bioc.xml"));
        writeBrat(corpus, dir_.path("brat"));
    }

    void medMentionsLayoutLoads() {
        const auto path =
            manifest("2",
                     R"({"path":"MRCONSO.RRF","format":"umls","semanticTypes":"MRSTY.RRF",
                                       "semanticTypeFilter":["T033","T038"],"sources":"MSH","languages":["ENG"]})",
                     R"([{"path":"corpus_pubtator.txt.gz","pmidLists":[{"split":"train","path":"trng.txt"},
                                        {"split":"dev","path":"dev.txt"},{"split":"test","path":"test.txt"}]}])");
        const ProjectManifest m = readProjectManifest(path);
        QCOMPARE(m.corpora.size(), std::size_t{3});
        QCOMPARE(m.corpora[1].split, std::string("dev"));
        QCOMPARE(m.corpora[1].path, dir_.path("corpus_pubtator.txt.gz"));
        QCOMPARE(m.corpora[1].pmidList, dir_.path("dev.txt"));
        QCOMPARE(m.corpora[1].format, CorpusFormat::PubTator);  // detected
        QCOMPARE(m.knowledgeBase.semanticTypeFilter, (std::vector<std::string>{"T033", "T038"}));
        QCOMPARE(m.knowledgeBase.sources, (std::vector<std::string>{"MSH"}));

        const LoadedProject project = loadProject(m);
        QCOMPARE(project.splits.size(), std::size_t{3});
        QCOMPARE(project.splits[0].split, std::string("train"));
        QCOMPARE(project.splits[0].corpus.size(), std::size_t{1});
        QCOMPARE(project.splits[2].corpus.documents()[0].pmid(), std::string("3"));
        // T184 lies under T033 Finding, T047 under T038 Biologic Function; Aspirin (T109) does not.
        QCOMPARE(project.kb->entityCount(), std::size_t{4});
        QVERIFY(!project.kb->findEntity("C0000001").has_value());
        // Languages and sources: neither the French nor the LNC name.
        QVERIFY(project.kb->findByName("Fievre").empty());
        QVERIFY(project.kb->findByName("Tussis").empty());
        QVERIFY(!project.kb->findByName("Cough").empty());
    }
    void st21pvByName() {
        const auto m =
            readProjectManifest(manifest("2", R"({"path":"MRCONSO.RRF","format":"umls","semanticTypes":"MRSTY.RRF",
                                                             "semanticTypeFilter":"st21pv","sources":["st21pv"]})",
                                         R"([{"split":"train","path":"c.txt"}])"));
        QCOMPARE(m.knowledgeBase.semanticTypeFilter.size(), std::size_t{21});
        QCOMPARE(m.knowledgeBase.sources.size(), std::size_t{18});
        QCOMPARE(loadProject(m).kb->entityCount(), std::size_t{4});
    }
    void everyFormatLoads() {
        const auto m = readProjectManifest(manifest("1", R"({"path":"kb.txt"})",
                                                    R"([{"split":"a","path":"c.bioc.xml"},{"split":"b","path":"brat"},
                                                        {"split":"c","path":"c.txt","format":"pubtator"},
                                                        {"split":"d","path":"c.bioc.xml","format":"bioc"}])"));
        QCOMPARE(m.corpora[0].format, CorpusFormat::BioC);
        QCOMPARE(m.corpora[1].format, CorpusFormat::Brat);
        const LoadedProject project = loadProject(m);
        QCOMPARE(project.splits.size(), std::size_t{4});
        for (const auto& split : project.splits) {
            QCOMPARE(split.corpus.size(), std::size_t{3});
            QCOMPARE(split.corpus.documents()[0].mentions.size(), std::size_t{2});
        }
    }
    void loadingNamesAListedPmidTheCorpusLacks() {
        dir_.write("bad.txt", "3\n4\n");
        const auto m =
            readProjectManifest(manifest("2", R"({"path":"kb.txt"})",
                                         R"([{"path":"c.txt","pmidLists":[{"split":"train","path":"trng.txt"},
                                                                                      {"split":"test","path":"bad.txt"}]}])"));
        LINKSCOPE_EXPECT_PARSE_ERROR(loadProject(m), dir_.path("bad.txt"), 2,
                                     "PMID 4 of the test list is not in the corpus");
        // A document in no list (2) is a diagnostic of the project, not lost silently.
        const auto partial =
            readProjectManifest(manifest("2", R"({"path":"kb.txt"})",
                                         R"([{"path":"c.txt","pmidLists":[{"split":"train","path":"trng.txt"},
                                                                                            {"split":"test","path":"test.txt"}]}])"));
        const LoadedProject project = loadProject(partial);
        QVERIFY(std::any_of(project.diagnostics.begin(), project.diagnostics.end(), [](const Diagnostic& d) {
            return d.message.find("1 of 3 documents are in no PMID list") != std::string::npos;
        }));
    }

    void homonymPairsInNameOrder() {
        // LoadedProject::homonymPairs: by the name's text (bytewise), the pairs of one name in
        // pair order; checked against a stable sort of the texts. Names given in neither text nor
        // id order, three entities sharing one, a preferred name shared.
        kb::KnowledgeBaseBuilder builder;
        const std::vector<std::string> shared{"zeta", "Alpha", "mid", "alpha", "Zeta"};
        for (int e = 0; e < 9; ++e) {
            const auto entity = builder.entity("MESH:D00000" + std::to_string(e));
            builder.addName(entity, "own " + std::to_string(e));
            builder.addName(entity, shared[static_cast<std::size_t>((e * 7) % 5)]);
            if (e % 3 == 0) builder.addName(entity, "common");
        }
        const kb::KnowledgeBase kb = builder.build();
        const kb::HomonymExpansion homonyms = kb::expandHomonyms(kb);
        std::vector<std::size_t> expected;
        for (std::size_t pair = 0; pair < homonyms.pairCount(); ++pair)
            if (homonyms.isHomonym(pair)) expected.push_back(pair);
        std::stable_sort(expected.begin(), expected.end(), [&kb](std::size_t a, std::size_t b) {
            return kb.strings().view(kb.pairName(a)) < kb.strings().view(kb.pairName(b));
        });
        QCOMPARE(expected.size(), std::size_t{11});  // "common" x 3, and 4 of the 5 shared names x 2
        QCOMPARE(homonymPairsByName(kb, homonyms), expected);
        QCOMPARE(kb.strings().view(kb.pairName(expected.front())), std::string_view("Alpha"));
    }

    void errors() {
        const std::string kb = R"({"path":"kb.txt"})";
        const std::string lists = R"([{"path":"c.txt","pmidLists":[{"split":"train","path":"trng.txt"}]}])";
        expectError("1", kb, lists, "\"pmidLists\" needs \"version\": 2");
        expectError("3", kb, lists, "unsupported manifest version");
        expectError("2", kb, R"([{"path":"c.txt","split":"x","pmidLists":[{"split":"train","path":"trng.txt"}]}])",
                    "either \"split\" or \"pmidLists\"");
        expectError("2", kb, R"([{"path":"c.txt","pmidLists":[]}])", "\"pmidLists\" is empty");
        expectError("2", kb, R"([{"path":"c.txt","pmidLists":[{"split":"train","path":"nope.txt"}]}])",
                    "corpora[0].pmidLists[0]: ");
        expectError("2", kb, R"([{"path":"c.txt","pmidLists":[{"split":"../x","path":"trng.txt"}]}])",
                    "path separator");
        expectError("2", kb, R"([{"path":"c.txt","pmidLists":["trng.txt"]}])", "expected an object");
        expectError("1", kb, R"([{"path":"c.txt","format":"owl"}])", "unknown corpus format \"owl\"");
        expectError("1", R"({"path":"MRCONSO.RRF","format":"umls","sources":"MSH"})", R"([{"path":"c.txt"}])",
                    "need \"version\": 2");
        expectError("2", R"({"path":"kb.txt","sources":"MSH"})", R"([{"path":"c.txt"}])",
                    "this knowledge base is medic");
        expectError("2", R"({"path":"MRCONSO.RRF","format":"umls","semanticTypeFilter":"T047"})",
                    R"([{"path":"c.txt"}])", "semanticTypeFilter needs \"semanticTypes\"");
        expectError(
            "2", R"({"path":"MRCONSO.RRF","format":"umls","semanticTypes":"MRSTY.RRF","semanticTypeFilter":"Disease"})",
            R"([{"path":"c.txt"}])", "\"Disease\" is not a semantic type id");
        expectError("2", R"({"path":"MRCONSO.RRF","format":"umls","sources":[3]})", R"([{"path":"c.txt"}])",
                    "\"sources\" must be a string or an array of strings");
    }
};

QTEST_APPLESS_MAIN(TestManifestCorpora)
#include "test_manifest_corpora.moc"
