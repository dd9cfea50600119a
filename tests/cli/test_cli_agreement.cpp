// linkscope-cli agreement and merge: two curators' project files on the demo corpora,
// the kappa table as text and JSON (figures worked out by hand in tests/curation/test_agreement),
// the same figures between two curators of one merged file, and the refusals: a missing file,
// a file that is not a project, projects of different manifests, a curator without decisions.
#include <QFile>

#include <cmath>

#include "cli_runner.h"
#include "fixtures.h"
#include "project/project_store.h"

using namespace linkscope;
namespace fs = std::filesystem;

namespace {

constexpr double kTolerance = 1e-9;

QString q(const fs::path& path) { return QString::fromStdString(path.string()); }

project::Decision decisionOn(std::string split, std::string document, std::size_t start, std::size_t end,
                             std::string text, project::DecisionKind kind, std::string link, std::string curator) {
    project::Decision d;
    d.mention = {std::move(split), std::move(document), start, end};
    d.mentionText = std::move(text);
    d.kind = kind;
    d.newLink = std::move(link);
    d.curator = std::move(curator);
    return d;
}

// Four mentions both decided, three agreed: train "Huntington disease" and "chorea" (a rejection
// each), test "Asthma"; they differ on "neurodegenerative disorder". Bob alone decided "HD".
void record(project::ProjectStore& store, const std::string& curator) {
    const bool bob = curator == "bob";
    using K = project::DecisionKind;
    store.record(decisionOn("train", "90000001", 21, 39, "Huntington disease", K::Accept, "MESH:D006816", curator));
    store.record(decisionOn("train", "90000001", 110, 136, "neurodegenerative disorder", bob ? K::Correct : K::Accept,
                            bob ? "MESH:D002819" : "MESH:D019636", curator));
    store.record(decisionOn("train", "90000001", 222, 228, "chorea", K::Reject, "", curator));
    store.record(decisionOn("test", "90000007", 0, 6, "Asthma", K::Accept, "MESH:D001249", curator));
    if (bob) store.record(decisionOn("train", "90000001", 90, 92, "HD", K::Accept, "MESH:D006816", curator));
}

}  // namespace

class TestCliAgreement : public QObject {
    Q_OBJECT
    test::FixtureDir dir_;

    fs::path curatorFile(const char* name, const std::string& curator, bool dropTestSplit = false) {
        ProjectManifest manifest = readProjectManifest(test::demoFile("demo-project.json").toStdString());
        if (dropTestSplit) manifest.corpora.pop_back();
        auto store = project::ProjectStore::create(dir_.path(name), manifest);
        if (!curator.empty()) record(store, curator);
        return store.file();
    }

    // Overall: categories (A: D006816, D019636, rejected, D001249; B: D006816, D002819,
    // rejected, D001249), 3 of 4 agreed; p_e = 3/16; kappa = (12/16 - 3/16) / (13/16) = 9/13.
    static void checkOverall(const nlohmann::json& overall) {
        QCOMPARE(overall["both"].get<int>(), 4);
        QCOMPARE(overall["agreed"].get<int>(), 3);
        QCOMPARE(overall["only_a"].get<int>(), 0);
        QCOMPARE(overall["only_b"].get<int>(), 1);
        QVERIFY(std::fabs(overall["observed"].get<double>() - 0.75) < kTolerance);
        QVERIFY(std::fabs(overall["expected"].get<double>() - 3.0 / 16.0) < kTolerance);
        QVERIFY(std::fabs(overall["kappa"].get<double>() - 9.0 / 13.0) < kTolerance);
    }

private Q_SLOTS:
    void jsonOfTwoFiles() {
        const auto a = curatorFile("ana.linkscope", "ana");
        const auto b = curatorFile("bob.linkscope", "bob");
        const auto r = test::runCli({"agreement", q(a), q(b), "--json"});
        QVERIFY2(r.exitCode == 0, r.err.constData());
        const auto json = r.json();
        checkOverall(json["overall"]);
        QCOMPARE(json["a"]["curators"], nlohmann::json::array({"ana"}));
        QCOMPARE(json["b"]["curators"], nlohmann::json::array({"bob"}));
        // train: 3 both, 2 agreed, categories once each, 2 shared: p_e = 2/9,
        // kappa = (6/9 - 2/9) / (7/9) = 4/7. test: one mention agreed in one category: p_e = 1.
        QVERIFY(std::fabs(json["splits"]["train"]["kappa"].get<double>() - 4.0 / 7.0) < kTolerance);
        QCOMPARE(json["splits"]["train"]["only_b"].get<int>(), 1);
        QVERIFY(json["splits"]["test"]["kappa"].is_null());
        QVERIFY(json["splits"]["test"]["kappa_undefined"].get<std::string>().find("expected agreement is 1") !=
                std::string::npos);
        // Types from the corpora: three SpecificDisease mentions agreed, the DiseaseClass one not.
        QCOMPARE(json["types"]["SpecificDisease"]["both"].get<int>(), 3);
        QCOMPARE(json["types"]["SpecificDisease"]["agreed"].get<int>(), 3);
        QCOMPARE(json["types"]["DiseaseClass"]["agreed"].get<int>(), 0);
        // --no-types: every mention of the unknown type.
        const auto untyped = test::runCli({"agreement", q(a), q(b), "--json", "--no-types"});
        QVERIFY2(untyped.exitCode == 0, untyped.err.constData());
        QCOMPARE(untyped.json()["types"].size(), std::size_t{1});
        QVERIFY(untyped.json()["types"].contains("(unknown type)"));
    }

