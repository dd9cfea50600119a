// linkscope-cli stats on the real NCBI Disease splits and MEDIC, checked against counts this
// test makes itself from the raw files (not through the engine).
#include <map>
#include <set>

#include "cli_runner.h"
#include "test_data.h"

using namespace linkscope;

namespace {

// Exact-string homonyms of a MEDIC file counted naively: name -> set of line numbers.
std::pair<std::size_t, std::size_t> naiveHomonyms(const std::filesystem::path& medic) {
    std::ifstream in(medic);
    std::map<std::string, std::set<std::size_t>> entities;
    std::string line;
    for (std::size_t n = 0; std::getline(in, line); ++n) {
        std::string names = line.substr(line.find("||") + 2);
        std::size_t start = 0;
        for (;;) {
            const auto bar = names.find('|', start);
            const std::string name = names.substr(start, bar == std::string::npos ? std::string::npos : bar - start);
            if (!name.empty()) entities[name].insert(n);
            if (bar == std::string::npos) break;
            start = bar + 1;
        }
    }
    std::size_t names = 0, pairs = 0;
    for (const auto& [name, lines] : entities)
        if (lines.size() > 1) {
            ++names;
            pairs += lines.size();
        }
    return {names, pairs};
}

}  // namespace

class TestCliStatsData : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void ncbiDiseaseAndMedic() {
        LINKSCOPE_REQUIRE_DATA(train, "ncbi-disease/NCBItrainset_corpus.txt");
        LINKSCOPE_REQUIRE_DATA(dev, "ncbi-disease/NCBIdevelopset_corpus.txt");
        LINKSCOPE_REQUIRE_DATA(testSet, "ncbi-disease/NCBItestset_corpus.txt");
        LINKSCOPE_REQUIRE_DATA(medic, "medic/medic_06Jul2012.txt");
        const auto r = test::runCli({"stats", "--corpus", QString::fromStdString(train.string()),
                                     QString::fromStdString(dev.string()), QString::fromStdString(testSet.string()),
                                     "--kb", QString::fromStdString(medic.string()), "--json"});
        QVERIFY2(r.exitCode == 0, r.err.constData());
        const auto j = r.json();
        QCOMPARE(j["corpora"][0]["documents"].get<int>(), 592);  // 593 blocks, PMID 8528200 twice
        QCOMPARE(j["corpora"][0]["duplicate_documents"].get<int>(), 1);
        QCOMPARE(j["corpora"][1]["documents"].get<int>(), 100);
        QCOMPARE(j["corpora"][2]["documents"].get<int>(), 100);
        QCOMPARE(j["corpora"][1]["mentions"].get<int>(), 787);
        QCOMPARE(j["corpora"][2]["mentions"].get<int>(), 960);
        QCOMPARE(j["documents"].get<int>(), 792);
        // Every NCBI id resolves in MEDIC, the OMIM ones through MEDIC's alternative ids.
        QCOMPARE(j["total"]["ids_missing_from_kb"].get<int>(), 0);
        QCOMPARE(j["kb"]["entities"].get<int>(), 11915);
        const auto [names, pairs] = naiveHomonyms(medic);
        QCOMPARE(j["kb"]["homonyms_exact"].get<std::size_t>(), names);
        QCOMPARE(j["kb"]["homonym_table"]["exact"]["homonym_pairs"].get<std::size_t>(), pairs);
        QVERIFY(j["kb"]["homonyms_normalized"].get<std::size_t>() > names);  // normalization merges names
    }
    void bc5cdrTrainingWithRelations() {
        LINKSCOPE_REQUIRE_DATA(train, "bc5cdr/CDR_TrainingSet.PubTator.txt");
        const auto r = test::runCli({"stats", "--corpus", QString::fromStdString(train.string()), "--json"});
        QVERIFY2(r.exitCode == 0, r.err.constData());
        const auto j = r.json();
        QCOMPARE(j["documents"].get<int>(), 500);
        QCOMPARE(j["total"]["mentions_by_type"]["Chemical"].get<int>(), 5203);
        QCOMPARE(j["total"]["mentions_by_type"]["Disease"].get<int>(), 4182);
        QCOMPARE(j["total"]["relations_by_type"]["CID"].get<int>(), 1038);
    }
};

QTEST_GUILESS_MAIN(TestCliStatsData)
#include "test_cli_stats_data.moc"
