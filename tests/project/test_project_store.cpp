// The SQLite project store: the manifest and its paths (also after the folder is copied), runs,
// settings, blobs, the decision history with undo and redo across reopening, the refusals of
// files that are not projects, damage SQLite's checks and the rows' checksums find, the kNN
// datastore kept inside the file, and a writer and a merge killed with SIGKILL in the middle of
// their work.
#include <QProcess>
#include <QRegularExpression>

#include <SQLiteCpp/SQLiteCpp.h>

#include <signal.h>
#include <sys/stat.h>
#include <sys/types.h>

#include <algorithm>
#include <functional>
#include <random>
#include <vector>

#include "crash_decisions.h"
#include "curation/curator_merge.h"
#include "fixtures.h"
#include "project/datastore_storage.h"
#include "project/project_store.h"
#include "retrieval/knn_datastore.h"

using namespace linkscope;
using namespace linkscope::project;
namespace fs = std::filesystem;

namespace {

const char* kProjectName = "project.linkscope";

/// What `action` threw: what() of a linkscope::Error, or a note saying what happened instead.
template <typename Action>
QString errorOf(Action&& action) {
    try {
        action();
    } catch (const Error& e) {
        return QString::fromStdString(e.what());
    } catch (const std::exception& e) {
        return QStringLiteral("<not a linkscope::Error: %1>").arg(QString::fromStdString(e.what()));
    }
    return QStringLiteral("<nothing thrown>");
}

QString q(const fs::path& path) { return QString::fromStdString(path.string()); }

/// A project with a one-line KB and corpus beside it.
ProjectStore newProject(const test::FixtureDir& dir) {
    ProjectManifest manifest;
    manifest.name = "p";
    manifest.knowledgeBase.path = dir.write("kb.txt", "D1||Name\n");
    manifest.corpora.push_back({"train", dir.write("c.txt", "1|t|T\n"), CorpusFormat::PubTator});
    return ProjectStore::create(dir.path(kProjectName), manifest);
}

Decision decisionOn(std::string split, std::string document, std::size_t start, std::size_t end, DecisionKind kind,
                    std::string newLink) {
    Decision decision;
    decision.mention = {std::move(split), std::move(document), start, end};
    decision.mentionText = "text";
    decision.kind = kind;
    decision.previousLink = "MESH:D000001";
    decision.newLink = std::move(newLink);
    decision.curator = "ann";
    return decision;
}

/// "id:state id:state ..." of every stored decision, in id order.
QString history(const ProjectStore& store) {
    QStringList parts;
    for (const auto& decision : store.decisions())
        parts << QStringLiteral("%1:%2")
                     .arg(decision.id)
                     .arg(QString::fromUtf8(decisionStateName(decision.state).data()));
    return parts.join(u' ');
}

/// The fields in which two decisions differ ("" when they are equal).
std::string differences(const Decision& a, const Decision& b) {
    std::string out;
    const auto field = [&out](const char* name, bool same) {
        if (!same) out += std::string(out.empty() ? "" : ", ") + name;
    };
    field("id", a.id == b.id);
    field("mention", a.mention == b.mention);
    field("mentionText", a.mentionText == b.mentionText);
    field("kind", a.kind == b.kind);
    field("previousLink", a.previousLink == b.previousLink);
    field("newLink", a.newLink == b.newLink);
    field("curator", a.curator == b.curator);
    field("timestamp", a.timestamp == b.timestamp);
    field("state", a.state == b.state);
    return out;
}

std::int64_t idOf(const std::optional<Decision>& decision) { return decision ? decision->id : -1; }

const QRegularExpression kTimestamp(QStringLiteral(R"(^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$)"));

std::vector<std::byte> pattern(std::size_t size) {
    std::vector<std::byte> bytes(size);
    for (std::size_t i = 0; i < size; ++i) bytes[i] = static_cast<std::byte>((i * 31 + i / 251) % 256);
    return bytes;
}

std::string asString(const std::vector<std::byte>& bytes) {
    return {reinterpret_cast<const char*>(bytes.data()), bytes.size()};
}

/// Replaces the one occurrence of `from` in the bytes [begin, end) of `file` by `to` (same length).
void replaceOnce(const fs::path& file, const std::string& from, const std::string& to, std::size_t begin = 0,
                 std::size_t end = std::string::npos) {
    QCOMPARE(from.size(), to.size());
    std::string bytes = test::readFile(file);
    const std::string_view region = std::string_view(bytes).substr(begin, end == std::string::npos ? end : end - begin);
    const auto at = region.find(from);
    QVERIFY2(at != std::string_view::npos, from.c_str());
    QVERIFY2(region.find(from, at + 1) == std::string_view::npos, from.c_str());
    bytes.replace(begin + at, from.size(), to);
    test::writeFile(file, bytes);
}

std::string pragma(const fs::path& file, const char* check) {
    SQLite::Database raw(file.string(), SQLite::OPEN_READONLY);
    return raw.execAndGet(std::string("PRAGMA ") + check).getString();
}

std::size_t datastoreTemporaries() {
    std::size_t count = 0;
    for (const auto& entry : fs::directory_iterator(fs::temp_directory_path()))
        if (entry.path().filename().string().starts_with("linkscope-knn-datastore-")) ++count;
    return count;
}

}  // namespace

class TestProjectStore : public QObject {
    Q_OBJECT

private Q_SLOTS:
    // --- the manifest -------------------------------------------------------------------------
    void manifestRoundTripAndCopiedFolder() {
        test::FixtureDir dir, outside, elsewhere;
        fs::create_directories(dir.path("data"));
        dir.write("kb.txt", "D1||Name\n");
        dir.write("data/train.txt", "1|t|T\n");
        dir.write("data/test.txt", "2|t|T\n");
        const auto semanticTypes = outside.write("MRSTY.RRF", "C1|T047|\n");

        ProjectManifest manifest;
        manifest.name = "Demo d\xC3\xA9mo";
        manifest.description = "two splits";
        manifest.knowledgeBase = {dir.root() / "data" / ".." / "kb.txt", KbFormat::Umls, semanticTypes};
        manifest.corpora.push_back({"train", dir.path("data/train.txt"), CorpusFormat::PubTator});
        manifest.corpora.push_back({"test", dir.path("data/test.txt"), CorpusFormat::PubTator});
        const auto file = dir.path(kProjectName);

        const auto check = [&](const ProjectManifest& read, const fs::path& folder) {
            QCOMPARE(read.file, folder / kProjectName);
            QCOMPARE(read.name, manifest.name);
            QCOMPARE(read.description, manifest.description);
            QCOMPARE(read.knowledgeBase.path, folder / "kb.txt");
            QCOMPARE(read.knowledgeBase.format, KbFormat::Umls);
            QCOMPARE(read.knowledgeBase.semanticTypes, semanticTypes);  // outside: absolute, unmoved
            QCOMPARE(read.corpora.size(), std::size_t{2});
            QCOMPARE(read.corpora[0].split, std::string("train"));
            QCOMPARE(read.corpora[0].path, folder / "data/train.txt");
            QCOMPARE(read.corpora[1].split, std::string("test"));
            QCOMPARE(read.corpora[1].path, folder / "data/test.txt");
        };
        {
            const auto store = ProjectStore::create(file, manifest);
            QCOMPARE(store.file(), file);
            check(store.manifest(), dir.root());
            if (QTest::currentTestFailed()) return;
        }
        // Closed: the file alone holds everything (SQLite checkpoints and removes the WAL).
        QVERIFY(!fs::exists(file.string() + "-wal"));
        {
            SQLite::Database raw(file.string(), SQLite::OPEN_READONLY);
            SQLite::Statement kb(raw, "SELECT path, format, semantic_types FROM knowledge_base");
            QVERIFY(kb.executeStep());
            QCOMPARE(kb.getColumn(0).getString(), std::string("kb.txt"));
            QCOMPARE(kb.getColumn(1).getString(), std::string("umls"));
            QCOMPARE(kb.getColumn(2).getString(), semanticTypes.string());
            SQLite::Statement corpora(raw, "SELECT path FROM corpora ORDER BY position");
            QVERIFY(corpora.executeStep());
            QCOMPARE(corpora.getColumn(0).getString(), std::string("data/train.txt"));
        }
        check(ProjectStore::open(file).manifest(), dir.root());
        if (QTest::currentTestFailed()) return;

        const auto moved = elsewhere.root() / "moved";
        fs::copy(dir.root(), moved, fs::copy_options::recursive);
        const auto store = ProjectStore::open(moved / kProjectName);
        check(store.manifest(), moved);
    }

