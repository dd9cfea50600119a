// The project store's contract, run against both backends: the SQLite file and a PostgreSQL
// database on a server the suite starts itself (tests/common/postgres_server.h; the PostgreSQL
// rows skip, saying why, where initdb is not installed). The manifest, runs, settings, blobs
// (chunked and streamed), decisions with undo and redo across reopening, recordAll as one
// transaction, a copied history; then what only a server has: a password in the address
// refused, a database that holds no project, versioned migrations, two clients writing at once,
// and a changed row refused by its checksum.
#include <QtTest/QtTest>

#include <filesystem>
#include <functional>
#include <stdexcept>
#include <string>
#include <vector>

#include "error_of.h"
#include "fixtures.h"
#include "postgres_server.h"
#include "project/project_store.h"

using namespace linkscope;
using namespace linkscope::project;
namespace fs = std::filesystem;

namespace {

template <typename F>
QString errorText(F&& action) {
    return QString::fromStdString(test::errorOf(std::forward<F>(action)));
}

ProjectManifest manifestIn(const test::FixtureDir& dir) {
    ProjectManifest manifest;
    manifest.name = "contract";
    manifest.description = "the store's contract";
    manifest.knowledgeBase.path = dir.write("kb.txt", "D1||Name\n");
    manifest.knowledgeBase.semanticTypes = dir.write("types.txt", "T047\n");
    manifest.knowledgeBase.semanticTypeFilter = {"T047"};
    manifest.knowledgeBase.sources = {"MSH"};
    manifest.corpora.push_back({"train", dir.write("train.txt", "1|t|T\n"), CorpusFormat::PubTator});
    CorpusReference dev{"dev", dir.write("dev.txt", "2|t|T\n"), CorpusFormat::PubTator};
    dev.pmidList = dir.write("dev.pmids", "2\n");
    manifest.corpora.push_back(dev);
    return manifest;
}

Decision decisionOn(std::string document, std::size_t start, DecisionKind kind, std::string newLink,
                    std::string curator = "ann") {
    Decision decision;
    decision.mention = {"train", std::move(document), start, start + 5};
    decision.mentionText = "tumor";
    decision.kind = kind;
    decision.previousLink = "MESH:D000001";
    decision.newLink = std::move(newLink);
    decision.curator = std::move(curator);
    return decision;
}

QString history(const ProjectStore& store) {
    QStringList parts;
    for (const auto& decision : store.decisions())
        parts << QStringLiteral("%1:%2")
                     .arg(decision.id)
                     .arg(QString::fromUtf8(decisionStateName(decision.state).data()));
    return parts.join(u' ');
}

std::vector<std::byte> pattern(std::size_t size) {
    std::vector<std::byte> bytes(size);
    for (std::size_t i = 0; i < size; ++i) bytes[i] = static_cast<std::byte>((i * 31 + i / 251) % 256);
    return bytes;
}

bool sameDecisions(const std::vector<Decision>& a, const std::vector<Decision>& b) {
    if (a.size() != b.size()) return false;
    for (std::size_t i = 0; i < a.size(); ++i)
        if (a[i].id != b[i].id || a[i].mention != b[i].mention || a[i].mentionText != b[i].mentionText ||
            a[i].kind != b[i].kind || a[i].previousLink != b[i].previousLink || a[i].newLink != b[i].newLink ||
            a[i].curator != b[i].curator || a[i].timestamp != b[i].timestamp || a[i].state != b[i].state)
            return false;
    return true;
}

}  // namespace

// The project's address for this row of the data: a file in `dir`, or a new database. Skips the
// row where the server cannot run here.
#define ADDRESS_OR_SKIP(name, dir)                                           \
    QFETCH(QString, backend);                                                \
    if (backend == QLatin1String("postgresql") && !server_.running())        \
        QSKIP(qPrintable(QStringLiteral("no PostgreSQL server: ") + skip_)); \
    const fs::path name = addressFor(backend, dir);                          \
    QVERIFY2(!name.empty(), qPrintable(server_.why()))

class TestStoreContract : public QObject {
    Q_OBJECT

    test::PostgresServer server_;
    QString skip_;

    fs::path addressFor(const QString& backend, const test::FixtureDir& dir) {
        if (backend == QLatin1String("file")) return dir.path("project.linkscope");
        return server_.newDatabase();
    }

