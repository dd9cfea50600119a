// Curators as database roles on a PostgreSQL server the suite starts itself
// (tests/common/postgres_server.h; skipped, saying why, where initdb is not installed): a decision
// names the login that recorded it (set by the server), each login undoes and redoes only its
// own, and every forbidden action is refused by the server itself: tried with plain SQL through
// psql as that login, not only through the store, whose refusals say so in plain words.
#include <QtTest/QtTest>

#include <string>

#include "error_of.h"
#include "fixtures.h"
#include "postgres_server.h"
#include "project/project_store.h"

using namespace linkscope;
using namespace linkscope::project;
namespace fs = std::filesystem;

namespace {

Decision decisionOn(std::size_t start, std::string link, std::string curator) {
    Decision decision;
    decision.mention = {"train", "1", start, start + 5};
    decision.mentionText = "tumor";
    decision.kind = DecisionKind::Correct;
    decision.newLink = std::move(link);
    decision.curator = std::move(curator);
    return decision;
}

}  // namespace

class TestTeamRoles : public QObject {
    Q_OBJECT

    test::PostgresServer server_;
    test::FixtureDir dir_;
    std::string uri_;       // the project, as its owner (the superuser) opens it
    std::string database_;  // its database

    std::string as(const std::string& login) const { return server_.uriOf(database_, login); }

    // Runs SQL as `login`; the server's answer (psql's output), or "refused: ..." when it failed.
    QString sqlAs(const QString& login, const QString& statement) {
        if (!server_.sql(database_, statement, login)) return QStringLiteral("refused: ") + server_.why();
        return server_.output().trimmed();
    }

    QString stateOf(std::int64_t id) {
        if (!server_.sql(database_,
                         QStringLiteral("SELECT state || ' ' || login FROM decisions WHERE id = %1").arg(id)))
            return server_.why();
        return server_.output().trimmed();
    }

private Q_SLOTS:
    void initTestCase() {
        if (!server_.start()) {
            if (!server_.skipReason().isEmpty()) QSKIP(qPrintable(server_.skipReason()));
            QFAIL(qPrintable(server_.why()));
        }
        uri_ = server_.newDatabase();
        QVERIFY2(!uri_.empty(), qPrintable(server_.why()));
        database_ = test::PostgresServer::databaseOf(uri_);
        ProjectManifest manifest;
        manifest.name = "team";
        manifest.knowledgeBase.path = dir_.write("kb.txt", "D1||Name\n");
        manifest.corpora.push_back({"train", dir_.write("c.txt", "1|t|T\n"), CorpusFormat::PubTator, {}});
        auto owner = ProjectStore::create(uri_, manifest);
        QVERIFY2(server_.sql("postgres", QStringLiteral("CREATE ROLE ann LOGIN; CREATE ROLE bob LOGIN; "
                                                        "CREATE ROLE judy LOGIN; CREATE ROLE rita LOGIN")),
                 qPrintable(server_.why()));
        owner.grant("ann", TeamRole::Curator);
        owner.grant("bob", TeamRole::Curator);
        owner.grant("judy", TeamRole::Adjudicator);
        owner.grant("rita", TeamRole::Reviewer);
    }

    void decisionsNameTheirLoginAndUndoIsPerLogin() {
        auto ann = ProjectStore::open(as("ann"));
        auto bob = ProjectStore::open(as("bob"));
        const Decision a1 = ann.record(decisionOn(0, "MESH:D1", "ann"));
        const Decision b1 = bob.record(decisionOn(10, "MESH:D2", "bob"));
        QCOMPARE(stateOf(a1.id), QStringLiteral("done ann"));
        QCOMPARE(stateOf(b1.id), QStringLiteral("done bob"));
        // Ann's undo takes back her own latest decision, not Bob's later one.
        QCOMPARE(ann.undo()->id, a1.id);
        QVERIFY(!ann.undo());
        QVERIFY(bob.canUndo() && !bob.canRedo());
        QCOMPARE(stateOf(b1.id), QStringLiteral("done bob"));
        // Bob's new decision does not cut Ann's redo stack.
        bob.record(decisionOn(20, "MESH:D3", "bob"));
        QCOMPARE(ann.redo()->id, a1.id);
        QCOMPARE(ann.decisionCount(), std::size_t{3});  // everyone reads everything
    }