    // The corpus format, MedMentions' PMID lists and the UMLS filters are kept (schema
    // version 2), and a version-1 file still opens, read as it is and left unchanged until the
    // first decision written into it upgrades it to version 3.
    void pmidListsFormatsAndFiltersRoundTrip() {
        test::FixtureDir dir;
        dir.write("MRCONSO.RRF", "x\n");
        dir.write("corpus.txt.gz", "x\n");
        dir.write("trng.txt", "1\n");
        dir.write("dev.txt", "2\n");
        fs::create_directories(dir.path("brat"));
        ProjectManifest manifest;
        manifest.name = "mm";
        manifest.knowledgeBase.path = dir.path("MRCONSO.RRF");
        manifest.knowledgeBase.format = KbFormat::Umls;
        manifest.knowledgeBase.semanticTypeFilter = {"T005", "T038"};
        manifest.knowledgeBase.sources = {"MSH"};
        manifest.knowledgeBase.languages = {"ENG", "FRE"};
        CorpusReference train{"train", dir.path("corpus.txt.gz"), CorpusFormat::PubTator, dir.path("trng.txt")};
        CorpusReference dev{"dev", dir.path("corpus.txt.gz"), CorpusFormat::PubTator, dir.path("dev.txt")};
        CorpusReference brat{"extra", dir.path("brat"), CorpusFormat::Brat, {}};
        manifest.corpora = {train, dev, brat};
        const auto file = dir.path(kProjectName);
        { ProjectStore::create(file, manifest); }
        const ProjectManifest read = ProjectStore::open(file).manifest();
        QCOMPARE(read.knowledgeBase.semanticTypeFilter, manifest.knowledgeBase.semanticTypeFilter);
        QCOMPARE(read.knowledgeBase.sources, manifest.knowledgeBase.sources);
        QCOMPARE(read.knowledgeBase.languages, manifest.knowledgeBase.languages);
        QCOMPARE(read.corpora.size(), std::size_t{3});
        QCOMPARE(read.corpora[1].pmidList, dir.path("dev.txt"));
        QCOMPARE(read.corpora[1].path, dir.path("corpus.txt.gz"));
        QCOMPARE(read.corpora[2].format, CorpusFormat::Brat);
        QVERIFY(read.corpora[2].pmidList.empty());
        {
            SQLite::Database raw(file.string(), SQLite::OPEN_READONLY);
            QCOMPARE(raw.execAndGet("SELECT value FROM meta WHERE key = 'schema_version'").getString(),
                     std::string("3"));
            QCOMPARE(raw.execAndGet("SELECT pmid_list FROM corpora WHERE position = 0").getString(),
                     std::string("trng.txt"));
        }

        // A version-1 file: the columns it never had, gone; it opens with neither lists nor filters.
        {
            SQLite::Database raw(file.string(), SQLite::OPEN_READWRITE);
            raw.exec(
                "UPDATE meta SET value = '1' WHERE key = 'schema_version'; DELETE FROM corpora WHERE position > 0; "
                "UPDATE corpora SET path = 'corpus.txt.gz'; ALTER TABLE corpora DROP COLUMN pmid_list; "
                "ALTER TABLE knowledge_base DROP COLUMN filters; ALTER TABLE decisions DROP COLUMN checksum; "
                "INSERT INTO decisions (split, document, start, \"end\", mention_text, kind, previous_link, "
                "new_link, curator, timestamp, state) VALUES ('train', '1', 0, 4, 'text', 'accept', 'MESH:D1', "
                "'MESH:D1', 'old', '2025-01-01T00:00:00.000Z', 'done')");
        }
        {
            const auto store = ProjectStore::open(file);
            const ProjectManifest old = store.manifest();
            QCOMPARE(old.corpora.size(), std::size_t{1});
            QVERIFY(old.corpora[0].pmidList.empty());
            QVERIFY(!old.knowledgeBase.filtered());
            QCOMPARE(store.decisions().size(), std::size_t{1});  // a row without checksum, trusted
            const auto report = store.checkIntegrity();
            QCOMPARE(report.schemaVersion, 1);
            QVERIFY(!report.checksummed);
        }
        {
            SQLite::Database raw(file.string(), SQLite::OPEN_READONLY);
            QCOMPARE(raw.execAndGet("SELECT value FROM meta WHERE key = 'schema_version'").getString(),
                     std::string("1"));
        }
        // The first decision written upgrades it: columns added, every row checksummed, version 3.
        {
            auto store = ProjectStore::open(file);
            store.record(decisionOn("train", "1", 5, 9, DecisionKind::Nil, ""));
            QCOMPARE(store.schemaVersion(), 3);
            QCOMPARE(store.decisions().size(), std::size_t{2});
        }
        const auto upgraded = ProjectStore::open(file);
        QCOMPARE(upgraded.checkIntegrity().checksummed, true);
        QCOMPARE(upgraded.manifest().corpora.size(), std::size_t{1});
        QCOMPARE(upgraded.decisions().front().curator, std::string("old"));
        SQLite::Database raw(file.string(), SQLite::OPEN_READONLY);
        QCOMPARE(raw.execAndGet("SELECT count(*) FROM decisions WHERE checksum IS NULL").getInt64(), std::int64_t{0});
        QCOMPARE(raw.execAndGet("SELECT filters FROM knowledge_base").getString(), std::string());
    }

    // --- runs, settings, blobs ----------------------------------------------------------------
    void runsPutReplaceRemove() {
        test::FixtureDir dir, outside;
        {
            auto store = newProject(dir);
            QVERIFY(store.runs().empty());
            store.putRun({"biosyn-1", dir.path("runs/biosyn-1"), "biosyn", ""});
            store.putRun({"bare", outside.path("model"), "", ""});
            auto runs = store.runs();
            QCOMPARE(runs.size(), std::size_t{2});
            QCOMPARE(runs[0].name, std::string("biosyn-1"));
            QCOMPARE(runs[0].directory, dir.path("runs/biosyn-1"));
            QCOMPARE(runs[0].preset, std::string("biosyn"));
            QVERIFY2(kTimestamp.match(QString::fromStdString(runs[0].added)).hasMatch(), runs[0].added.c_str());
            QCOMPARE(runs[1].name, std::string("bare"));
            QCOMPARE(runs[1].directory, outside.path("model"));
            QCOMPARE(runs[1].preset, std::string());

            // Replaced by name: it keeps its place.
            store.putRun({"biosyn-1", dir.path("runs/biosyn-2"), "triplet", ""});
            runs = store.runs();
            QCOMPARE(runs.size(), std::size_t{2});
            QCOMPARE(runs[0].name, std::string("biosyn-1"));
            QCOMPARE(runs[0].directory, dir.path("runs/biosyn-2"));
            QCOMPARE(runs[0].preset, std::string("triplet"));
            QCOMPARE(runs[1].name, std::string("bare"));

            QVERIFY(store.removeRun("bare"));
            QVERIFY(!store.removeRun("bare"));
            const QString error = errorOf([&] { store.putRun({"", dir.path("x"), "", ""}); });
            QVERIFY2(error.contains(QStringLiteral("without a name")), qPrintable(error));
        }
        const auto runs = ProjectStore::open(dir.path(kProjectName)).runs();
        QCOMPARE(runs.size(), std::size_t{1});
        QCOMPARE(runs[0].name, std::string("biosyn-1"));
        QCOMPARE(runs[0].directory, dir.path("runs/biosyn-2"));
        QCOMPARE(runs[0].preset, std::string("triplet"));
    }