    static void backends() {
        QTest::addColumn<QString>("backend");
        QTest::newRow("file") << QStringLiteral("file");
        QTest::newRow("postgresql") << QStringLiteral("postgresql");
    }

private Q_SLOTS:
    void initTestCase() {
        if (server_.start()) return;
        if (!server_.skipReason().isEmpty()) {
            skip_ = server_.skipReason();
            return;
        }
        QFAIL(qPrintable(server_.why()));
    }

    void manifestRoundTrip_data() { backends(); }
    void manifestRoundTrip() {
        const test::FixtureDir dir;
        ADDRESS_OR_SKIP(address, dir);
        const ProjectManifest given = manifestIn(dir);
        { (void)ProjectStore::create(address, given); }
        const auto store = ProjectStore::open(address);
        const ProjectManifest read = store.manifest();
        QCOMPARE(read.name, given.name);
        QCOMPARE(read.description, given.description);
        QCOMPARE(read.knowledgeBase.path, given.knowledgeBase.path);
        QCOMPARE(read.knowledgeBase.semanticTypes, given.knowledgeBase.semanticTypes);
        QCOMPARE(read.knowledgeBase.semanticTypeFilter, given.knowledgeBase.semanticTypeFilter);
        QCOMPARE(read.knowledgeBase.sources, given.knowledgeBase.sources);
        QCOMPARE(read.corpora.size(), std::size_t{2});
        QCOMPARE(read.corpora[1].split, std::string("dev"));
        QCOMPARE(read.corpora[1].path, given.corpora[1].path);
        QCOMPARE(read.corpora[1].pmidList, given.corpora[1].pmidList);
        QCOMPARE(store.file(), address.is_absolute() || store.onServer() ? address : fs::absolute(address));
        QCOMPARE(store.onServer(), backend == QLatin1String("postgresql"));
        // A second create on the same address is refused, the first project left as it was.
        const QString again = errorText([&] { (void)ProjectStore::create(address, given); });
        QVERIFY2(again.contains(QStringLiteral("cannot create the project")), qPrintable(again));
        QCOMPARE(ProjectStore::open(address).manifest().name, given.name);
    }

    void runsAndSettings_data() { backends(); }
    void runsAndSettings() {
        const test::FixtureDir dir;
        ADDRESS_OR_SKIP(address, dir);
        auto store = ProjectStore::create(address, manifestIn(dir));
        store.putRun({"first", dir.root() / "runs/first", "biosyn", {}});
        store.putRun({"second", dir.root() / "runs/second", "triplet", {}});
        store.putRun({"first", dir.root() / "runs/first-again", "biosyn", {}});
        store.setSetting("zeta", "1");
        store.setSetting("alpha", "2");
        store.setSetting("zeta", "3");
        store = ProjectStore::open(address);
        const auto runs = store.runs();
        QCOMPARE(runs.size(), std::size_t{2});
        QCOMPARE(runs[0].name, std::string("first"));  // a replaced run keeps its place
        QCOMPARE(runs[0].directory, dir.root() / "runs/first-again");
        QCOMPARE(runs[1].preset, std::string("triplet"));
        QVERIFY(!runs[0].added.empty());
        QVERIFY(store.removeRun("second"));
        QVERIFY(!store.removeRun("second"));
        QCOMPARE(store.runs().size(), std::size_t{1});
        QCOMPARE(store.setting("zeta").value_or(""), std::string("3"));
        QVERIFY(!store.setting("missing"));
        const std::vector<std::pair<std::string, std::string>> expected{{"alpha", "2"}, {"zeta", "3"}};
        QVERIFY(store.settings() == expected);
        const QString unnamed = errorText([&] { store.putRun({"", dir.root(), "", {}}); });
        QVERIFY2(unnamed.contains(QStringLiteral("without a name")), qPrintable(unnamed));
    }

