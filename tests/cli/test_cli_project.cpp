// linkscope-cli project check, and the damage it finds refused by export, agreement and merge
// too, each naming the file that holds it: a digit of a stored link changed on disk (the row's
// checksum), a byte of an index entry changed (SQLite's integrity_check; quick_check passes),
// and a link that does not parse in the second of two files.
#include <SQLiteCpp/SQLiteCpp.h>

#include <string>
#include <string_view>

#include "cli_runner.h"
#include "fixtures.h"
#include "project/project_store.h"

using namespace linkscope;
namespace fs = std::filesystem;

namespace {

QString q(const fs::path& path) { return QString::fromStdString(path.string()); }

project::Decision decisionOn(std::size_t start, std::size_t end, std::string text, std::string link,
                             std::string curator) {
    project::Decision d;
    d.mention = {"train", "90000001", start, end};
    d.mentionText = std::move(text);
    d.kind = project::DecisionKind::Correct;
    d.newLink = std::move(link);
    d.curator = std::move(curator);
    return d;
}

/// Replaces the one occurrence of `from` in the bytes [begin, end) of `file` by `to`.
void replaceOnce(const fs::path& file, const std::string& from, const std::string& to, std::size_t begin = 0,
                 std::size_t end = std::string::npos) {
    std::string bytes = test::readFile(file);
    const std::string_view region = std::string_view(bytes).substr(begin, end == std::string::npos ? end : end - begin);
    const auto at = region.find(from);
    QVERIFY2(at != std::string_view::npos && region.find(from, at + 1) == std::string_view::npos, from.c_str());
    bytes.replace(begin + at, from.size(), to);
    test::writeFile(file, bytes);
}

std::int64_t rows(const fs::path& file) {
    SQLite::Database raw(file.string(), SQLite::OPEN_READONLY);
    return raw.execAndGet("SELECT count(*) FROM decisions").getInt64();
}

}  // namespace

class TestCliProject : public QObject {
    Q_OBJECT
    test::FixtureDir dir_;

    fs::path curatorFile(const char* name, const std::string& curator, const std::string& link) {
        auto store = project::ProjectStore::create(
            dir_.path(name), readProjectManifest(test::demoFile("demo-project.json").toStdString()));
        store.record(decisionOn(21, 39, "Huntington disease", "MESH:D006816", curator));
        store.record(decisionOn(110, 136, "neurodegenerative disorder", link, curator));
        return store.file();
    }

    // The command refuses; standard error names `file` and holds `fragment`; nothing on stdout.
    static void refused(const test::CliResult& r, const fs::path& file, const char* fragment) {
        QVERIFY2(r.exitCode == 1, r.err.constData());
        QVERIFY2(r.err.contains(q(file).toUtf8()) && r.err.contains(fragment), r.err.constData());
        QVERIFY2(r.out.isEmpty(), r.out.constData());
    }

private Q_SLOTS:
    void soundFileGivesOneLine() {
        const auto file = curatorFile("sound.linkscope", "ana", "MESH:D019636");
        const auto r = test::runCli({"project", "check", q(file)});
        QVERIFY2(r.exitCode == 0, r.err.constData());
        QCOMPARE(r.out.count('\n'), 1);
        QVERIFY2(r.out.startsWith(q(file).toUtf8() + ": sound (schema version 3") &&
                     r.out.contains("2 decision(s) read and their checksums verified"),
                 r.out.constData());
        refused(test::runCli({"project", "check", q(dir_.path("none.linkscope"))}), dir_.path("none.linkscope"),
                "no such project file");
        QVERIFY(test::runCli({"project"}).exitCode != 0);  // the tool must be named
    }

    void changedLinkIsRefusedNamingTheRow() {
        const auto a = curatorFile("ana.linkscope", "ana", "MESH:D019636");
        const auto b = curatorFile("bob.linkscope", "bob", "MESH:D002819");
        replaceOnce(b, "MESH:D002819", "MESH:D002818");
        const char* row = "damaged project: decision 2 (train/90000001 [110, 136)) does not match its checksum";
        refused(test::runCli({"project", "check", q(b)}), b, row);
        const auto out = dir_.path("out.txt");
        refused(
            test::runCli({"export", "--project", q(b), "--format", "pubtator", "--split", "train", "--out", q(out)}), b,
            row);
        QVERIFY(!fs::exists(out));
        // Agreement and merge name the second file, whichever file is first.
        refused(test::runCli({"agreement", q(a), q(b), "--no-types"}), b, row);
        refused(test::runCli({"agreement", q(b), q(a), "--no-types"}), b, row);
        refused(test::runCli({"merge", q(a), q(b)}), b, row);
        refused(test::runCli({"merge", q(b), q(a)}), b, row);
        QCOMPARE(rows(a), std::int64_t{2});
        QCOMPARE(rows(b), std::int64_t{2});
    }

    // One digit of an index entry (the last document id in the index by mention, so the page
    // stays in order): SQLite's quick_check passes, the full check does not.
    void changedIndexEntryIsRefused() {
        const auto file = dir_.path("index.linkscope");
        {
            auto store = project::ProjectStore::create(
                file, readProjectManifest(test::demoFile("demo-project.json").toStdString()));
            for (int i = 1; i <= 5; ++i) {
                auto decision = decisionOn(0, 4, "text", "MESH:D000001", "ana");
                decision.mention.document = "700000" + std::to_string(i);
                store.record(decision);
            }
        }
        std::size_t begin = 0, size = 0;
        {
            SQLite::Database raw(file.string(), SQLite::OPEN_READONLY);
            const auto page =
                raw.execAndGet("SELECT rootpage FROM sqlite_master WHERE name = 'decisions_by_mention'").getInt64();
            size = static_cast<std::size_t>(raw.execAndGet("PRAGMA page_size").getInt64());
            begin = static_cast<std::size_t>(page - 1) * size;
        }
        replaceOnce(file, "7000005", "7000006", begin, begin + size);
        {
            SQLite::Database raw(file.string(), SQLite::OPEN_READONLY);
            QCOMPARE(raw.execAndGet("PRAGMA quick_check").getString(), std::string("ok"));
        }
        const char* damage = "damaged project: SQLite's check of the file failed";
        refused(test::runCli({"project", "check", q(file)}), file, damage);
        const auto out = dir_.path("index-out");
        refused(test::runCli({"export", "--project", q(file), "--format", "decisions", "--out", q(out)}), file, damage);
        QVERIFY(!fs::exists(out));
    }

    // A link that does not parse as ids ("D1||D2"): agreement and merge name the file of the two
    // that holds it, and the merge records nothing.
    void unreadableLinkNamesItsFile() {
        const auto a = curatorFile("ana2.linkscope", "ana", "MESH:D019636");
        const auto b = curatorFile("bob2.linkscope", "bob", "MESH:D002819||MESH:D1");
        const char* link = "which is not a list of ids";
        refused(test::runCli({"agreement", q(a), q(b), "--no-types"}), b, link);
        refused(test::runCli({"agreement", q(b), q(a), "--no-types"}), b, link);
        refused(test::runCli({"merge", q(a), q(b), "--unchecked"}), b, link);
        refused(test::runCli({"merge", q(b), q(a), "--unchecked"}), b, link);
        QCOMPARE(rows(a), std::int64_t{2});
        QCOMPARE(rows(b), std::int64_t{2});
    }
};

QTEST_GUILESS_MAIN(TestCliProject)
#include "test_cli_project.moc"