    void settings() {
        test::FixtureDir dir;
        {
            auto store = newProject(dir);
            QCOMPARE(store.setting("encoder"), std::optional<std::string>());
            store.setSetting("encoder", "biosyn");
            store.setSetting("empty", "");
            store.setSetting("encoder", "sapbert");
            QCOMPARE(store.setting("encoder"), std::optional<std::string>("sapbert"));
            QCOMPARE(store.setting("empty"), std::optional<std::string>(""));
        }
        const auto store = ProjectStore::open(dir.path(kProjectName));
        QCOMPARE(store.setting("encoder"), std::optional<std::string>("sapbert"));
        QCOMPARE(store.setting("empty"), std::optional<std::string>(""));
        QCOMPARE(store.setting("missing"), std::optional<std::string>());
    }

    void blobs() {
        test::FixtureDir dir;
        const auto big = pattern(std::size_t{1} << 20);
        const auto small = pattern(17);
        {
            auto store = newProject(dir);
            store.putBlob("big", big);
            store.putBlob("empty", {});
            QVERIFY(store.blob("big") == big);
            const auto empty = store.blob("empty");
            QVERIFY(empty.has_value());
            QVERIFY(empty->empty());
            QVERIFY(!store.blob("missing").has_value());

            store.putBlob("small", small);
            store.putBlob("small", big);  // replaced as a whole
            QVERIFY(store.blob("small") == big);
            store.putBlob("small", small);
            QVERIFY(store.removeBlob("empty"));
            QVERIFY(!store.removeBlob("empty"));
            const QString error = errorOf([&] { store.putBlob("", small); });
            QVERIFY2(error.contains(QStringLiteral("needs a name")), qPrintable(error));
        }
        const auto store = ProjectStore::open(dir.path(kProjectName));
        QVERIFY(store.blob("big") == big);
        QVERIFY(store.blob("small") == small);
        QVERIFY(!store.blob("empty").has_value());
    }

    void blobsStreamedFromAndToFiles() {
        test::FixtureDir dir;
        auto store = newProject(dir);
        const auto big = pattern((std::size_t{1} << 20) * 3 + 12345);  // several chunks and a partial one
        store.putBlobFromFile("streamed", dir.write("in.bin", asString(big)));
        store.putBlobFromFile("nothing", dir.write("empty.bin", ""));
        QVERIFY(store.blob("streamed") == big);
        QVERIFY(store.blob("nothing") == std::vector<std::byte>{});

        QVERIFY(store.writeBlobToFile("streamed", dir.path("out.bin")));
        QVERIFY(test::readFile(dir.path("out.bin")) == asString(big));
        QVERIFY(store.writeBlobToFile("nothing", dir.path("out-empty.bin")));
        QVERIFY(fs::exists(dir.path("out-empty.bin")));
        QCOMPARE(fs::file_size(dir.path("out-empty.bin")), std::uintmax_t{0});
        QVERIFY(!store.writeBlobToFile("missing", dir.path("out-missing.bin")));
        QVERIFY(!fs::exists(dir.path("out-missing.bin")));

        const QString error = errorOf([&] { store.putBlobFromFile("x", dir.path("no-such.bin")); });
        QVERIFY2(error.startsWith(q(store.file()) + u':') && error.contains(QStringLiteral("no-such.bin")),
                 qPrintable(error));
    }

    // --- decisions ----------------------------------------------------------------------------
    void recordUndoRedoAcrossReopening() {
        test::FixtureDir dir;
        const auto file = dir.path(kProjectName);
        const auto d1 = decisionOn("train", "100", 0, 5, DecisionKind::Accept, "MESH:D000001");
        const auto d2 = decisionOn("train", "100", 10, 15, DecisionKind::Correct, "MESH:D000002|MESH:D000003");
        auto d3 = decisionOn("test", "200", 3, 9, DecisionKind::Reject, "");
        d3.timestamp = "2026-11-22T07:30:12.123Z";  // given: kept as is
        {
            auto store = newProject(dir);
            QVERIFY(!store.canUndo());
            QVERIFY(!store.canRedo());
            QVERIFY(!store.undo().has_value());
            QVERIFY(!store.redo().has_value());
            const auto r1 = store.record(d1);
            const auto r2 = store.record(d2);
            const auto r3 = store.record(d3);
            QCOMPARE(r1.id, std::int64_t{1});
            QCOMPARE(r2.id, std::int64_t{2});
            QCOMPARE(r3.id, std::int64_t{3});
            QVERIFY2(kTimestamp.match(QString::fromStdString(r1.timestamp)).hasMatch(), r1.timestamp.c_str());
            QCOMPARE(r3.timestamp, d3.timestamp);
            auto expected = d2;
            expected.id = 2;
            expected.timestamp = r2.timestamp;
            QCOMPARE(QString::fromStdString(differences(r2, expected)), QString());
            QCOMPARE(store.decisions().size(), std::size_t{3});
            QCOMPARE(QString::fromStdString(differences(store.decisions()[1], expected)), QString());
            QCOMPARE(history(store), QStringLiteral("1:done 2:done 3:done"));
            QVERIFY(store.canUndo());
            QVERIFY(!store.canRedo());

            const auto undone = store.undo();
            QVERIFY(undone.has_value());
            QCOMPARE(undone->id, std::int64_t{3});
            QCOMPARE(undone->state, DecisionState::Undone);
            QCOMPARE(history(store), QStringLiteral("1:done 2:done 3:undone"));
        }
        {
            auto store = ProjectStore::open(file);
            QCOMPARE(history(store), QStringLiteral("1:done 2:done 3:undone"));
            QVERIFY(store.canRedo());
            QCOMPARE(idOf(store.undo()), std::int64_t{2});  // undo after reopening
            QCOMPARE(history(store), QStringLiteral("1:done 2:undone 3:undone"));
            const auto redone = store.redo();  // the earliest undone: the last one undone
            QVERIFY(redone.has_value());
            QCOMPARE(redone->id, std::int64_t{2});
            QCOMPARE(redone->state, DecisionState::Done);
            QCOMPARE(history(store), QStringLiteral("1:done 2:done 3:undone"));
        }
        {
            auto store = ProjectStore::open(file);
            const auto r4 = store.record(decisionOn("train", "100", 0, 5, DecisionKind::Nil, ""));
            QCOMPARE(r4.id, std::int64_t{4});
            QCOMPARE(r4.newLink, std::string("-1"));                                       // nil filled in
            QCOMPARE(history(store), QStringLiteral("1:done 2:done 3:discarded 4:done"));  // redo cut
            QVERIFY(!store.canRedo());
            QVERIFY(!store.redo().has_value());
            QCOMPARE(idOf(store.undo()), std::int64_t{4});
            QCOMPARE(idOf(store.redo()), std::int64_t{4});
            QCOMPARE(idOf(store.undo()), std::int64_t{4});
            QCOMPARE(idOf(store.undo()), std::int64_t{2});
            QCOMPARE(idOf(store.undo()), std::int64_t{1});
            QVERIFY(!store.undo().has_value());
            QVERIFY(!store.canUndo());
            QCOMPARE(history(store), QStringLiteral("1:undone 2:undone 3:discarded 4:undone"));
            QCOMPARE(idOf(store.redo()), std::int64_t{1});
            QCOMPARE(history(store), QStringLiteral("1:done 2:undone 3:discarded 4:undone"));
            store.record(decisionOn("dev", "300", 1, 2, DecisionKind::Skip, ""));
            QCOMPARE(history(store), QStringLiteral("1:done 2:discarded 3:discarded 4:discarded 5:done"));
        }
        const auto store = ProjectStore::open(file);
        QCOMPARE(history(store), QStringLiteral("1:done 2:discarded 3:discarded 4:discarded 5:done"));
        QCOMPARE(store.decisionCount(), std::size_t{5});
        QCOMPARE(store.decisions().size(), std::size_t{5});
        auto expected = d3;
        expected.id = 3;
        expected.state = DecisionState::Discarded;
        QCOMPARE(QString::fromStdString(differences(store.decisions()[2], expected)), QString());
    }