    void theServerRefusesACuratorOthersDecisions() {
        auto bob = ProjectStore::open(as("bob"));
        const Decision theirs = bob.record(decisionOn(30, "MESH:D4", "bob"));
        // An update of Bob's row by Ann reaches no row: row-level security hides it from her writes.
        QCOMPARE(sqlAs(QStringLiteral("ann"),
                       QStringLiteral("UPDATE decisions SET state = 'undone' WHERE id = %1").arg(theirs.id)),
                 QStringLiteral("UPDATE 0"));
        QCOMPARE(stateOf(theirs.id), QStringLiteral("done bob"));
        // A row that names another login is refused outright.
        const QString forged =
            sqlAs(QStringLiteral("ann"),
                  QStringLiteral("INSERT INTO decisions (id, split, document, start, \"end\", mention_text, kind, "
                                 "previous_link, new_link, curator, timestamp, state, checksum, login) VALUES (1000, "
                                 "'train', '1', 0, 5, 't', 'accept', '', 'MESH:D1', 'bob', 'now', 'done', 0, 'bob')"));
        QVERIFY2(forged.startsWith(QStringLiteral("refused")) && forged.contains(QStringLiteral("row-level security")),
                 qPrintable(forged));
        // Nobody deletes history.
        const QString deleted = sqlAs(QStringLiteral("ann"), QStringLiteral("DELETE FROM decisions"));
        QVERIFY2(deleted.contains(QStringLiteral("permission denied")), qPrintable(deleted));
        // Nor changes the project's schema or its roles.
        const QString dropped = sqlAs(QStringLiteral("ann"), QStringLiteral("DROP TABLE decisions"));
        QVERIFY2(dropped.startsWith(QStringLiteral("refused")), qPrintable(dropped));
        auto ann = ProjectStore::open(as("ann"));
        const QString grant = QString::fromStdString(test::errorOf([&] { ann.grant("ann", TeamRole::Adjudicator); }));
        QVERIFY2(grant.contains(QStringLiteral("cannot give ann the role adjudicator")), qPrintable(grant));
    }

    void anAdjudicatorChangesAnyDecision() {
        auto bob = ProjectStore::open(as("bob"));
        const Decision theirs = bob.record(decisionOn(40, "MESH:D5", "bob"));
        QCOMPARE(sqlAs(QStringLiteral("judy"),
                       QStringLiteral("UPDATE decisions SET curator = curator WHERE id = %1").arg(theirs.id)),
                 QStringLiteral("UPDATE 1"));
        auto judy = ProjectStore::open(as("judy"));
        const Decision adjudication = judy.record(decisionOn(40, "MESH:D6", "judy"));
        QCOMPARE(stateOf(adjudication.id), QStringLiteral("done judy"));
    }

    // An adjudication (a curator name marked " (adjudicator)") is the adjudicator's to record: a
    // curator's is refused by the server, as a new row or as a changed name, and through the
    // store in plain words; the adjudicator's and the owner's are kept.
    void onlyAnAdjudicatorRecordsAnAdjudication() {
        const QString inserted =
            sqlAs(QStringLiteral("ann"),
                  QStringLiteral("INSERT INTO decisions (id, split, document, start, \"end\", mention_text, kind, "
                                 "previous_link, new_link, curator, timestamp, state, checksum) VALUES (1001, "
                                 "'train', '1', 60, 65, 't', 'correct', '', 'MESH:D1', 'ann (adjudicator)', 'now', "
                                 "'done', 0)"));
        QVERIFY2(inserted.startsWith(QStringLiteral("refused")) &&
                     inserted.contains(QStringLiteral("only an adjudicator records an adjudication")),
                 qPrintable(inserted));
        auto ann = ProjectStore::open(as("ann"));
        const Decision own = ann.record(decisionOn(70, "MESH:D8", "ann"));
        const QString renamed =
            sqlAs(QStringLiteral("ann"),
                  QStringLiteral("UPDATE decisions SET curator = 'ann (adjudicator)' WHERE id = %1").arg(own.id));
        QVERIFY2(renamed.startsWith(QStringLiteral("refused")) &&
                     renamed.contains(QStringLiteral("only an adjudicator records an adjudication")),
                 qPrintable(renamed));
        const QString recorded =
            QString::fromStdString(test::errorOf([&] { ann.record(decisionOn(80, "MESH:D9", "ann (adjudicator)")); }));
        QVERIFY2(recorded.contains(QStringLiteral("the server refused it, as this login's role in the project "
                                                  "does not allow it")) &&
                     recorded.contains(QStringLiteral("only an adjudicator records an adjudication")),
                 qPrintable(recorded));
        QVERIFY2(server_.sql(database_, QStringLiteral("SELECT count(*) FROM decisions WHERE login = 'ann' "
                                                       "AND curator LIKE '%(adjudicator)'")),
                 qPrintable(server_.why()));
        QCOMPARE(server_.output().trimmed(), QStringLiteral("0"));
        // The refusal leaves the store usable, and the curator's own decisions as they were.
        QCOMPARE(stateOf(ann.record(decisionOn(90, "MESH:D10", "ann")).id), QStringLiteral("done ann"));
        QVERIFY2(server_.sql(database_, QStringLiteral("SELECT curator FROM decisions WHERE id = %1").arg(own.id)),
                 qPrintable(server_.why()));
        QCOMPARE(server_.output().trimmed(), QStringLiteral("ann"));

        auto judy = ProjectStore::open(as("judy"));
        const Decision adjudication = judy.record(decisionOn(80, "MESH:D9", "judy (adjudicator)"));
        QCOMPARE(stateOf(adjudication.id), QStringLiteral("done judy"));
        QCOMPARE(judy.undo()->id, adjudication.id);
        QCOMPARE(judy.redo()->id, adjudication.id);
        auto owner = ProjectStore::open(uri_);
        const Decision owners = owner.record(decisionOn(100, "MESH:D11", "olga (adjudicator)"));
        QVERIFY2(server_.sql(database_, QStringLiteral("SELECT curator FROM decisions WHERE id = %1").arg(owners.id)),
                 qPrintable(server_.why()));
        QCOMPARE(server_.output().trimmed(), QStringLiteral("olga (adjudicator)"));
    }

