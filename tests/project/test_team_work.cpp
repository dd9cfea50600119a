// A team's work on a PostgreSQL server the suite starts itself (tests/common/postgres_server.h;
// skipped, saying why, where initdb is not installed): two curators racing on one mention (the
// second decision refused by the server, naming what it saw and the other's decision), claims
// handed out and expiring, the blind mode hiding the others' decisions (checked with plain SQL
// as the curator, not only through the store), and a client that loses the server: it says so
// at once, reconnects and reads what it missed. Each curator is a separate connection.
#include <QtTest/QtTest>

#include <chrono>
#include <string>
#include <thread>

#include "error_of.h"
#include "fixtures.h"
#include "postgres_server.h"
#include "project/project_store.h"

using namespace linkscope;
using namespace linkscope::project;
using namespace std::chrono_literals;

namespace {

Decision decisionOn(const std::string& document, std::size_t start, std::string seen, std::string link,
                    std::string curator) {
    Decision decision;
    decision.mention = {"train", document, start, start + 5};
    decision.mentionText = "tumor";
    decision.kind = DecisionKind::Correct;
    decision.previousLink = std::move(seen);
    decision.newLink = std::move(link);
    decision.curator = std::move(curator);
    return decision;
}

MentionKey mentionOf(const std::string& document, std::size_t start) { return {"train", document, start, start + 5}; }

// A document id with the given answer of overlapDocument (found by trying ids in order).
std::string documentWithOverlap(const TeamModeSettings& settings, bool overlap) {
    for (int id = 0;; ++id)
        if (overlapDocument(settings, "doc" + std::to_string(id)) == overlap) return "doc" + std::to_string(id);
}

}  // namespace

class TestTeamWork : public QObject {
    Q_OBJECT

    test::PostgresServer server_;
    test::FixtureDir dir_;
    std::string owner_;  // the project's URI as its owner (the superuser)
    std::string database_;

    std::string as(const std::string& login) const { return server_.uriOf(database_, login); }

    QString sqlAs(const QString& login, const QString& statement) {
        if (!server_.sql(database_, statement, login)) return QStringLiteral("refused: ") + server_.why();
        return server_.output().trimmed();
    }

    void setMode(TeamMode mode) {
        auto owner = ProjectStore::open(owner_);
        owner.setTeamMode({mode, 0.5, 7});
    }

private Q_SLOTS:
    void initTestCase() {
        if (!server_.start()) {
            if (!server_.skipReason().isEmpty()) QSKIP(qPrintable(server_.skipReason()));
            QFAIL(qPrintable(server_.why()));
        }
        owner_ = server_.newDatabase();
        QVERIFY2(!owner_.empty(), qPrintable(server_.why()));
        database_ = test::PostgresServer::databaseOf(owner_);
        ProjectManifest manifest;
        manifest.name = "team";
        manifest.knowledgeBase.path = dir_.write("kb.txt", "D1||Name\n");
        manifest.corpora.push_back({"train", dir_.write("c.txt", "1|t|T\n"), CorpusFormat::PubTator, {}});
        auto owner = ProjectStore::create(owner_, manifest);
        QVERIFY2(server_.sql("postgres", QStringLiteral("CREATE ROLE ann LOGIN; CREATE ROLE bob LOGIN; "
                                                        "CREATE ROLE judy LOGIN")),
                 qPrintable(server_.why()));
        owner.grant("ann", TeamRole::Curator);
        owner.grant("bob", TeamRole::Curator);
        owner.grant("judy", TeamRole::Adjudicator);
        QCOMPARE(owner.teamMode().mode, TeamMode::Shared);
    }