    void currentDecisionAndDoneOrder() {
        test::FixtureDir dir;
        auto store = newProject(dir);
        const MentionKey m{"train", "100", 0, 5};
        const MentionKey n{"train", "100", 10, 15};
        store.record(decisionOn("train", "100", 0, 5, DecisionKind::Accept, "MESH:D1"));    // 1 on m
        store.record(decisionOn("train", "100", 10, 15, DecisionKind::Accept, "MESH:D2"));  // 2 on n
        store.record(decisionOn("train", "100", 0, 5, DecisionKind::Correct, "MESH:D3"));   // 3 on m
        store.record(decisionOn("dev", "100", 0, 5, DecisionKind::Reject, ""));             // 4, other split

        QCOMPARE(idOf(store.currentDecision(m)), std::int64_t{3});
        QCOMPARE(idOf(store.currentDecision(n)), std::int64_t{2});
        QCOMPARE(idOf(store.currentDecision({"dev", "100", 0, 5})), std::int64_t{4});
        QVERIFY(!store.currentDecision({"train", "100", 0, 6}).has_value());
        QVERIFY(!store.currentDecision({"train", "999", 0, 5}).has_value());

        const auto idsOf = [](const std::vector<Decision>& decisions) {
            QList<std::int64_t> ids;
            for (const auto& decision : decisions) ids << decision.id;
            return ids;
        };
        QCOMPARE(idsOf(store.doneDecisions()), (QList<std::int64_t>{1, 2, 3, 4}));
        store.undo();  // 4
        store.undo();  // 3: m falls back to 1
        QCOMPARE(idOf(store.currentDecision(m)), std::int64_t{1});
        QVERIFY(!store.currentDecision({"dev", "100", 0, 5}).has_value());
        QCOMPARE(idsOf(store.doneDecisions()), (QList<std::int64_t>{1, 2}));
        QCOMPARE(idsOf(store.decisions()), (QList<std::int64_t>{1, 2, 3, 4}));
        store.undo();  // 2
        QVERIFY(!store.currentDecision(n).has_value());
    }

    void decidedLinkOfEachKind() {
        auto decision = decisionOn("t", "1", 0, 1, DecisionKind::Accept, "MESH:D1");
        QCOMPARE(decidedLink(decision), std::optional<std::string>("MESH:D1"));
        decision.kind = DecisionKind::Correct;
        QCOMPARE(decidedLink(decision), std::optional<std::string>("MESH:D1"));
        decision.kind = DecisionKind::Nil;
        decision.newLink = "-1";
        QCOMPARE(decidedLink(decision), std::optional<std::string>("-1"));
        decision.kind = DecisionKind::Reject;
        decision.newLink.clear();
        QCOMPARE(decidedLink(decision), std::optional<std::string>(""));
        decision.kind = DecisionKind::Skip;
        QCOMPARE(decidedLink(decision), std::optional<std::string>());
        for (const auto kind :
             {DecisionKind::Accept, DecisionKind::Correct, DecisionKind::Reject, DecisionKind::Nil, DecisionKind::Skip})
            QCOMPARE(parseDecisionKind(decisionKindName(kind)), std::optional<DecisionKind>(kind));
        QVERIFY(!parseDecisionKind("Accept").has_value());
        for (const auto state : {DecisionState::Done, DecisionState::Undone, DecisionState::Discarded})
            QCOMPARE(parseDecisionState(decisionStateName(state)), std::optional<DecisionState>(state));
    }

    void storedAsReadableText() {
        test::FixtureDir dir;
        {
            auto store = newProject(dir);
            store.record(decisionOn("train", "100", 0, 5, DecisionKind::Correct, "MESH:D2"));
            store.undo();
        }
        SQLite::Database raw(dir.path(kProjectName).string(), SQLite::OPEN_READONLY);
        SQLite::Statement row(raw, "SELECT kind, state, \"end\" FROM decisions");
        QVERIFY(row.executeStep());
        QCOMPARE(row.getColumn(0).getString(), std::string("correct"));
        QCOMPARE(row.getColumn(1).getString(), std::string("undone"));
        QCOMPARE(row.getColumn(2).getInt64(), std::int64_t{5});
        SQLite::Statement mode(raw, "PRAGMA journal_mode");
        QVERIFY(mode.executeStep());
        QCOMPARE(mode.getColumn(0).getString(), std::string("wal"));
    }

    void invalidDecisionsAreRefused() {
        test::FixtureDir dir;
        auto store = newProject(dir);
        struct Case {
            Decision decision;
            const char* fragment;
        };
        const std::vector<Case> cases{
            {decisionOn("", "100", 0, 5, DecisionKind::Accept, "MESH:D1"), "the split is empty"},
            {decisionOn("train", "", 0, 5, DecisionKind::Accept, "MESH:D1"), "the document is empty"},
            {decisionOn("train", "100", 5, 5, DecisionKind::Accept, "MESH:D1"), "end <= start"},
            {decisionOn("train", "100", 6, 5, DecisionKind::Accept, "MESH:D1"), "end <= start"},
            {decisionOn("train", "100", 0, 5, DecisionKind::Accept, ""), "needs the new link"},
            {decisionOn("train", "100", 0, 5, DecisionKind::Correct, ""), "needs the new link"},
            {decisionOn("train", "100", 0, 5, DecisionKind::Nil, "MESH:D1"), "links to \"-1\""},
            {decisionOn("train", "100", 0, 5, DecisionKind::Reject, "MESH:D1"), "gives no new link"},
            {decisionOn("train", "100", 0, 5, DecisionKind::Skip, "MESH:D1"), "gives no new link"},
            {decisionOn("train", "100", 0, 5, DecisionKind::Correct, "MESH:D1\tMESH:D2"), "tab or a line break"},
            {decisionOn("train", "100", 0, 5, DecisionKind::Correct, "MESH:D1\nMESH:D2"), "tab or a line break"},
            {decisionOn("train", "10\n0", 0, 5, DecisionKind::Correct, "MESH:D1"), "tab or a line break"},
        };
        for (const auto& [decision, fragment] : cases) {
            const QString error = errorOf([&] { store.record(decision); });
            QVERIFY2(error.startsWith(q(store.file()) + QStringLiteral(": cannot record")) &&
                         error.contains(QString::fromUtf8(fragment)),
                     qPrintable(error));
        }
        QCOMPARE(store.decisionCount(), std::size_t{0});
    }