    // Row-level security lets a curator write their own rows; the server still keeps what a recorded
    // decision says: a curator's plain SQL that rewrites its link, its offsets or its login, or
    // moves its state other than undo or redo does, is refused, and the row stays as it was. Undo
    // and redo through the store go on, the curator's and the adjudicator's; the owner is not bound.
    void aRecordedDecisionIsKeptAsItWas() {
        auto ann = ProjectStore::open(as("ann"));
        const Decision own = ann.record(decisionOn(110, "MESH:D12", "ann"));
        const auto refusedAs = [&](const QString& login, const QString& set, std::int64_t id) {
            const QString answer =
                sqlAs(login, QStringLiteral("UPDATE decisions SET %1 WHERE id = %2").arg(set).arg(id));
            QVERIFY2(answer.startsWith(QStringLiteral("refused")) &&
                         answer.contains(QStringLiteral("a recorded decision is kept as it was")),
                     qPrintable(set + QStringLiteral(": ") + answer));
        };
        refusedAs(QStringLiteral("ann"), QStringLiteral("new_link = 'MESH:D99'"), own.id);
        refusedAs(QStringLiteral("ann"), QStringLiteral("start = 111, \"end\" = 116"), own.id);
        refusedAs(QStringLiteral("ann"), QStringLiteral("timestamp = '2000-01-01T00:00:00.000Z', state = 'undone'"),
                  own.id);
        refusedAs(QStringLiteral("ann"), QStringLiteral("state = 'discarded'"), own.id);
        QVERIFY2(server_.sql(database_, QStringLiteral("SELECT new_link || ' ' || start || ' ' || \"end\" || ' ' || "
                                                       "state || ' ' || login FROM decisions WHERE id = %1")
                                            .arg(own.id)),
                 qPrintable(server_.why()));
        QCOMPARE(server_.output().trimmed(), QStringLiteral("MESH:D12 110 115 done ann"));
        // Undo and redo through the store change the state and go on.
        QCOMPARE(ann.undo()->id, own.id);
        QCOMPARE(stateOf(own.id), QStringLiteral("undone ann"));
        QCOMPARE(ann.redo()->id, own.id);
        QCOMPARE(stateOf(own.id), QStringLiteral("done ann"));
        QCOMPARE(ann.decisions().back().id, own.id);  // every checksum still matches

        // The adjudicator changes the state of anyone's decision, and nothing else of it.
        auto judy = ProjectStore::open(as("judy"));
        refusedAs(QStringLiteral("judy"), QStringLiteral("new_link = 'MESH:D99'"), own.id);
        refusedAs(QStringLiteral("judy"), QStringLiteral("login = 'judy'"), own.id);
        const Decision adjudication = judy.record(decisionOn(110, "MESH:D13", "judy (adjudicator)"));
        QCOMPARE(judy.undo()->id, adjudication.id);
        QCOMPARE(stateOf(adjudication.id), QStringLiteral("undone judy"));
        QCOMPARE(judy.redo()->id, adjudication.id);
        QCOMPARE(stateOf(adjudication.id), QStringLiteral("done judy"));

        // A cut redo stack (undone to discarded) is still the curator's own to write.
        QCOMPARE(ann.undo()->id, own.id);
        ann.record(decisionOn(120, "MESH:D14", "ann"));
        QCOMPARE(stateOf(own.id), QStringLiteral("discarded ann"));
        refusedAs(QStringLiteral("ann"), QStringLiteral("state = 'done'"), own.id);

        // The owner (here a superuser) is not bound: that is how a damaged row is mended.
        QVERIFY2(server_.sql(database_, QStringLiteral("UPDATE decisions SET new_link = 'MESH:D99' WHERE id = %1; "
                                                       "UPDATE decisions SET new_link = 'MESH:D12' WHERE id = %1")
                                            .arg(own.id)),
                 qPrintable(server_.why()));
        QCOMPARE(server_.output().trimmed(), QStringLiteral("UPDATE 1\nUPDATE 1"));
    }