    void tableOfTwoFiles() {
        const auto a = curatorFile("ana-t.linkscope", "ana");
        const auto b = curatorFile("bob-t.linkscope", "bob");
        const auto r = test::runCli({"agreement", q(a), q(b)});
        QVERIFY2(r.exitCode == 0, r.err.constData());
        const QString out = QString::fromUtf8(r.out);
        QVERIFY2(out.contains(QStringLiteral("(curators: ana)")) && out.contains(QStringLiteral("(curators: bob)")),
                 r.out.constData());
        // overall: 4 both, 3 agreed, 0.750 observed, 0.188 expected, 0.692 kappa, 0 only A, 1 only B.
        QVERIFY2(QRegularExpression(QStringLiteral("\\noverall +4 +3 +0\\.750 +0\\.188 +0\\.692 +0 +1\\n"))
                     .match(out)
                     .hasMatch(),
                 r.out.constData());
        QVERIFY2(QRegularExpression(QStringLiteral("\\nsplit test +1 +1 +1\\.000 +1\\.000 +- +0 +0\\n"))
                     .match(out)
                     .hasMatch(),
                 r.out.constData());
        QVERIFY2(out.contains(QStringLiteral("note: split test: no kappa, expected agreement is 1")),
                 r.out.constData());
        QVERIFY2(out.contains(QStringLiteral("\ntype DiseaseClass ")), r.out.constData());
    }

    // merge, then the two curators of the one file: the same figures as the two files.
    void mergeThenCuratorsOfOneFile() {
        const auto a = curatorFile("ana-m.linkscope", "ana");
        const auto b = curatorFile("bob-m.linkscope", "bob");
        auto r = test::runCli({"merge", q(a), q(b)});
        QVERIFY2(r.exitCode == 0, r.err.constData());
        QVERIFY2(r.out.contains("merged 5 decision(s) by bob") && r.out.contains("1 disagreement(s) to adjudicate"),
                 r.out.constData());
        r = test::runCli({"merge", q(a), q(b)});
        QVERIFY2(r.exitCode == 0 && r.out.contains("merged 0 decision(s)") && r.out.contains("5 already there"),
                 r.out.constData());
        r = test::runCli({"agreement", q(a), "--curator", "ana", "--curator", "bob", "--json"});
        QVERIFY2(r.exitCode == 0, r.err.constData());
        checkOverall(r.json()["overall"]);
        QCOMPARE(r.json()["a"]["curator"].get<std::string>(), std::string("ana"));
        // One file needs two curators; a curator without decisions is named in the error.
        r = test::runCli({"agreement", q(a)});
        QVERIFY(r.exitCode != 0 && r.err.contains("name the two curators"));
        r = test::runCli({"agreement", q(a), "--curator", "ana", "--curator", "carol"});
        QVERIFY2(r.exitCode != 0 && r.err.contains("no decision in effect by curator \"carol\"") &&
                     r.err.contains("ana, bob"),
                 r.err.constData());
        QVERIFY(r.out.isEmpty());
    }

    void refusals() {
        const auto a = curatorFile("ana-r.linkscope", "ana");
        // A missing file.
        auto r = test::runCli({"agreement", q(a), q(dir_.path("missing.linkscope"))});
        QVERIFY(r.exitCode != 0);
        QVERIFY2(r.err.contains("missing.linkscope"), r.err.constData());
        QVERIFY(r.out.isEmpty());
        // A file that is not a project.
        const auto text = dir_.write("notes.linkscope", "these are notes, not a project\n");
        r = test::runCli({"agreement", q(a), q(text)});
        QVERIFY(r.exitCode != 0);
        QVERIFY2(r.err.contains("notes.linkscope") && r.err.contains("not a Linkscope project"), r.err.constData());
        QVERIFY(r.out.isEmpty());
        // Projects of different manifests: both files named, and what differs.
        const auto other = curatorFile("other.linkscope", "bob", /*dropTestSplit=*/true);
        r = test::runCli({"agreement", q(a), q(other)});
        QVERIFY(r.exitCode != 0);
        QVERIFY2(r.err.contains("not projects of the same manifest") && r.err.contains("ana-r.linkscope") &&
                     r.err.contains("other.linkscope") && r.err.contains("splits differ"),
                 r.err.constData());
        QVERIFY(r.out.isEmpty());
        r = test::runCli({"merge", q(a), q(other)});
        QVERIFY2(r.exitCode != 0 && r.err.contains("not projects of the same manifest"), r.err.constData());
        r = test::runCli({"merge", q(a), q(text)});
        QVERIFY2(r.exitCode != 0 && r.err.contains("not a Linkscope project"), r.err.constData());
    }
};

QTEST_GUILESS_MAIN(TestCliAgreement)
#include "test_cli_agreement.moc"