    void utcTimestampFormat() {
        const auto before = QDateTime::currentDateTimeUtc().addMSecs(-1);
        const QString stamp = QString::fromStdString(utcTimestamp());
        const auto after = QDateTime::currentDateTimeUtc().addMSecs(1);
        QVERIFY2(kTimestamp.match(stamp).hasMatch(), qPrintable(stamp));
        const auto parsed = QDateTime::fromString(stamp, Qt::ISODateWithMs);
        QVERIFY2(parsed.isValid(), qPrintable(stamp));
        QCOMPARE(parsed.timeSpec(), Qt::UTC);
        QVERIFY2(before <= parsed && parsed <= after, qPrintable(stamp));
    }

    void utcTimestampParsesBack() {
        const auto now = std::chrono::floor<std::chrono::milliseconds>(std::chrono::system_clock::now());
        const auto stamp = utcTimestamp();
        const auto parsed = parseUtcTimestamp(stamp);
        QVERIFY2(parsed.has_value(), stamp.c_str());
        // The stamp is taken after `now`, to the millisecond; a second covers any pause between.
        QVERIFY2(*parsed >= now && *parsed - now < std::chrono::seconds(1), stamp.c_str());
        const auto epochMs = [](const std::string& text) {
            return std::chrono::duration_cast<std::chrono::milliseconds>(parseUtcTimestamp(text)->time_since_epoch())
                .count();
        };
        QCOMPARE(epochMs("1970-01-01T00:00:01.250Z"), 1250LL);
        QCOMPARE(epochMs("2024-02-29T23:59:59.999Z"), 1709251199999LL);
        for (const char* bad : {"", "2026-11-22", "2026-13-01T00:00:00.000Z", "2026-02-30T00:00:00.000Z",
                                "2026-11-22T24:00:00.000Z", "yesterday"})
            QVERIFY2(!parseUtcTimestamp(bad).has_value(), bad);
    }

    // --- refusals -----------------------------------------------------------------------------
    void refusesToOverwriteOnCreate() {
        test::FixtureDir dir;
        const auto file = dir.write(kProjectName, "precious");
        const QString error = errorOf([&] { newProject(dir); });
        QVERIFY2(error.startsWith(q(file) + u':') && error.contains(QStringLiteral("already exists")),
                 qPrintable(error));
        QCOMPARE(test::readFile(file), std::string("precious"));

        const QString noFolder = errorOf([&] {
            ProjectManifest manifest;
            ProjectStore::create(dir.path("no/such/folder/p.linkscope"), manifest);
        });
        QVERIFY2(noFolder.contains(QStringLiteral("no/such/folder/p.linkscope: cannot create")), qPrintable(noFolder));
    }

    void refusesMissingFilesAndFolders() {
        test::FixtureDir dir;
        const auto missing = dir.path("missing.linkscope");
        QString error = errorOf([&] { ProjectStore::open(missing); });
        QVERIFY2(error.startsWith(q(missing) + u':') && error.contains(QStringLiteral("no such project file")),
                 qPrintable(error));
        QVERIFY(!fs::exists(missing));  // not created by trying
        error = errorOf([&] { ProjectStore::open(dir.root()); });
        QVERIFY2(error.contains(QStringLiteral("is a folder")), qPrintable(error));
        // A FIFO is refused before SQLite opens it (its first read would wait for a writer).
        const auto fifo = dir.path("pipe.linkscope");
        QCOMPARE(::mkfifo(fifo.c_str(), 0600), 0);
        error = errorOf([&] { ProjectStore::open(fifo); });
        QVERIFY2(error.startsWith(q(fifo) + u':') && error.contains(QStringLiteral("not a regular file")),
                 qPrintable(error));
    }

    void refusesFilesThatAreNotSqlite() {
        test::FixtureDir dir;
        std::mt19937 random(7);
        std::string noise(8192, '\0');
        for (char& c : noise) c = static_cast<char>(random());
        test::FixtureDir source;
        {
            auto store = newProject(source);
            store.putBlob("big", pattern(std::size_t{1} << 20));  // many pages
            store.record(decisionOn("train", "1", 0, 1, DecisionKind::Skip, ""));
        }  // closed: checkpointed into the file, the WAL removed
        const std::string project = test::readFile(source.path(kProjectName));
        QVERIFY(project.size() > 1'000'000);
        const std::vector<std::pair<const char*, std::string>> files{
            {"empty.linkscope", ""},
            {"text.linkscope", "hello, world\n"},
            {"noise.linkscope", noise},
            {"header-only.linkscope", project.substr(0, 100)},
            {"first-page.linkscope", project.substr(0, 4096)},
            {"half.linkscope", project.substr(0, project.size() / 2)},
            {"all-but-a-page.linkscope", project.substr(0, project.size() - 4096)},
        };
        for (const auto& [name, content] : files) {
            const auto file = dir.write(name, content);
            try {
                ProjectStore::open(file);
                QFAIL(qPrintable(QStringLiteral("%1 was opened").arg(QString::fromUtf8(name))));
            } catch (const ParseError& e) {
                QCOMPARE(e.file(), file.string());
                QVERIFY2(
                    QString::fromStdString(e.what()).startsWith(q(file) + QStringLiteral(": not a Linkscope project")),
                    e.what());
            } catch (const std::exception& e) {
                QFAIL(qPrintable(QStringLiteral("%1: not a ParseError: %2").arg(QString::fromUtf8(name), e.what())));
            }
            QVERIFY2(test::readFile(file) == content, name);  // refused without being written to
        }
    }

    void refusesForeignAndNewerDatabases() {
        test::FixtureDir dir;
        const auto foreign = dir.path("foreign.sqlite");
        {
            SQLite::Database db(foreign.string(), SQLite::OPEN_READWRITE | SQLite::OPEN_CREATE);
            db.exec("CREATE TABLE notes (text TEXT); INSERT INTO notes VALUES ('mine')");
        }
        QString error = errorOf([&] { ProjectStore::open(foreign); });
        QVERIFY2(error.startsWith(q(foreign) + QStringLiteral(": not a Linkscope project")) &&
                     error.contains(QStringLiteral("without a meta table")),
                 qPrintable(error));
        {
            // Left as it was: still a rollback-journal database with its row.
            SQLite::Database db(foreign.string(), SQLite::OPEN_READONLY);
            QCOMPARE(db.execAndGet("PRAGMA journal_mode").getString(), std::string("delete"));
            QCOMPARE(db.execAndGet("SELECT text FROM notes").getString(), std::string("mine"));
        }

        const auto edited = [&](const char* name, const char* sql) {
            test::FixtureDir source;
            const auto file = dir.path(name);
            { newProject(source); }
            fs::copy_file(source.path(kProjectName), file);
            SQLite::Database db(file.string(), SQLite::OPEN_READWRITE);
            db.exec(sql);
            return file;
        };
        const auto otherFormat =
            edited("other.linkscope", "UPDATE meta SET value = 'someone-else' WHERE key = 'format'");
        error = errorOf([&] { ProjectStore::open(otherFormat); });
        QVERIFY2(error.startsWith(q(otherFormat) + QStringLiteral(": not a Linkscope project")) &&
                     error.contains(QStringLiteral("someone-else")),
                 qPrintable(error));

        const auto newer = edited("newer.linkscope", "UPDATE meta SET value = '4' WHERE key = 'schema_version'");
        error = errorOf([&] { ProjectStore::open(newer); });
        QVERIFY2(error.startsWith(q(newer) + QStringLiteral(": schema version 4 is newer than this Linkscope (3)")),
                 qPrintable(error));
        // Version 1 knew PubTator only: another format there is damage, not a guess.
        const auto oldBioC = edited("old-bioc.linkscope",
                                    "UPDATE meta SET value = '1' WHERE key = 'schema_version'; "
                                    "UPDATE corpora SET format = 'bioc'");
        error = errorOf([&] { ProjectStore::open(oldBioC); });
        QVERIFY2(error.contains(QStringLiteral("unknown corpus format \"bioc\"")), qPrintable(error));
        const auto badFilters = edited("bad-filters.linkscope", "UPDATE knowledge_base SET filters = '[1]'");
        error = errorOf([&] { ProjectStore::open(badFilters); });
        QVERIFY2(error.startsWith(q(badFilters) + QStringLiteral(": damaged project: the knowledge-base filters")),
                 qPrintable(error));

        const auto noVersion = edited("no-version.linkscope", "DELETE FROM meta WHERE key = 'schema_version'");
        error = errorOf([&] { ProjectStore::open(noVersion); });
        QVERIFY2(error.contains(QStringLiteral("not a Linkscope project")), qPrintable(error));

        const auto noTable = edited("no-table.linkscope", "DROP TABLE decisions");
        error = errorOf([&] { ProjectStore::open(noTable); });
        QVERIFY2(error.contains(QStringLiteral("the table decisions is missing")), qPrintable(error));

        // A split name becomes an export's file name: one that leaves the folder is damage.
        const auto escaping = edited("escaping.linkscope", "UPDATE corpora SET split = '../../outside'");
        error = errorOf([&] { ProjectStore::open(escaping); });
        QVERIFY2(error.startsWith(
                     q(escaping) +
                     QStringLiteral(": damaged project: the split name \"../../outside\" holds a path separator")),
                 qPrintable(error));

        const auto badFormat = edited("bad-kb.linkscope", "UPDATE knowledge_base SET format = 'owl'");
        error = errorOf([&] { ProjectStore::open(badFormat); });
        QVERIFY2(error.startsWith(q(badFormat) + u':') && error.contains(QStringLiteral("owl")), qPrintable(error));
    }