    void aReviewerReadsAndWritesNothing() {
        auto rita = ProjectStore::open(as("rita"));
        QVERIFY(rita.decisionCount() > 0);
        const QString record =
            QString::fromStdString(test::errorOf([&] { rita.record(decisionOn(50, "MESH:D7", "rita")); }));
        QVERIFY2(record.contains(QStringLiteral("the server refused it")), qPrintable(record));
        const QString setting = QString::fromStdString(test::errorOf([&] { rita.setSetting("k", "v"); }));
        QVERIFY2(setting.contains(QStringLiteral("the server refused it")), qPrintable(setting));
        const QString undo = QString::fromStdString(test::errorOf([&] { (void)rita.undo(); }));
        QVERIFY2(undo.contains(QStringLiteral("cannot undo the latest decision: the server refused it")),
                 qPrintable(undo));
        const QString update = sqlAs(QStringLiteral("rita"), QStringLiteral("UPDATE decisions SET state = 'undone'"));
        QVERIFY2(update.contains(QStringLiteral("permission denied")), qPrintable(update));
        const QString insert =
            sqlAs(QStringLiteral("rita"), QStringLiteral("INSERT INTO settings (key, value) VALUES ('k', 'v')"));
        QVERIFY2(insert.contains(QStringLiteral("permission denied")), qPrintable(insert));
    }

    // A project made by an older Linkscope is brought up to date by its owner only: a curator
    // opening it is told so in plain words, not with the server's "permission denied".
    void aCuratorIsToldToAskTheOwnerToMigrate() {
        QVERIFY2(server_.sql(database_, QStringLiteral("SELECT max(version) FROM schema_version")),
                 qPrintable(server_.why()));
        const QString latest = server_.output().trimmed();
        QVERIFY2(server_.sql(database_, QStringLiteral("DELETE FROM schema_version WHERE version = %1").arg(latest)),
                 qPrintable(server_.why()));
        const QString refusal = QString::fromStdString(test::errorOf([&] { (void)ProjectStore::open(as("ann")); }));
        QVERIFY2(server_.sql(database_, QStringLiteral("INSERT INTO schema_version (version) VALUES (%1)").arg(latest)),
                 qPrintable(server_.why()));
        QVERIFY2(refusal.contains(QStringLiteral("only the project's owner may bring it up to date")),
                 qPrintable(refusal));
        QVERIFY2(!refusal.contains(QStringLiteral("permission denied")), qPrintable(refusal));
        auto ann = ProjectStore::open(as("ann"));  // up to date again: opens
        QVERIFY(ann.decisionCount() > 0);
    }

    void aLoginWithoutARoleReadsNothing() {
        QVERIFY2(server_.sql("postgres", QStringLiteral("CREATE ROLE eve LOGIN")), qPrintable(server_.why()));
        const QString read = sqlAs(QStringLiteral("eve"), QStringLiteral("SELECT count(*) FROM decisions"));
        QVERIFY2(read.contains(QStringLiteral("permission denied")), qPrintable(read));
    }

    void aFileHasNoRoles() {
        ProjectManifest manifest;
        manifest.name = "file";
        manifest.knowledgeBase.path = dir_.write("kb2.txt", "D1||Name\n");
        auto file = ProjectStore::create(dir_.path("p.linkscope"), manifest);
        const QString error = QString::fromStdString(test::errorOf([&] { file.grant("ann", TeamRole::Curator); }));
        QVERIFY2(error.contains(QStringLiteral("a project file has no roles")), qPrintable(error));
        QVERIFY(!file.encrypted());
    }
};

QTEST_GUILESS_MAIN(TestTeamRoles)
#include "test_team_roles.moc"
