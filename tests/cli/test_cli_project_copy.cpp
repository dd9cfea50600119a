// linkscope-cli project create and project copy, between a project file and a PostgreSQL database
// on a server the suite starts itself (tests/common/postgres_server.h; the server cases skip,
// saying why, where initdb is not installed): a file copied to the server and back exports the
// same bytes (the corrected corpus and the decision history) as the original, its runs,
// settings and kNN datastore blob kept; every --project takes the URI; a password in an
// address is refused without being echoed; project grant gives a login a role on a server and
// is refused for a file.
#include <string>

#include <nlohmann/json.hpp>

#include "cli_runner.h"
#include "fixtures.h"
#include "postgres_server.h"
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

}  // namespace

class TestCliProjectCopy : public QObject {
    Q_OBJECT
    test::FixtureDir dir_;
    test::PostgresServer server_;
    QString skip_;

    // The exports of a project (decision history and corrected PubTator), as bytes.
    QByteArray exportsOf(const QString& project, const QString& tag) {
        QByteArray all;
        for (const char* format : {"decisions", "pubtator"}) {
            const auto out = dir_.path(tag.toStdString() + "." + format);
            const auto r =
                test::runCli({"export", "--project", project, "--format", format, "--split", "train", "--out", q(out)});
            if (r.exitCode != 0) return "export failed: " + r.err;
            all += QByteArray::fromStdString(test::readFile(out));
        }
        return all;
    }

private Q_SLOTS:
    void initTestCase() {
        if (server_.start()) return;
        if (server_.skipReason().isEmpty()) QFAIL(qPrintable(server_.why()));
        skip_ = server_.skipReason();
    }

    void createsAFileFromAManifest() {
        const auto file = dir_.path("created.linkscope");
        const auto r =
            test::runCli({"project", "create", "--manifest", test::demoFile("demo-project.json"), "--store", q(file)});
        QVERIFY2(r.exitCode == 0, r.err.constData());
        QVERIFY2(r.out.startsWith(q(file).toUtf8() + ": created the project"), r.out.constData());
        QVERIFY(test::runCli({"project", "check", q(file)}).exitCode == 0);
        const auto again =
            test::runCli({"project", "create", "--manifest", test::demoFile("demo-project.json"), "--store", q(file)});
        QVERIFY2(again.exitCode == 1 && again.err.contains("already exists"), again.err.constData());
    }

    void refusesAPasswordInTheAddress() {
        const auto r = test::runCli({"project", "create", "--manifest", test::demoFile("demo-project.json"), "--store",
                                     "postgresql://ann:s3cret@localhost/team"});
        QVERIFY2(r.exitCode == 1, r.err.constData());
        QVERIFY2(!r.err.contains("s3cret") && !r.out.contains("s3cret"), r.err.constData());
        QVERIFY2(r.err.contains(".pgpass") || r.err.contains("no PostgreSQL support"), r.err.constData());
    }