    // --- the kNN datastore --------------------------------------------------------------------
    void datastoreRoundTripThroughTheProjectFile() {
        using retrieval::KeyOrigin;
        using retrieval::KnnDatastore;
        test::FixtureDir dir;
        const auto temporariesBefore = datastoreTemporaries();
        KnnDatastore datastore(4, "encoder-A");
        datastore.add(std::vector<float>{1, 0, 0, 0}, "MESH:D000001", KeyOrigin::Training, "train:1:0-3");
        datastore.add(std::vector<float>{0, 2, 0, 0}, "MESH:D000002", KeyOrigin::Training, "train:1:5-9");
        const auto removed = datastore.add(std::vector<float>{0, 0, 3, 0}, "MESH:D000003", KeyOrigin::Accepted, "7");
        datastore.add(std::vector<float>{1, 1, 1, 1}, "MESH:D000001", KeyOrigin::Corrected, "decision 8");
        QVERIFY(datastore.remove(removed));
        {
            auto store = newProject(dir);
            saveDatastore(store, "biosyn", datastore);
            QVERIFY(store.blob(datastoreBlobName("biosyn")).has_value());  // inside the project file
        }
        const auto store = ProjectStore::open(dir.path(kProjectName));
        const auto loaded = loadDatastore(store, "biosyn", "encoder-A");
        QVERIFY(loaded.has_value());
        QCOMPARE(loaded->dimension(), std::size_t{4});
        QCOMPARE(loaded->encoderFingerprint(), std::string("encoder-A"));
        QCOMPARE(loaded->nextKeyId(), datastore.nextKeyId());
        QCOMPARE(loaded->size(), std::size_t{3});
        QVERIFY(std::ranges::equal(loaded->entities(), datastore.entities()));
        QVERIFY(loaded->keys() == datastore.keys());
        QVERIFY(std::ranges::equal(loaded->keyVectors(), datastore.keyVectors()));
        QVERIFY(loadDatastore(store, "biosyn", "").has_value());  // no expectation: any encoder
        QVERIFY(!loadDatastore(store, "sapbert", "encoder-A").has_value());

        QString error = errorOf([&] { loadDatastore(store, "biosyn", "encoder-B"); });
        QVERIFY2(error.startsWith(q(store.file())) && error.contains(QStringLiteral("encoder-A")) &&
                     error.contains(QStringLiteral("encoder-B")) &&
                     !error.contains(QStringLiteral("linkscope-knn-datastore-")),
                 qPrintable(error));

        // A damaged blob is refused by the datastore's checksum, naming the project file.
        auto bytes = *store.blob(datastoreBlobName("biosyn"));
        bytes[bytes.size() / 2] ^= std::byte{0x40};
        ProjectStore writable = ProjectStore::open(dir.path(kProjectName));
        writable.putBlob(datastoreBlobName("damaged"), bytes);
        try {
            loadDatastore(writable, "damaged", "");
            QFAIL("a damaged datastore was loaded");
        } catch (const ParseError& e) {
            QCOMPARE(e.file(), store.file().string());
            QVERIFY2(QString::fromStdString(e.what()).contains(QStringLiteral("kNN datastore \"damaged\"")) &&
                         QString::fromStdString(e.what()).contains(QStringLiteral("checksum")),
                     e.what());
        }
        error = errorOf([&] { saveDatastore(writable, "", datastore); });
        QVERIFY2(error.contains(QStringLiteral("needs a name")), qPrintable(error));
        QCOMPARE(datastoreTemporaries(), temporariesBefore);  // every temporary file removed
    }

    // A page of an index overwritten on disk: SQLite would open the file and answer lookups by
    // mention from the broken index. The store refuses it when it opens, naming the file.
    void refusesAProjectWithADamagedIndex() {
        test::FixtureDir dir;
        const auto file = dir.path(kProjectName);
        {
            auto store = newProject(dir);
            for (int i = 0; i < 300; ++i)
                store.record(decisionOn("train", std::to_string(1000 + i), 0, 4, DecisionKind::Skip, ""));
        }  // closed: checkpointed into the file
        std::int64_t page = 0, pageSize = 0;
        {
            SQLite::Database raw(file.string(), SQLite::OPEN_READONLY);
            QCOMPARE(raw.execAndGet("PRAGMA quick_check").getString(), std::string("ok"));
            page = raw.execAndGet("SELECT rootpage FROM sqlite_master WHERE name = 'decisions_by_mention'").getInt64();
            pageSize = raw.execAndGet("PRAGMA page_size").getInt64();
        }
        QVERIFY(page > 1);
        std::string bytes = test::readFile(file);
        QVERIFY(static_cast<std::int64_t>(bytes.size()) >= page * pageSize);
        std::fill_n(bytes.begin() + (page - 1) * pageSize, pageSize, '\xff');
        test::writeFile(file, bytes);
        const QString error = errorOf([&] { ProjectStore::open(file); });
        QVERIFY2(error.startsWith(q(file) + QStringLiteral(": damaged project: SQLite's check of the file failed")),
                 qPrintable(error));
    }