    void theSecondOfTwoRacingDecisionsIsRefused() {
        setMode(TeamMode::Shared);
        auto ann = ProjectStore::open(as("ann"));
        auto bob = ProjectStore::open(as("bob"));
        // Both saw the model's proposal MESH:P; Ann's decision commits first.
        ann.record(decisionOn("race", 0, "MESH:P", "MESH:A", "ann"));
        try {
            bob.record(decisionOn("race", 0, "MESH:P", "MESH:B", "bob"));
            QFAIL("the second decision was stored");
        } catch (const DecisionConflict& e) {
            const QString message = QString::fromUtf8(e.what());
            QVERIFY2(message.contains(QStringLiteral("seeing the link 'MESH:P'")) &&
                         message.contains(QStringLiteral("ann (login ann) decided 'MESH:A'")),
                     qPrintable(message));
            QCOMPARE(e.refused().newLink, std::string("MESH:B"));
            QVERIFY(e.theirs());
            QCOMPARE(e.theirs()->newLink, std::string("MESH:A"));
            QCOMPARE(e.theirs()->curator, std::string("ann"));
        }
        QCOMPARE(bob.currentDecision(mentionOf("race", 0))->newLink, std::string("MESH:A"));
        // Having seen Ann's link, Bob may change it.
        QCOMPARE(bob.record(decisionOn("race", 0, "MESH:A", "MESH:B", "bob")).newLink, std::string("MESH:B"));
        // The server refuses it itself: a plain INSERT as Ann that saw the old link.
        const QString forged = sqlAs(
            QStringLiteral("ann"),
            QStringLiteral("INSERT INTO decisions (id, split, document, start, \"end\", mention_text, kind, "
                           "previous_link, new_link, curator, timestamp, state, checksum) VALUES (100000, 'train', "
                           "'race', 0, 5, 'tumor', 'correct', 'MESH:A', 'MESH:C', 'ann', 'now', 'done', 0)"));
        QVERIFY2(forged.contains(QStringLiteral("bob (login bob) decided 'MESH:B'")), qPrintable(forged));
        // An adjudicator settles what they have read: not checked.
        auto judy = ProjectStore::open(as("judy"));
        QCOMPARE(judy.record(decisionOn("race", 0, "MESH:A", "MESH:J", "judy")).newLink, std::string("MESH:J"));
    }

    void anUndoneDecisionIsNoLongerTheLinkSeen() {
        setMode(TeamMode::Shared);
        auto ann = ProjectStore::open(as("ann"));
        auto bob = ProjectStore::open(as("bob"));
        ann.record(decisionOn("undo", 0, "MESH:P", "MESH:A", "ann"));
        QVERIFY(ann.undo());
        // With Ann's decision undone, the proposal is what Bob sees again.
        QCOMPARE(bob.record(decisionOn("undo", 0, "MESH:P", "MESH:B", "bob")).newLink, std::string("MESH:B"));
        // Bob cannot undo Ann's decisions, and Ann's redo stack is hers alone.
        QVERIFY(bob.undo());
        QVERIFY(!bob.canUndo() || bob.decisions().back().curator == "bob");
        QVERIFY(ann.canRedo());
    }

