// linkscope-cli export: the demo manifest exported without decisions is the input byte for byte
// (one split to a file, several to a folder); a project's decisions change exactly their lines;
// BioC, brat and the decisions log are written; a decision naming no mention writes nothing.
#include <QFile>

#include <set>

#include "cli_runner.h"
#include "corpus/bioc_reader.h"
#include "corpus/brat_reader.h"
#include "corpus/link_column.h"
#include "curation/decision_log.h"
#include "fixtures.h"
#include "project/project_store.h"

using namespace linkscope;
namespace fs = std::filesystem;

namespace {

QString q(const fs::path& path) { return QString::fromStdString(path.string()); }
fs::path demoPath(const char* name) { return test::demoFile(name).toStdString(); }

std::vector<std::string> linesOf(const std::string& text) {
    std::vector<std::string> lines;
    std::size_t start = 0;
    while (start < text.size()) {
        const auto end = text.find('\n', start);
        lines.push_back(text.substr(start, end - start));
        start = end + 1;
    }
    return lines;
}

project::Decision decisionOn(std::size_t start, std::size_t end, std::string text, project::DecisionKind kind,
                             std::string newLink) {
    project::Decision decision;
    decision.mention = {"train", "90000001", start, end};
    decision.mentionText = std::move(text);
    decision.kind = kind;
    decision.newLink = std::move(newLink);
    decision.curator = "test";
    return decision;
}

}  // namespace

class TestCliExport : public QObject {
    Q_OBJECT
    test::FixtureDir dir_;

    // A project on the demo corpora with two decisions in effect and one undone.
    fs::path demoProject(const char* name, bool withMissingMention = false) {
        const fs::path file = dir_.path(name);
        auto store = project::ProjectStore::create(file, readProjectManifest(demoPath("demo-project.json")));
        store.record(decisionOn(90, 92, "HD", project::DecisionKind::Correct, "MESH:D006816|MESH:D009069"));
        store.record(decisionOn(222, 228, "chorea", project::DecisionKind::Reject, ""));
        store.record(decisionOn(21, 39, "Huntington disease", project::DecisionKind::Nil, "-1"));
        (void)store.undo();  // the nil is undone: not in the export, in the log
        if (withMissingMention) store.record(decisionOn(1, 3, "ar", project::DecisionKind::Accept, "MESH:D006816"));
        return file;
    }

private Q_SLOTS:
    void manifestExportIsTheInput() {
        const auto out = dir_.path("train.txt");
        auto r = test::runCli({"export", "--manifest", test::demoFile("demo-project.json"), "--format", "pubtator",
                               "--split", "train", "--out", q(out)});
        QVERIFY2(r.exitCode == 0, r.err.constData());
        QVERIFY(test::readFile(out) == test::readFile(demoPath("demo-train.txt")));
        QVERIFY2(r.out.contains("train: 6 documents"), r.out.constData());

        const auto folder = dir_.path("all");
        r = test::runCli(
            {"export", "--manifest", test::demoFile("demo-project.json"), "--format", "pubtator", "--out", q(folder)});
        QVERIFY2(r.exitCode == 0, r.err.constData());
        QVERIFY(test::readFile(folder / "train.pubtator.txt") == test::readFile(demoPath("demo-train.txt")));
        QVERIFY(test::readFile(folder / "test.pubtator.txt") == test::readFile(demoPath("demo-test.txt")));
    }

    void projectDecisionsChangeExactlyTheirLines() {
        const auto project = demoProject("p.linkscope");
        const auto out = dir_.path("corrected.txt");
        const auto r = test::runCli(
            {"export", "--project", q(project), "--format", "pubtator", "--split", "train", "--out", q(out)});
        QVERIFY2(r.exitCode == 0, r.err.constData());
        QVERIFY2(r.out.contains("2 decisions applied, 2 mentions changed"), r.out.constData());
        const auto before = linesOf(test::readFile(demoPath("demo-train.txt")));
        const auto after = linesOf(test::readFile(out));
        QCOMPARE(after.size(), before.size());
        for (std::size_t i = 0; i < before.size(); ++i) {
            if (i == 4)
                QCOMPARE(after[i], std::string("90000001\t90\t92\tHD\tSpecificDisease\tD006816|D009069"));
            else if (i == 6)
                QCOMPARE(after[i], std::string("90000001\t222\t228\tchorea\tSpecificDisease\t"));
            else
                QCOMPARE(after[i], before[i]);
        }
    }