    void copiesToTheServerAndBackByteForByte() {
        if (!server_.running()) QSKIP(qPrintable(QStringLiteral("no PostgreSQL server: ") + skip_));
        const auto original = dir_.path("original.linkscope");
        {
            auto store = project::ProjectStore::create(
                original, readProjectManifest(test::demoFile("demo-project.json").toStdString()));
            store.record(decisionOn(21, 39, "Huntington disease", "MESH:D006816", "ana"));
            store.record(decisionOn(110, 136, "neurodegenerative disorder", "MESH:D019636", "ana"));
            store.record(decisionOn(110, 136, "neurodegenerative disorder", "MESH:D009410", "ben"));
            store.undo();
            store.putRun({"run-a", dir_.path("runs/a"), "biosyn", {}});
            store.setSetting("review.order", "expected-gain");
            const std::string datastore(3 << 20, '\x5a');
            store.putBlob("knn-datastore:enc", std::as_bytes(std::span(datastore.data(), datastore.size())));
        }
        const std::string uri = server_.newDatabase();
        QVERIFY2(!uri.empty(), qPrintable(server_.why()));
        const auto toServer = test::runCli({"project", "copy", q(original), QString::fromStdString(uri)});
        QVERIFY2(toServer.exitCode == 0, toServer.err.constData());
        QVERIFY2(toServer.out.contains("3 decision(s) with their history, 1 run(s), 1 setting(s), 1 blob(s)"),
                 toServer.out.constData());
        const auto back = dir_.path("back.linkscope");
        const auto fromServer = test::runCli({"project", "copy", QString::fromStdString(uri), q(back)});
        QVERIFY2(fromServer.exitCode == 0, fromServer.err.constData());

        const QByteArray expected = exportsOf(q(original), QStringLiteral("original"));
        QVERIFY2(expected.contains("MESH:D006816") && expected.contains("\"state\":\"undone\""), expected.constData());
        QCOMPARE(exportsOf(QString::fromStdString(uri), QStringLiteral("server")), expected);
        QCOMPARE(exportsOf(q(back), QStringLiteral("back")), expected);

        const auto copied = project::ProjectStore::open(back);
        QCOMPARE(copied.runs().size(), std::size_t{1});
        QCOMPARE(copied.runs()[0].directory, dir_.path("runs/a"));
        QCOMPARE(copied.setting("review.order").value_or(""), std::string("expected-gain"));
        QCOMPARE(copied.blob("knn-datastore:enc")->size(), std::size_t{3} << 20);
        QVERIFY(test::runCli({"project", "check", QString::fromStdString(uri)}).exitCode == 0);
        // The server holds a project now: a second copy into it is refused.
        const auto twice = test::runCli({"project", "copy", q(original), QString::fromStdString(uri)});
        QVERIFY2(twice.exitCode == 1 && twice.err.contains("holds a project already"), twice.err.constData());
        const auto existing = test::runCli({"project", "copy", QString::fromStdString(uri), q(back)});
        QVERIFY2(existing.exitCode == 1 && existing.err.contains("already exists"), existing.err.constData());
    }

    void createsAProjectOnTheServer() {
        if (!server_.running()) QSKIP(qPrintable(QStringLiteral("no PostgreSQL server: ") + skip_));
        const std::string uri = server_.newDatabase();
        QVERIFY2(!uri.empty(), qPrintable(server_.why()));
        const auto r = test::runCli({"project", "create", "--manifest", test::demoFile("demo-project.json"), "--store",
                                     QString::fromStdString(uri)});
        QVERIFY2(r.exitCode == 0, r.err.constData());
        const auto check = test::runCli({"project", "check", QString::fromStdString(uri)});
        QVERIFY2(check.exitCode == 0 && check.out.contains("0 decision(s) read and their checksums verified"),
                 check.out.constData());
    }

    void grantsARoleOnTheServerOnly() {
        const auto file = dir_.path("roles.linkscope");
        QVERIFY(
            test::runCli({"project", "create", "--manifest", test::demoFile("demo-project.json"), "--store", q(file)})
                .exitCode == 0);
        const auto onFile = test::runCli({"project", "grant", q(file), "ann", "--role", "curator"});
        QVERIFY2(onFile.exitCode == 1 && onFile.err.contains("a project file has no roles"), onFile.err.constData());
        if (!server_.running()) QSKIP(qPrintable(QStringLiteral("no PostgreSQL server: ") + skip_));
        const std::string uri = server_.newDatabase();
        QVERIFY2(!uri.empty(), qPrintable(server_.why()));
        QVERIFY(test::runCli({"project", "create", "--manifest", test::demoFile("demo-project.json"), "--store",
                              QString::fromStdString(uri)})
                    .exitCode == 0);
        QVERIFY2(server_.sql("postgres", QStringLiteral("CREATE ROLE cli_ann LOGIN")), qPrintable(server_.why()));
        const auto granted =
            test::runCli({"project", "grant", QString::fromStdString(uri), "cli_ann", "--role", "reviewer"});
        QVERIFY2(granted.exitCode == 0 && granted.out.contains("cli_ann is now a reviewer"), granted.err.constData());
        const auto unknown =
            test::runCli({"project", "grant", QString::fromStdString(uri), "cli_ann", "--role", "owner"});
        QVERIFY2(unknown.exitCode == 1 && unknown.err.contains("is not a role"), unknown.err.constData());
        // The reviewer reads the project (export) and cannot record into it (merge).
        const std::string asReviewer = server_.uriOf(test::PostgresServer::databaseOf(uri), "cli_ann");
        const auto read = test::runCli({"export", "--project", QString::fromStdString(asReviewer), "--format",
                                        "decisions", "--out", q(dir_.path("reviewer.jsonl"))});
        QVERIFY2(read.exitCode == 0, read.err.constData());
    }

