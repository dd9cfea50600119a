// linkscope-cli link: every mention of a corpus linked and written in the format read, everything
// else as export writes it; the links scored against the gold give eval's Acc@1.
#include <QRegularExpression>
#include <QStringList>

#include <algorithm>
#include <filesystem>
#include <map>
#include <memory>
#include <string>
#include <tuple>
#include <vector>

#include "cli_runner.h"
#include "corpus/pubtator_reader.h"
#include "eval/queries.h"
#include "fixtures.h"
#include "kb/knowledge_base.h"
#include "linked_bioc.h"
#include "project/loaded_project.h"
#include "test_data.h"
#include "text/spelling_map.h"

using namespace linkscope;
namespace fs = std::filesystem;

namespace {

QString q(const fs::path& path) { return QString::fromStdString(path.string()); }

QStringList linesOf(const fs::path& path) { return QString::fromStdString(test::readFile(path)).split('\n'); }

// A mention line of a PubTator file: PMID, start, end, text, type, ids[, individual mentions].
bool isMentionLine(const QString& line) {
    const auto columns = line.split('\t');
    return columns.size() >= 6 && columns[1] != "CID";
}

}  // namespace

class TestCliLink : public QObject {
    Q_OBJECT
private Q_SLOTS:
    // Only the id column of a mention line changes; the links are MEDIC ids, mostly the gold.
    void pubTatorGetsIdsAndKeepsEveryOtherByte() {
        test::FixtureDir dir;
        const fs::path out = dir.path("linked.txt");
        const auto r = test::runCli({"link", "--corpus", test::demoFile("demo-test.txt"), "--kb",
                                     test::demoFile("demo-kb.txt"), "--method", "sparse", "--out", q(out)});
        QVERIFY2(r.exitCode == 0, r.err.constData());
        QVERIFY2(r.out.contains("mentions:"), r.out.constData());
        const QStringList input = linesOf(test::demoFile("demo-test.txt").toStdString());
        const QStringList output = linesOf(out);
        QCOMPARE(output.size(), input.size());
        int mentions = 0;
        int gold = 0;
        for (int i = 0; i < input.size(); ++i) {
            if (!isMentionLine(input[i])) {
                QCOMPARE(output[i], input[i]);
                continue;
            }
            ++mentions;
            auto in = input[i].split('\t');
            auto linked = output[i].split('\t');
            QCOMPARE(linked.size(), in.size());
            QVERIFY2(!linked[5].isEmpty(), qPrintable(output[i]));
            if (linked[5] == in[5].trimmed()) ++gold;
            linked[5].clear();
            in[5].clear();
            QCOMPARE(linked, in);
        }
        QVERIFY(mentions > 0);
        QVERIFY2(gold * 2 > mentions, qPrintable(QString("%1 of %2 gold").arg(gold).arg(mentions)));
    }

    // --nil-below: a score no link reaches makes every mention NIL; score 0 leaves them linked.
    void nilBelowWritesNil() {
        test::FixtureDir dir;
        const fs::path all = dir.path("nil.txt");
        auto r = test::runCli({"link", "--corpus", test::demoFile("demo-test.txt"), "--kb",
                               test::demoFile("demo-kb.txt"), "--nil-below", "2", "--out", q(all)});
        QVERIFY2(r.exitCode == 0, r.err.constData());
        const fs::path none = dir.path("linked.txt");
        r = test::runCli({"link", "--corpus", test::demoFile("demo-test.txt"), "--kb", test::demoFile("demo-kb.txt"),
                          "--nil-below", "0", "--out", q(none)});
        QVERIFY2(r.exitCode == 0, r.err.constData());
        int mentions = 0;
        for (const auto& line : linesOf(all))
            if (isMentionLine(line)) {
                ++mentions;
                QCOMPARE(line.split('\t')[5], QString("-1"));
            }
        QVERIFY(mentions > 0);
        for (const auto& line : linesOf(none))
            if (isMentionLine(line)) QVERIFY2(line.split('\t')[5] != "-1", qPrintable(line));
    }

    // BioC with --keep-gold: the identifier infons are the corpus' own, the link and the K best
    // are infons beside them. PubTator has one id column: --keep-gold is refused there.
    void bioCKeepsGoldAndWritesTheBest() {
        test::FixtureDir dir;
        const fs::path bioc = dir.path("test.bioc.xml");
        auto r = test::runCli({"export", "--manifest", test::demoFile("demo-project.json"), "--format", "bioc",
                               "--split", "test", "--date", "20260101", "--out", q(bioc)});
        QVERIFY2(r.exitCode == 0, r.err.constData());
        const fs::path out = dir.path("linked.bioc.xml");
        r = test::runCli({"link", "--corpus", q(bioc), "--kb", test::demoFile("demo-kb.txt"), "--keep-gold", "--top",
                          "3", "--out", q(out)});
        QVERIFY2(r.exitCode == 0, r.err.constData());
        const QString input = QString::fromStdString(test::readFile(bioc));
        const QString output = QString::fromStdString(test::readFile(out));
        const QRegularExpression identifier("<infon key=\"identifier\">[^<]*</infon>");
        QStringList goldIn;
        QStringList goldOut;
        for (const auto& m : identifier.globalMatch(input)) goldIn << m.captured();
        for (const auto& m : identifier.globalMatch(output)) goldOut << m.captured();
        QVERIFY(!goldIn.isEmpty());
        QCOMPARE(goldOut, goldIn);
        QCOMPARE(output.count("key=\"linkscope_identifier\""), goldIn.size());
        QCOMPARE(output.count("key=\"linkscope_score\""), goldIn.size());
        QVERIFY(output.count("key=\"linkscope_candidate_3\"") > 0);
        QCOMPARE(output.count("key=\"linkscope_linker\""), goldIn.size());

        r = test::runCli({"link", "--corpus", test::demoFile("demo-test.txt"), "--kb", test::demoFile("demo-kb.txt"),
                          "--keep-gold", "--out", q(dir.path("refused.txt"))});
        QVERIFY(r.exitCode != 0);
        QVERIFY2(r.err.contains("--keep-gold needs a BioC corpus"), r.err.constData());
        QVERIFY(!fs::exists(dir.path("refused.txt")));
    }