    void claimsHandOutTheQueueAndExpire() {
        setMode(TeamMode::Shared);
        auto ann = ProjectStore::open(as("ann"));
        auto bob = ProjectStore::open(as("bob"));
        const std::vector<MentionKey> queue{mentionOf("claim", 0), mentionOf("claim", 10), mentionOf("claim", 20),
                                            mentionOf("claim", 30)};
        QCOMPARE(ann.claimNext(queue, 2, 60s), (std::vector<MentionKey>{queue[0], queue[1]}));
        // Bob gets the next free ones, never Ann's.
        QCOMPARE(bob.claimNext(queue, 1, 1s), (std::vector<MentionKey>{queue[2]}));
        std::size_t held = 0;
        for (const Claim& claim : ann.claims()) held += claim.mention.document == "claim";
        QCOMPARE(held, std::size_t{3});
        // Asked again, Ann keeps (renews) her own and gets no other.
        QCOMPARE(ann.claimNext(queue, 2, 60s), (std::vector<MentionKey>{queue[0], queue[1]}));
        // Bob's claim expires: free again, for Ann.
        std::this_thread::sleep_for(1200ms);
        QCOMPARE(bob.renewClaims(60s), std::size_t{0});
        QCOMPARE(ann.claimNext(queue, 4, 60s), queue);
        QCOMPARE(bob.claimNext(queue, 4, 60s), std::vector<MentionKey>{});
        // Released, a mention is Bob's to claim; decided, it is never handed out again.
        QVERIFY(ann.releaseClaim(queue[3]));
        ann.record(decisionOn("claim", 0, "MESH:P", "MESH:A", "ann"));
        QVERIFY(!ann.releaseClaim(queue[0]));
        QCOMPARE(bob.claimNext(queue, 4, 60s), (std::vector<MentionKey>{queue[3]}));
        QCOMPARE(ann.claimNext(queue, 4, 60s), (std::vector<MentionKey>{queue[1], queue[2]}));
        QCOMPARE(ann.renewClaims(60s), std::size_t{2});
        // A claim is only for its login: Ann cannot release Bob's with plain SQL.
        QCOMPARE(sqlAs(QStringLiteral("ann"), QStringLiteral("DELETE FROM claims WHERE login = 'bob'")),
                 QStringLiteral("DELETE 0"));
    }

    void blindCuratorsSeeOnlyTheirOwnDecisions() {
        setMode(TeamMode::Blind);
        const TeamModeSettings settings{TeamMode::Blind, 0.5, 7};
        const std::string overlap = documentWithOverlap(settings, true);
        const std::string single = documentWithOverlap(settings, false);
        auto ann = ProjectStore::open(as("ann"));
        auto bob = ProjectStore::open(as("bob"));
        QCOMPARE(bob.teamMode().mode, TeamMode::Blind);
        // An overlap document's mention goes to two curators, another one to one.
        const std::vector<MentionKey> queue{mentionOf(overlap, 0), mentionOf(single, 0)};
        QCOMPARE(ann.claimNext(queue, 2, 60s), queue);
        QCOMPARE(bob.claimNext(queue, 2, 60s), (std::vector<MentionKey>{queue[0]}));
        // Both decide the overlap mention from the proposal: neither sees the other's decision.
        ann.record(decisionOn(overlap, 0, "MESH:P", "MESH:A", "ann"));
        bob.record(decisionOn(overlap, 0, "MESH:P", "MESH:B", "bob"));
        QCOMPARE(bob.currentDecision(mentionOf(overlap, 0))->curator, std::string("bob"));
        for (const Decision& decision : bob.decisions()) QCOMPARE(decision.curator, std::string("bob"));
        QCOMPARE(sqlAs(QStringLiteral("bob"), QStringLiteral("SELECT count(*) FROM decisions WHERE login = 'ann'")),
                 QStringLiteral("0"));
        // The adjudicator reads both.
        auto judy = ProjectStore::open(as("judy"));
        std::size_t onOverlap = 0;
        for (const Decision& decision : judy.doneDecisions()) onOverlap += decision.mention == mentionOf(overlap, 0);
        QCOMPARE(onOverlap, std::size_t{2});
        // Only the owner sets the mode; the server refuses a curator.
        const QString refused = QString::fromStdString(test::errorOf([&] { ann.setTeamMode({}); }));
        QVERIFY2(refused.contains(QStringLiteral("the server refused it")), qPrintable(refused));
        QCOMPARE(sqlAs(QStringLiteral("ann"), QStringLiteral("UPDATE meta SET value = 'shared'"))
                     .contains(QStringLiteral("permission denied")),
                 true);
        setMode(TeamMode::Shared);
        QCOMPARE(sqlAs(QStringLiteral("bob"), QStringLiteral("SELECT count(*) > 0 FROM decisions WHERE login = 'ann'")),
                 QStringLiteral("t"));
    }