    void blobs_data() { backends(); }
    void blobs() {
        const test::FixtureDir dir;
        ADDRESS_OR_SKIP(address, dir);
        auto store = ProjectStore::create(address, manifestIn(dir));
        const auto large = pattern((std::size_t{5} << 20) / 2 + 17);  // spans chunks, ends mid-chunk
        store.putBlob("large", large);
        store.putBlob("empty", {});
        store.putBlob("b", pattern(10));
        store.putBlob("b", pattern(20));  // replaced whole
        store = ProjectStore::open(address);
        QVERIFY(store.blob("large") == large);
        QVERIFY(store.blob("empty").has_value());
        QVERIFY(store.blob("empty")->empty());
        QVERIFY(store.blob("b") == pattern(20));
        QVERIFY(!store.blob("missing"));
        const std::vector<std::string> names{"b", "empty", "large"};
        QVERIFY(store.blobNames() == names);

        const auto source = dir.path("datastore.bin");
        test::writeFile(source, std::string(reinterpret_cast<const char*>(large.data()), large.size()));
        store.putBlobFromFile("streamed", source);
        QVERIFY(store.blob("streamed") == large);
        QVERIFY(store.writeBlobToFile("streamed", dir.path("out.bin")));
        QCOMPARE(test::readFile(dir.path("out.bin")), test::readFile(source));
        QVERIFY(!store.writeBlobToFile("missing", dir.path("none.bin")));
        QVERIFY(!fs::exists(dir.path("none.bin")));
        QVERIFY(store.removeBlob("large"));
        QVERIFY(!store.removeBlob("large"));
        QVERIFY(!store.blob("large"));
    }

    void recordUndoRedoAcrossReopening_data() { backends(); }
    void recordUndoRedoAcrossReopening() {
        const test::FixtureDir dir;
        ADDRESS_OR_SKIP(address, dir);
        {
            auto store = ProjectStore::create(address, manifestIn(dir));
            QVERIFY(!store.canUndo());
            const Decision first = store.record(decisionOn("1", 0, DecisionKind::Accept, "MESH:D1"));
            QCOMPARE(first.id, std::int64_t{1});
            QVERIFY(!first.timestamp.empty());
            store.record(decisionOn("1", 10, DecisionKind::Correct, "MESH:D2"));
            store.record(decisionOn("1", 20, DecisionKind::Nil, ""));
            QCOMPARE(store.undo()->id, std::int64_t{3});
            QCOMPARE(store.undo()->id, std::int64_t{2});
        }
        auto store = ProjectStore::open(address);
        QCOMPARE(history(store), QStringLiteral("1:done 2:undone 3:undone"));
        QVERIFY(store.canUndo() && store.canRedo());
        QCOMPARE(store.redo()->id, std::int64_t{2});  // the earliest undone first
        // A new decision cuts the redo stack: decision 3 is kept as history, discarded.
        const Decision fourth = store.record(decisionOn("1", 30, DecisionKind::Reject, ""));
        QCOMPARE(fourth.id, std::int64_t{4});
        QCOMPARE(history(store), QStringLiteral("1:done 2:done 3:discarded 4:done"));
        QVERIFY(!store.canRedo());
        QVERIFY(!store.redo());
        QCOMPARE(store.decisions()[2].newLink, std::string("-1"));  // nil's link filled in
        QCOMPARE(store.doneDecisions().size(), std::size_t{3});
        QCOMPARE(store.decisionCount(), std::size_t{4});
        const auto current = store.currentDecision({"train", "1", 10, 15});
        QVERIFY(current && current->newLink == "MESH:D2");
        QVERIFY(!store.currentDecision({"train", "1", 20, 25}));  // discarded, not in effect
        store.record(decisionOn("1", 10, DecisionKind::Correct, "MESH:D9", "bob"));
        QCOMPARE(store.currentDecision({"train", "1", 10, 15})->curator, std::string("bob"));
        while (store.undo()) {
        }
        QVERIFY(!store.canUndo());
        QCOMPARE(history(store), QStringLiteral("1:undone 2:undone 3:discarded 4:undone 5:undone"));
    }

    void recordAllIsOneTransaction_data() { backends(); }
    void recordAllIsOneTransaction() {
        const test::FixtureDir dir;
        ADDRESS_OR_SKIP(address, dir);
        auto store = ProjectStore::create(address, manifestIn(dir));
        store.record(decisionOn("1", 0, DecisionKind::Accept, "MESH:D1"));
        store.record(decisionOn("1", 10, DecisionKind::Accept, "MESH:D1"));
        store.undo();
        const std::vector<Decision> batch{decisionOn("2", 0, DecisionKind::Accept, "MESH:D3"),
                                          decisionOn("2", 10, DecisionKind::Accept, "MESH:D4"),
                                          decisionOn("2", 20, DecisionKind::Accept, "MESH:D5")};
        // Stopped before the third: nothing is recorded, the redo stack included.
        const QString stopped = errorText([&] {
            store.recordAll(batch, [](std::size_t i) {
                if (i == 2) throw Error("stopped");
            });
        });
        QCOMPARE(stopped, QStringLiteral("stopped"));
        QCOMPARE(history(store), QStringLiteral("1:done 2:undone"));
        // One refused decision: nothing is recorded.
        auto refused = batch;
        refused[1].mention.document = "a\tb";
        const QString invalid = errorText([&] { store.recordAll(refused); });
        QVERIFY2(invalid.contains(QStringLiteral("tab or a line break")), qPrintable(invalid));
        QCOMPARE(history(store), QStringLiteral("1:done 2:undone"));
        const auto recorded = store.recordAll(batch);
        QCOMPARE(recorded.back().id, std::int64_t{5});
        QCOMPARE(ProjectStore::open(address).decisions().size(), std::size_t{5});
        QCOMPARE(history(store), QStringLiteral("1:done 2:discarded 3:done 4:done 5:done"));
        QVERIFY(store.recordAll({}).empty());
    }