    // A mention with nothing left to rank is named on stderr and written as NIL, not dropped.
    void unrankableMentionIsReportedAndNil() {
        test::FixtureDir dir;
        const fs::path corpus = dir.write("corpus.txt",
                                          "300|t|Asthma -- and more.\n"
                                          "300|a|Nothing.\n"
                                          "300\t0\t6\tAsthma\tDisease\t\n"
                                          "300\t7\t9\t--\tDisease\tD001249\n");
        const fs::path out = dir.path("linked.txt");
        const auto r =
            test::runCli({"link", "--corpus", q(corpus), "--kb", test::demoFile("demo-kb.txt"), "--out", q(out)});
        QVERIFY2(r.exitCode == 0, r.err.constData());
        QVERIFY2(r.err.contains("document 300, characters 7-9: not ranked"), r.err.constData());
        QVERIFY2(r.out.contains("1 not ranked"), r.out.constData());
        const QStringList lines = linesOf(out);
        QCOMPARE(lines[2], QString("300\t0\t6\tAsthma\tDisease\tD001249"));
        QCOMPARE(lines[3], QString("300\t7\t9\t--\tDisease\t-1"));
    }

    // The links written on NCBI Disease test, scored against its gold, give eval's Acc@1 for the
    // same sparse linker (same dictionary: MEDIC + train + dev mentions). Linked as BioC with
    // --keep-gold, so that the gold and each part's link of a composite mention are read back.
    void ncbiLinksScoreAsEval() {
        LINKSCOPE_REQUIRE_DATA(train, "ncbi-disease/NCBItrainset_corpus.txt");
        LINKSCOPE_REQUIRE_DATA(dev, "ncbi-disease/NCBIdevelopset_corpus.txt");
        LINKSCOPE_REQUIRE_DATA(testSet, "ncbi-disease/NCBItestset_corpus.txt");
        LINKSCOPE_REQUIRE_DATA(medic, "medic/medic_06Jul2012.txt");
        LINKSCOPE_REQUIRE_DATA(spelling, "medic/ncbi-spell-check.txt");
        const auto e =
            test::runCli({"eval", "--train", q(train), "--dev", q(dev), "--test", q(testSet), "--kb", q(medic),
                          "--spelling", q(spelling), "--split", "test", "--method", "sparse", "--json"});
        QVERIFY2(e.exitCode == 0, e.err.constData());
        const double evalAcc1 = e.json()["acc@1"].get<double>();

        test::FixtureDir dir;
        const fs::path manifest =
            dir.write("ncbi.json",
                      "{\"format\": \"linkscope-project-manifest\", \"version\": 1, \"name\": \"ncbi\", "
                      "\"knowledgeBase\": {\"path\": \"" +
                          medic.string() +
                          "\", \"format\": \"medic\"}, \"corpora\": [{\"split\": \"test\", "
                          "\"path\": \"" +
                          testSet.string() + "\", \"format\": \"pubtator\"}]}");
        const fs::path bioc = dir.path("test.bioc.xml");
        auto r = test::runCli(
            {"export", "--manifest", q(manifest), "--format", "bioc", "--date", "20260101", "--out", q(bioc)});
        QVERIFY2(r.exitCode == 0, r.err.constData());
        const fs::path out = dir.path("linked.bioc.xml");
        r = test::runCli({"link", "--corpus", q(bioc), "--kb", q(medic), "--spelling", q(spelling), "--train", q(train),
                          "--dev", q(dev), "--keep-gold", "--out", q(out)});
        QVERIFY2(r.exitCode == 0, r.err.constData());

        // Each annotation's parts as written: linkscope_part_P, else linkscope_identifier.
        KbReference reference;
        reference.path = medic;
        std::vector<Diagnostic> notes;
        const kb::KnowledgeBase kb = loadKnowledgeBase(reference, notes);
        const auto linked = test::linkedParts(out, kb);

        // Eval's rule: a part is right when its entry names a gold id, the mention when all are.
        eval::QueryOptions options;
        options.normalizer =
            eval::bioSynQueryNormalizer(std::make_shared<const text::SpellingMap>(text::SpellingMap::load(spelling)));
        const eval::QuerySet gold = eval::buildQueries(readPubTator(testSet), kb, options);
        QCOMPARE(linked.size(), gold.queries.size());
        std::size_t correct = 0;
        for (const auto& query : gold.queries) {
            const auto found = linked.find({query.document, query.start, query.end});
            QVERIFY2(found != linked.end(), query.document.c_str());
            const auto& parts = found->second;
            QCOMPARE(parts.size(), query.parts.size());
            const bool right = std::all_of(parts.begin(), parts.end(), [&](const std::vector<std::string>& ids) {
                return std::any_of(ids.begin(), ids.end(), [&](const std::string& id) {
                    return std::find(query.goldIds.begin(), query.goldIds.end(), id) != query.goldIds.end();
                });
            });
            correct += right ? 1 : 0;
        }
        QCOMPARE(static_cast<double>(correct) / static_cast<double>(gold.queries.size()), evalAcc1);
    }
};

QTEST_GUILESS_MAIN(TestCliLink)
#include "test_cli_link.moc"