    void bioCBratAndDecisionLog() {
        const auto project = demoProject("formats.linkscope");
        const auto xml = dir_.path("train.xml");
        auto r = test::runCli({"export", "--project", q(project), "--format", "bioc", "--split", "train", "--out",
                               q(xml), "--date", "20260101"});
        QVERIFY2(r.exitCode == 0, r.err.constData());
        const Corpus bioc = readBioC(xml);
        QCOMPARE(bioc.size(), std::size_t{6});
        QCOMPARE(bioc.find("90000001")->mentions[2].ids.ids,
                 (std::vector<std::string>{"MESH:D006816", "MESH:D009069"}));
        QVERIFY(test::readFile(xml).find("<date>20260101</date>") != std::string::npos);

        const auto brat = dir_.path("brat");
        r = test::runCli({"export", "--project", q(project), "--format", "brat", "--out", q(brat)});
        QVERIFY2(r.exitCode == 0, r.err.constData());
        const Corpus train = readBrat(brat / "train");
        QCOMPARE(train.size(), std::size_t{6});
        QVERIFY(isUnlinked(train.find("90000001")->mentions[4]));
        QVERIFY(fs::is_directory(brat / "test"));

        const auto log = dir_.path("decisions.jsonl");
        r = test::runCli({"export", "--project", q(project), "--format", "decisions", "--out", q(log)});
        QVERIFY2(r.exitCode == 0, r.err.constData());
        QVERIFY2(r.out.contains("3 written (2 in effect, 1 undone or discarded)"), r.out.constData());
        const auto decisions = curation::readDecisionLog(log);
        QCOMPARE(decisions.size(), std::size_t{3});
        QCOMPARE(decisions[2].state, project::DecisionState::Undone);
        QCOMPARE(decisions[0].newLink, std::string("MESH:D006816|MESH:D009069"));
    }

    // A folder export is staged beside the folder and swapped in whole: files it does not write
    // stay (an older split, a brat annotation.conf), an output that is a link to a folder stays a
    // link, and nothing is left beside the folder.
    void folderExportKeepsOtherFilesAndLeavesNothingBeside() {
        const auto project = demoProject("folder.linkscope");
        const auto parent = dir_.path("folder-export");
        const auto out = parent / "out";
        fs::create_directories(out);
        test::writeFile(out / "train.pubtator.txt", "an older export\n");
        test::writeFile(out / "dev.pubtator.txt", "an older split\n");
        auto r = test::runCli({"export", "--project", q(project), "--format", "pubtator", "--out", q(out)});
        QVERIFY2(r.exitCode == 0, r.err.constData());
        QVERIFY(test::readFile(out / "test.pubtator.txt") == test::readFile(demoPath("demo-test.txt")));
        QVERIFY(test::readFile(out / "train.pubtator.txt") != "an older export\n");
        QCOMPARE(test::readFile(out / "dev.pubtator.txt"), std::string("an older split\n"));
        QVERIFY2(r.out.contains(q(out / "train.pubtator.txt").toUtf8()), r.out.constData());

        fs::create_directories(parent / "real-brat");
        test::writeFile(parent / "real-brat" / "annotation.conf", "[entities]\nSpecificDisease\n");
        fs::create_directory_symlink("real-brat", parent / "brat");
        r = test::runCli(
            {"export", "--project", q(project), "--format", "brat", "--split", "train", "--out", q(parent / "brat")});
        QVERIFY2(r.exitCode == 0, r.err.constData());
        QVERIFY(fs::is_symlink(fs::symlink_status(parent / "brat")));
        QCOMPARE(readBrat(parent / "brat").size(), std::size_t{6});
        QCOMPARE(test::readFile(parent / "real-brat" / "annotation.conf"),
                 std::string("[entities]\nSpecificDisease\n"));

        std::set<std::string> names;
        for (const auto& entry : fs::directory_iterator(parent)) names.insert(entry.path().filename().string());
        QCOMPARE(names, (std::set<std::string>{"brat", "out", "real-brat"}));
    }

    void decisionWithoutItsMentionWritesNothing() {
        const auto project = demoProject("missing.linkscope", true);
        const auto out = dir_.path("never.txt");
        const auto r = test::runCli({"export", "--project", q(project), "--format", "pubtator", "--out", q(out)});
        QCOMPARE(r.exitCode, 1);
        QVERIFY2(r.err.contains("1 curation decision cannot be applied to split \"train\""), r.err.constData());
        QVERIFY2(r.err.contains("offsets 1-3"), r.err.constData());
        QVERIFY(!fs::exists(out));
    }

    void refusals() {
        auto r = test::runCli({"export", "--manifest", test::demoFile("demo-project.json"), "--format", "pubtator",
                               "--split", "dev", "--out", q(dir_.path("x.txt"))});
        QCOMPARE(r.exitCode, 1);
        QVERIFY2(r.err.contains("no split \"dev\" (its splits: test, train)"), r.err.constData());
        r = test::runCli({"export", "--manifest", test::demoFile("demo-project.json"), "--format", "decisions", "--out",
                          q(dir_.path("x.jsonl"))});
        QCOMPARE(r.exitCode, 1);
        QVERIFY2(r.err.contains("needs --project"), r.err.constData());
        r = test::runCli({"export", "--format", "pubtator", "--out", q(dir_.path("y.txt"))});
        QVERIFY(r.exitCode != 0);
        QVERIFY2(r.err.contains("--project or --manifest"), r.err.constData());
    }
};

QTEST_APPLESS_MAIN(TestCliExport)
#include "test_cli_export.moc"