    void invalidDecisionsAreRefused_data() { backends(); }
    void invalidDecisionsAreRefused() {
        const test::FixtureDir dir;
        ADDRESS_OR_SKIP(address, dir);
        auto store = ProjectStore::create(address, manifestIn(dir));
        const auto refusal = [&](Decision decision) { return errorText([&] { store.record(decision); }); };
        auto noLink = decisionOn("1", 0, DecisionKind::Accept, "");
        QVERIFY(refusal(noLink).contains(QStringLiteral("needs the new link")));
        auto backwards = decisionOn("1", 0, DecisionKind::Accept, "MESH:D1");
        backwards.mention.end = 0;
        QVERIFY(refusal(backwards).contains(QStringLiteral("ends before it starts")));
        QVERIFY(
            refusal(decisionOn("1", 0, DecisionKind::Skip, "MESH:D1")).contains(QStringLiteral("gives no new link")));
        QVERIFY(refusal(decisionOn("1", 0, DecisionKind::Accept, "MESH:D1\nX")).contains(QStringLiteral("line break")));
        QCOMPARE(store.decisionCount(), std::size_t{0});
    }

    void copiedHistoryIsKeptAsItIs_data() { backends(); }
    void copiedHistoryIsKeptAsItIs() {
        const test::FixtureDir dir;
        ADDRESS_OR_SKIP(address, dir);
        const test::FixtureDir sourceDir;
        auto source = ProjectStore::create(sourceDir.path("source.linkscope"), manifestIn(sourceDir));
        source.record(decisionOn("1", 0, DecisionKind::Accept, "MESH:D1"));
        source.record(decisionOn("1", 10, DecisionKind::Correct, "MESH:D2", "bob"));
        source.record(decisionOn("1", 20, DecisionKind::Nil, ""));
        source.undo();
        source.undo();
        source.record(decisionOn("1", 30, DecisionKind::Skip, ""));
        source.undo();
        auto copy = ProjectStore::create(address, manifestIn(dir));
        copy.importHistory(source.decisions());
        QVERIFY(sameDecisions(ProjectStore::open(address).decisions(), source.decisions()));
        QCOMPARE(history(copy), QStringLiteral("1:done 2:discarded 3:discarded 4:undone"));
        QCOMPARE(copy.redo()->id, std::int64_t{4});
        QCOMPARE(copy.record(decisionOn("2", 0, DecisionKind::Accept, "MESH:D7")).id, std::int64_t{5});
        const QString twice = errorText([&] { copy.importHistory(source.decisions()); });
        QVERIFY2(twice.contains(QStringLiteral("has decisions")), qPrintable(twice));
    }

    // --- only a server ------------------------------------------------------------------------

    void refusesAPasswordInTheAddress() {
        const test::FixtureDir dir;
        const std::string uri = "postgresql://curator:s3cret@localhost/linkscope";
        for (const auto& action : {std::function<void()>([&] { (void)ProjectStore::open(uri); }),
                                   std::function<void()>([&] { (void)ProjectStore::create(uri, manifestIn(dir)); })}) {
            const QString error = errorText(action);
            QVERIFY2(
                error.contains(QStringLiteral(".pgpass")) || error.contains(QStringLiteral("no PostgreSQL support")),
                qPrintable(error));
            QVERIFY2(!error.contains(QStringLiteral("s3cret")), qPrintable(error));  // never echoed
        }
        const QString keyword =
            errorText([] { (void)ProjectStore::open("postgres:///linkscope?host=/tmp&password=s3cret"); });
        QVERIFY2(!keyword.contains(QStringLiteral("s3cret")), qPrintable(keyword));
        QVERIFY2(keyword.contains(QStringLiteral("password")) || keyword.contains(QStringLiteral("no PostgreSQL")),
                 qPrintable(keyword));
    }