    // One byte of an index entry changed on disk (the last document id of the index by mention,
    // a digit up, so that the page stays in order): quick_check reads every page and finds
    // nothing, by SQLite's design, while lookups by mention miss the decision. The full check
    // finds it: at open for a file below kFullCheckOnOpenBelowBytes, and in checkIntegrity()
    // (export, merge, agreement, `project check`) for a larger one, whose open checks pages only.
    void refusesAByteChangedInAnIndexEntry() {
        for (const bool large : {false, true}) {
            test::FixtureDir dir;
            const auto file = dir.path(kProjectName);
            {
                auto store = newProject(dir);
                for (int i = 1; i <= 5; ++i)
                    store.record(decisionOn("train", "500000" + std::to_string(i), 0, 4, DecisionKind::Skip, ""));
                if (large)  // a kNN datastore's size, in a blob
                    store.putBlob("knn", std::vector<std::byte>(kFullCheckOnOpenBelowBytes, std::byte{7}));
            }
            std::int64_t page = 0, pageSize = 0;
            {
                SQLite::Database raw(file.string(), SQLite::OPEN_READONLY);
                page =
                    raw.execAndGet("SELECT rootpage FROM sqlite_master WHERE name = 'decisions_by_mention'").getInt64();
                pageSize = raw.execAndGet("PRAGMA page_size").getInt64();
            }
            const auto begin = static_cast<std::size_t>((page - 1) * pageSize);
            replaceOnce(file, "5000005", "5000006", begin, begin + static_cast<std::size_t>(pageSize));
            QCOMPARE(pragma(file, "quick_check"), std::string("ok"));
            QVERIFY(pragma(file, "integrity_check") != "ok");

            const QString expected = q(file) + QStringLiteral(": damaged project: SQLite's check of the file failed");
            if (!large) {
                const QString error = errorOf([&] { ProjectStore::open(file); });
                QVERIFY2(error.startsWith(expected), qPrintable(error));
            } else {
                const auto store = ProjectStore::open(file);                  // pages only: the damage is not seen
                QVERIFY(!store.currentDecision({"train", "5000005", 0, 4}));  // the index misses it
                QString error = errorOf([&] { store.checkIntegrity(); });
                QVERIFY2(error.startsWith(expected), qPrintable(error));
                error = errorOf([&] { ProjectStore::open(file, OpenCheck::Full); });
                QVERIFY2(error.startsWith(expected), qPrintable(error));
            }
        }
    }

    // A digit of a stored link changed on disk: SQLite's checks cannot see it (the row is well
    // formed), the row's checksum does. Every read of the row refuses it, naming the file and the
    // row; the rows around it still read.
    void refusesADigitChangedInAStoredLink() {
        test::FixtureDir dir;
        const auto file = dir.path(kProjectName);
        {
            auto store = newProject(dir);
            store.record(decisionOn("train", "100", 0, 4, DecisionKind::Correct, "MESH:D000111"));
            store.record(decisionOn("train", "100", 10, 14, DecisionKind::Correct, "MESH:D000123"));
            const auto report = store.checkIntegrity();
            QCOMPARE(report.decisions, std::size_t{2});
            QVERIFY(report.checksummed);
            QCOMPARE(report.schemaVersion, 3);
        }
        replaceOnce(file, "MESH:D000123", "MESH:D000124");
        QCOMPARE(pragma(file, "integrity_check"), std::string("ok"));
        const auto store = ProjectStore::open(file);  // the rows are not read at open
        const QString row = q(file) + QStringLiteral(
                                          ": damaged project: decision 2 (train/100 [10, 14)) does not "
                                          "match its checksum");
        for (const auto& read : std::vector<std::function<void()>>{
                 [&] { store.decisions(); },
                 [&] { store.doneDecisions(); },
                 [&] {
                     store.currentDecision({"train", "100", 10, 14});
                 },
                 [&] { store.checkIntegrity(); },
             }) {
            const QString error = errorOf(read);
            QVERIFY2(error.startsWith(row), qPrintable(error));
        }
        QCOMPARE(store.currentDecision({"train", "100", 0, 4})->newLink, std::string("MESH:D000111"));
        // Nor can it be undone (its state would be rewritten with a fresh checksum).
        auto writable = ProjectStore::open(file);
        const QString error = errorOf([&] { writable.undo(); });
        QVERIFY2(error.contains(QStringLiteral("does not match its checksum")), qPrintable(error));
        // A row without its checksum in a file of this version is refused too.
        {
            SQLite::Database raw(file.string(), SQLite::OPEN_READWRITE);
            raw.exec("UPDATE decisions SET checksum = NULL WHERE id = 1");
        }
        QVERIFY2(errorOf([&] {
                     store.currentDecision({"train", "100", 0, 4});
                 }).contains(QStringLiteral("has no checksum")),
                 "a row without checksum was read");
    }

    // recordAll(): one transaction. A failure before it commits (here an exception from the
    // callback, as a cancelled merge throws) leaves nothing of it, the redo stack included.
    void recordAllIsAllOrNothing() {
        test::FixtureDir dir;
        auto store = newProject(dir);
        store.record(decisionOn("train", "100", 0, 4, DecisionKind::Accept, "MESH:D1"));
        store.record(decisionOn("train", "100", 5, 9, DecisionKind::Accept, "MESH:D2"));
        (void)store.undo();
        std::vector<Decision> batch;
        for (int i = 0; i < 50; ++i)
            batch.push_back(decisionOn("train", std::to_string(200 + i), 0, 4, DecisionKind::Correct, "MESH:D3"));
        const QString before = history(store);
        QVERIFY_THROWS_EXCEPTION(Cancelled, store.recordAll(batch, [](std::size_t i) {
            if (i == 30) throw Cancelled();
        }));
        QCOMPARE(history(store), before);
        QVERIFY(store.canRedo());
        // A refused decision anywhere in it: refused before anything is written.
        auto refused = batch;
        refused[40].newLink.clear();
        QVERIFY_THROWS_EXCEPTION(Error, store.recordAll(refused));
        QCOMPARE(history(store), before);
        const auto stored = store.recordAll(batch);
        QCOMPARE(stored.size(), std::size_t{50});
        QCOMPARE(stored.front().id, std::int64_t{3});
        QCOMPARE(stored.back().id, std::int64_t{52});
        QCOMPARE(history(ProjectStore::open(store.file())).section(u' ', 0, 2),
                 QStringLiteral("1:done 2:discarded 3:done"));
        QCOMPARE(store.checkIntegrity().decisions, std::size_t{52});
    }

    // A decision row edited outside Linkscope: SQLite's type affinity keeps 90.5 in an INTEGER
    // column and its CHECKs pass; a tab in a link would split an exported line. Reading such a
    // row is a damaged-project error naming the file, never a rounded offset or a broken export.
    void refusesDamagedDecisionRows_data() {
        QTest::addColumn<QString>("update");
        QTest::addColumn<QString>("fragment");
        QTest::newRow("fractional start") << "start = 0.5"
                                          << "not whole numbers";
        QTest::newRow("fractional end") << "\"end\" = 4.5"
                                        << "not whole numbers";
        QTest::newRow("text offset") << "\"end\" = 'four'"
                                     << "not whole numbers";
        QTest::newRow("tab in link") << "new_link = 'MESH:D1' || char(9) || 'x'"
                                     << "tab or a line break";
        QTest::newRow("newline in previous link") << "previous_link = 'a' || char(10) || 'b'"
                                                  << "tab or a line break";
        QTest::newRow("split with a slash") << "split = '../x'"
                                            << "bad split";
        QTest::newRow("document with CR") << "document = '1' || char(13)"
                                          << "tab or a line break";
    }
    void refusesDamagedDecisionRows() {
        QFETCH(QString, update);
        QFETCH(QString, fragment);
        test::FixtureDir dir;
        const auto file = dir.path(kProjectName);
        {
            auto store = newProject(dir);
            store.record(decisionOn("train", "100", 0, 4, DecisionKind::Correct, "MESH:D1"));
            QCOMPARE(store.decisions().size(), std::size_t{1});
        }
        {
            SQLite::Database raw(file.string(), SQLite::OPEN_READWRITE);
            QCOMPARE(raw.exec(("UPDATE decisions SET " + update).toStdString()), 1);
        }
        const QString error = errorOf([&] { ProjectStore::open(file).decisions(); });
        QVERIFY2(
            error.startsWith(q(file) + QStringLiteral(": damaged project: decision 1 ")) && error.contains(fragment),
            qPrintable(error));
    }