    // The team mode is set on the server and copied; a file merges into a team project, and
    // agreement reads the live store's two curators.
    void setsTheModeMergesAFileInAndMeasuresAgreement() {
        if (!server_.running()) QSKIP(qPrintable(QStringLiteral("no PostgreSQL server: ") + skip_));
        const std::string uri = server_.newDatabase();
        QVERIFY2(!uri.empty(), qPrintable(server_.why()));
        const QString team = QString::fromStdString(uri);
        QVERIFY(test::runCli({"project", "create", "--manifest", test::demoFile("demo-project.json"), "--store", team})
                    .exitCode == 0);
        const auto mode = test::runCli({"project", "mode", team, "blind", "--overlap", "0.2", "--seed", "3"});
        QVERIFY2(mode.exitCode == 0 && mode.out.contains("blind, a share of 0.2 of the documents given to two "
                                                         "curators (seed 3)"),
                 mode.out.constData());
        const auto manifest = readProjectManifest(test::demoFile("demo-project.json").toStdString());
        const auto ana = dir_.path("ana.linkscope");
        const auto ben = dir_.path("ben.linkscope");
        {
            auto store = project::ProjectStore::create(ana, manifest);
            store.record(decisionOn(21, 39, "Huntington disease", "MESH:D006816", "ana"));
            store.record(decisionOn(110, 136, "neurodegenerative disorder", "MESH:D019636", "ana"));
        }
        {
            auto store = project::ProjectStore::create(ben, manifest);
            store.record(decisionOn(21, 39, "Huntington disease", "MESH:D006816", "ben"));
            store.record(decisionOn(110, 136, "neurodegenerative disorder", "MESH:D009410", "ben"));
        }
        for (const auto& file : {ana, ben}) {
            const auto merged = test::runCli({"merge", team, q(file)});
            QVERIFY2(merged.exitCode == 0 && merged.out.contains("merged 2 decision(s)"), merged.err.constData());
        }
        const auto itself = test::runCli({"merge", team, team});
        QVERIFY2(itself.exitCode == 1 && itself.err.contains("cannot merge a project into itself"),
                 itself.err.constData());
        const auto agreement =
            test::runCli({"agreement", team, "--curator", "ana", "--curator", "ben", "--no-types", "--json"});
        QVERIFY2(agreement.exitCode == 0, agreement.err.constData());
        const auto figures = nlohmann::json::parse(agreement.out.toStdString());
        QCOMPARE(figures["overall"]["both"].get<int>(), 2);
        QCOMPARE(figures["overall"]["agreed"].get<int>(), 1);
        const auto back = dir_.path("team-back.linkscope");
        QVERIFY(test::runCli({"project", "copy", team, q(back)}).exitCode == 0);
        const auto copied = test::runCli({"project", "mode", q(back)});
        QVERIFY2(copied.out.contains("blind, a share of 0.2"), copied.out.constData());
    }
};

QTEST_GUILESS_MAIN(TestCliProjectCopy)
#include "test_cli_project_copy.moc"