    void aFileKeepsItsModeAndHasNoClaims() {
        ProjectManifest manifest;
        manifest.name = "file";
        manifest.knowledgeBase.path = dir_.write("kb2.txt", "D1||Name\n");
        const auto path = dir_.path("p.linkscope");
        {
            auto file = ProjectStore::create(path, manifest);
            QCOMPARE(file.teamMode().mode, TeamMode::Shared);
            file.setTeamMode({TeamMode::Blind, 0.25, 99});
            QVERIFY(file.connected());
            const QString error = QString::fromStdString(test::errorOf([&] { (void)file.claims(); }));
            QVERIFY2(error.contains(QStringLiteral("a project file has no team")), qPrintable(error));
        }
        auto file = ProjectStore::open(path);
        QCOMPARE(file.teamMode().mode, TeamMode::Blind);
        QCOMPARE(file.teamMode().overlapShare, 0.25);
        QCOMPARE(file.teamMode().overlapSeed, std::uint64_t{99});
        (void)file.checkIntegrity();
    }

    // Last: it restarts the server.
    void aClientThatLostTheServerSaysSoAndCatchesUp() {
        setMode(TeamMode::Shared);
        auto ann = ProjectStore::open(as("ann"));
        ann.listenForChanges();
        QVERIFY(ann.changeSocket() >= 0);
        const std::int64_t seen = ann.changesSince(0).revision;
        QVERIFY(seen > 0);
        {
            auto bob = ProjectStore::open(as("bob"));
            bob.record(decisionOn("live", 0, "MESH:P", "MESH:B", "bob"));
            bool notified = false;
            for (int i = 0; i < 50 && !notified; ++i, std::this_thread::sleep_for(20ms))
                notified = ann.takeChangeNotifications();
            QVERIFY(notified);
        }
        const LiveChanges before = ann.changesSince(seen);
        QCOMPARE(before.decisions.size(), std::size_t{1});
        QVERIFY(ann.connected());

        QVERIFY2(server_.killAndRestart(), qPrintable(server_.why()));
        QVERIFY(!ann.connected());
        try {
            ann.record(decisionOn("live", 10, "MESH:P", "MESH:A", "ann"));
            QFAIL("a decision was taken without a server");
        } catch (const StoreDisconnected& e) {
            QVERIFY2(QString::fromUtf8(e.what()).contains(QStringLiteral("the connection to the server is lost")),
                     e.what());
        }
        {
            auto bob = ProjectStore::open(as("bob"));
            bob.record(decisionOn("live", 20, "MESH:P", "MESH:B", "bob"));
            QVERIFY(bob.undo());
        }
        const LiveChanges missed = ann.reconnect(before.revision);
        QVERIFY(ann.connected());
        // What happened while Ann was away: Bob's decision, once, in its present state.
        QCOMPARE(missed.decisions.size(), std::size_t{1});
        QCOMPARE(missed.decisions[0].mention, mentionOf("live", 20));
        QCOMPARE(missed.decisions[0].state, DecisionState::Undone);
        QVERIFY(ann.currentDecision(mentionOf("live", 10)) == std::nullopt);  // nothing queued
        // LISTEN is back too.
        auto bob = ProjectStore::open(as("bob"));
        bob.record(decisionOn("live", 30, "MESH:P", "MESH:B", "bob"));
        bool notified = false;
        for (int i = 0; i < 50 && !notified; ++i, std::this_thread::sleep_for(20ms))
            notified = ann.takeChangeNotifications();
        QVERIFY(notified);
        // Bob's new decision, and his undone one, which it cut from his redo stack.
        const LiveChanges last = ann.changesSince(missed.revision);
        QCOMPARE(last.decisions.size(), std::size_t{2});
        QCOMPARE(last.decisions[0].state, DecisionState::Discarded);
        QCOMPARE(last.decisions[1].mention, mentionOf("live", 30));
    }
};

QTEST_GUILESS_MAIN(TestTeamWork)
#include "test_team_work.moc"