    void refusesADatabaseWithoutAProject() {
        if (!server_.running()) QSKIP(qPrintable(QStringLiteral("no PostgreSQL server: ") + skip_));
        const std::string uri = server_.newDatabase();
        QVERIFY2(!uri.empty(), qPrintable(server_.why()));
        const QString error = errorText([&] { (void)ProjectStore::open(uri); });
        QVERIFY2(error.contains(QStringLiteral("not a Linkscope project")), qPrintable(error));
        const QString unreachable = errorText(
            [&] { (void)ProjectStore::open("postgresql:///nowhere?host=" + server_.socketFolder().toStdString()); });
        QVERIFY2(unreachable.contains(QStringLiteral("cannot connect")), qPrintable(unreachable));
    }

    void migrationsAreVersioned() {
        if (!server_.running()) QSKIP(qPrintable(QStringLiteral("no PostgreSQL server: ") + skip_));
        const test::FixtureDir dir;
        const std::string uri = server_.newDatabase();
        QVERIFY2(!uri.empty(), qPrintable(server_.why()));
        const std::string database = uri.substr(std::string("postgresql:///").size(), uri.find('?') - 14);
        (void)ProjectStore::create(uri, manifestIn(dir));
        const int version = ProjectStore::open(uri).schemaVersion();
        QVERIFY(version >= 1);
        // A database migrated by a newer Linkscope is refused, not written to.
        QVERIFY2(
            server_.sql(database, QStringLiteral("INSERT INTO schema_version (version) VALUES (%1)").arg(version + 1)),
            qPrintable(server_.why()));
        const QString newer = errorText([&] { (void)ProjectStore::open(uri); });
        QVERIFY2(newer.contains(QStringLiteral("newer than this Linkscope")), qPrintable(newer));
    }

    void twoClientsWriteAtOnce() {
        if (!server_.running()) QSKIP(qPrintable(QStringLiteral("no PostgreSQL server: ") + skip_));
        const test::FixtureDir dir;
        const std::string uri = server_.newDatabase();
        QVERIFY2(!uri.empty(), qPrintable(server_.why()));
        auto ann = ProjectStore::create(uri, manifestIn(dir));
        auto bob = ProjectStore::open(uri);
        for (std::size_t i = 0; i < 10; ++i) {
            ann.record(decisionOn("1", i * 10, DecisionKind::Accept, "MESH:D1", "ann"));
            bob.record(decisionOn("2", i * 10, DecisionKind::Accept, "MESH:D2", "bob"));
        }
        // Each sees the other's decisions at once, ids in commit order without a clash.
        QCOMPARE(ann.decisionCount(), std::size_t{20});
        const auto all = bob.decisions();
        for (std::size_t i = 0; i < all.size(); ++i) {
            QCOMPARE(all[i].id, static_cast<std::int64_t>(i + 1));
            QCOMPARE(all[i].curator, std::string(i % 2 == 0 ? "ann" : "bob"));
        }
        QCOMPARE(ann.currentDecision({"train", "2", 90, 95})->curator, std::string("bob"));
    }

    void refusesARowChangedOnTheServer() {
        if (!server_.running()) QSKIP(qPrintable(QStringLiteral("no PostgreSQL server: ") + skip_));
        const test::FixtureDir dir;
        const std::string uri = server_.newDatabase();
        QVERIFY2(!uri.empty(), qPrintable(server_.why()));
        const std::string database = uri.substr(std::string("postgresql:///").size(), uri.find('?') - 14);
        auto store = ProjectStore::create(uri, manifestIn(dir));
        store.record(decisionOn("1", 0, DecisionKind::Correct, "MESH:D000123"));
        QVERIFY2(server_.sql(database, QStringLiteral("UPDATE decisions SET new_link = 'MESH:D000124'")),
                 qPrintable(server_.why()));
        const QString error = errorText([&] { (void)store.decisions(); });
        QVERIFY2(error.contains(QStringLiteral("does not match its checksum")), qPrintable(error));
        QVERIFY2(errorText([&] { (void)store.checkIntegrity(); }).contains(QStringLiteral("checksum")),
                 qPrintable(error));
    }
};

QTEST_GUILESS_MAIN(TestStoreContract)
#include "test_store_contract.moc"