    // A path with a NUL in a project edited outside Linkscope: the operating system would open
    // it cut at the NUL, so the project is refused, naming its file and the path's field.
    void refusesPathsWithANul_data() {
        QTest::addColumn<QString>("update");
        QTest::addColumn<QString>("fragment");
        QTest::newRow("knowledge base") << "UPDATE knowledge_base SET path = 'kb' || char(0) || '.txt'"
                                        << "damaged project: the knowledge base path holds a NUL character";
        QTest::newRow("corpus") << "UPDATE corpora SET path = 'train' || char(0) || 'x' WHERE position = 0"
                                << "damaged project: the corpus path holds a NUL character";
        QTest::newRow("run") << "INSERT INTO runs (position, name, directory, preset, added) VALUES "
                                "(0, 'r', 'runs/r' || char(0) || '/x', 'triplet', '2026-11-24T00:00:00Z')"
                             << "damaged project: the run path holds a NUL character";
    }
    void refusesPathsWithANul() {
        QFETCH(QString, update);
        QFETCH(QString, fragment);
        test::FixtureDir dir;
        const auto file = dir.path(kProjectName);
        { newProject(dir); }
        {
            SQLite::Database raw(file.string(), SQLite::OPEN_READWRITE);
            QCOMPARE(raw.exec(update.toStdString()), 1);
        }
        const QString error = errorOf([&] { ProjectStore::open(file).runs(); });
        QCOMPARE(error, q(file) + QStringLiteral(": ") + fragment);
    }

    // --- durability ---------------------------------------------------------------------------
    // A merge killed inside its transaction (thousands of decisions written, more than SQLite's
    // page cache holds, so some already spilled into the WAL uncommitted): the receiving file is
    // exactly as before, its redo stack included, and the merge then runs whole.
    void killedMergeLeavesTheFileAsItWas_data() {
        QTest::addColumn<qulonglong>("pauseAt");
        QTest::newRow("before its first decision (the redo stack already cut)") << 1ULL;
        QTest::newRow("deep inside (pages spilled into the WAL)") << 15000ULL;
    }
    void killedMergeLeavesTheFileAsItWas() {
        QFETCH(qulonglong, pauseAt);
        test::FixtureDir intoDir, fromDir;
        const auto into = intoDir.path(kProjectName);
        const auto from = fromDir.path(kProjectName);
        constexpr std::size_t kIncoming = 20000;
        const std::size_t kPauseAt = pauseAt;
        {
            auto store = newProject(intoDir);
            for (int i = 0; i < 3; ++i)
                store.record(decisionOn("train", std::to_string(100 + i), 0, 4, DecisionKind::Accept, "MESH:D1"));
            (void)store.undo();
        }
        {
            auto store = newProject(fromDir);
            std::vector<Decision> theirs;
            for (std::size_t i = 0; i < kIncoming; ++i) {
                auto decision = test::crashDecision(i);
                decision.curator = "other";
                theirs.push_back(std::move(decision));
            }
            store.recordAll(std::move(theirs));
        }
        const auto before = ProjectStore::open(into).decisions();

        QProcess writer;
        writer.start(QStringLiteral(LINKSCOPE_CRASH_WRITER_PATH),
                     {QStringLiteral("merge"), q(into), q(from), QString::number(kPauseAt)});
        QVERIFY2(writer.waitForStarted(60000), qPrintable(writer.errorString()));
        QByteArray output;
        while (!output.contains('\n') && writer.waitForReadyRead(60000)) output += writer.readAllStandardOutput();
        QVERIFY2(output == "merging " + QByteArray::number(static_cast<qulonglong>(kPauseAt)) + '\n',
                 qPrintable(QString::fromUtf8(output + writer.readAllStandardError())));
        QCOMPARE(::kill(static_cast<pid_t>(writer.processId()), SIGKILL), 0);
        QVERIFY(writer.waitForFinished(60000));
        QCOMPARE(writer.exitStatus(), QProcess::CrashExit);
        std::error_code ec;
        if (kPauseAt > 1)
            QVERIFY2(fs::file_size(into.string() + "-wal", ec) > 0, "nothing of the merge reached the WAL");

        auto store = ProjectStore::open(into);
        const auto after = store.decisions();
        QCOMPARE(after.size(), before.size());
        for (std::size_t i = 0; i < after.size(); ++i)
            QVERIFY2(differences(after[i], before[i]).empty(), differences(after[i], before[i]).c_str());
        QVERIFY(store.canRedo());
        QCOMPARE(store.checkIntegrity().decisions, before.size());
        const auto source = ProjectStore::open(from);
        const auto summary = curation::mergeDecisions(store, source);
        QCOMPARE(summary.imported, kIncoming);
        QCOMPARE(store.decisionCount(), before.size() + kIncoming);
        QVERIFY(!store.canRedo());
    }

    void killedWriterLosesNothingSaved() {
        test::FixtureDir dir;
        const auto file = dir.path(kProjectName);
        { newProject(dir); }
        constexpr int kRecords = 100000;  // far more than it writes before the kill

        QProcess writer;
        writer.start(QStringLiteral(LINKSCOPE_CRASH_WRITER_PATH), {q(file), QString::number(kRecords)});
        QVERIFY2(writer.waitForStarted(60000), qPrintable(writer.errorString()));
        std::vector<std::int64_t> saved;
        QByteArray pending;
        QStringList unexpected;
        const auto takeLines = [&] {
            pending += writer.readAllStandardOutput();
            for (qsizetype end; (end = pending.indexOf('\n')) >= 0; pending.remove(0, end + 1)) {
                const QByteArray line = pending.left(end);
                bool ok = false;
                const qlonglong id = line.startsWith("saved ") ? line.mid(6).toLongLong(&ok) : 0;
                if (ok)
                    saved.push_back(id);
                else
                    unexpected << QString::fromUtf8(line);
            }
        };
        while (saved.size() < 20 && writer.waitForReadyRead(60000)) takeLines();
        QVERIFY2(saved.size() >= 20, qPrintable(QString::fromUtf8(writer.readAllStandardError())));
        QCOMPARE(writer.state(), QProcess::Running);  // still writing when killed
        QCOMPARE(::kill(static_cast<pid_t>(writer.processId()), SIGKILL), 0);
        QVERIFY(writer.waitForFinished(60000));
        QCOMPARE(writer.exitStatus(), QProcess::CrashExit);
        takeLines();  // what it printed before dying was saved too
        QVERIFY2(unexpected.isEmpty(), qPrintable(unexpected.join(u'\n')));
        QVERIFY(saved.size() < std::size_t{kRecords});
        for (std::size_t i = 0; i < saved.size(); ++i) QCOMPARE(saved[i], static_cast<std::int64_t>(i + 1));

        const auto store = ProjectStore::open(file);
        const auto decisions = store.decisions();
        // Every decision reported saved, and at most the one committed as the kill came.
        QVERIFY2(decisions.size() == saved.size() || decisions.size() == saved.size() + 1,
                 qPrintable(QStringLiteral("%1 stored, %2 reported saved").arg(decisions.size()).arg(saved.size())));
        for (std::size_t i = 0; i < decisions.size(); ++i) {
            auto expected = test::crashDecision(i);
            expected.id = static_cast<std::int64_t>(i + 1);
            expected.state = DecisionState::Done;
            const auto problems = differences(decisions[i], expected);
            QVERIFY2(problems.empty(),
                     qPrintable(
                         QStringLiteral("decision %1 differs in %2").arg(i + 1).arg(QString::fromStdString(problems))));
        }
        SQLite::Database raw(file.string(), SQLite::OPEN_READONLY);
        QCOMPARE(raw.execAndGet("PRAGMA integrity_check").getString(), std::string("ok"));
    }
};

QTEST_GUILESS_MAIN(TestProjectStore)
#include "test_project_store.moc"
