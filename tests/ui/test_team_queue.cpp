// The review queue of a team project handed out through claims, on a PostgreSQL server that the
// suite starts itself (tests/common/postgres_server.h; skipped, saying why, where initdb is not
// installed): each window claims the next mention in queue order, skips the ones another holds
// (saying who until when), renews its claim and releases it on moving on; a decision makes it
// lasting. In blind mode a window shows its own decisions only, the overlap documents are
// marked, and decisions of others read before the switch to blind do not stay on show.
#include <QElapsedTimer>
#include <QProcess>
#include <QSignalSpy>
#include <QTimer>
#include <QtTest>

#include <algorithm>
#include <chrono>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "corpus/corpus.h"
#include "curation_session.h"
#include "decision_log.h"
#include "document_view.h"
#include "main_window.h"
#include "project/loaded_project.h"
#include "project/project_store.h"
#include "review_claims.h"
#include "review_claims_wait.h"
#include "review_queue_order.h"
#include "team_live_updates.h"
#include "team_project_fixture.h"

using namespace linkscope;
using namespace linkscope::ui;
using namespace std::chrono_literals;

class TestTeamQueue : public QObject, protected test::TeamProjectFixture {
    Q_OBJECT

    // A window on the team project as `login`: live, with every proposal known and claims on.
    void openAs(CurationSession& session, const std::string& login) {
        openLiveAs(session, login);
        if (QTest::currentTestFailed()) return;
        QTRY_VERIFY_WITH_TIMEOUT(session.rankers()->proposalsAvailable(), 15000);
        QVERIFY(session.claims()->active());
    }

    const Mention* mentionOf(const project::MentionKey& key) const {
        for (const SplitCorpus& split : project_->splits)
            if (split.split == key.split)
                for (const Document& document : split.corpus.documents())
                    if (document.pmid() == key.document)
                        for (const Mention& mention : document.mentions)
                            if (mention.start == key.start && mention.end == key.end) return &mention;
        return nullptr;
    }

    std::optional<project::Claim> claimOf(const std::string& login, const project::MentionKey& key) {
        for (project::Claim& claim : project::ProjectStore::open(ownerAddress_).claims())
            if (claim.login == login && claim.mention == key) return claim;
        return std::nullopt;
    }

    void setMode(const project::TeamModeSettings& settings) {
        auto owner = project::ProjectStore::open(ownerAddress_);
        owner.setTeamMode(settings);
    }

    // Another session (psql) takes `lockMode` on `table` for four seconds; returns once it holds it.
    void holdLock(QProcess& locker, const QString& table, const QString& lockMode, const QString& heldAs) {
        locker.setProcessChannelMode(QProcess::MergedChannels);
        locker.start(
            test::PostgresServer::binFolder() + QStringLiteral("/psql"),
            {QStringLiteral("-h"), server_.socketFolder(), QStringLiteral("-U"), QStringLiteral("postgres"),
             QStringLiteral("-d"), QString::fromStdString(database_), QStringLiteral("-c"),
             QStringLiteral("BEGIN; LOCK TABLE %1 IN %2 MODE; SELECT pg_sleep(4); COMMIT;").arg(table, lockMode)});
        QVERIFY(locker.waitForStarted());
        const QString lockHeld = QStringLiteral(
                                     "SELECT count(*) FROM pg_locks l JOIN pg_class c ON c.oid = l.relation WHERE "
                                     "c.relname = '%1' AND l.mode = '%2' AND l.granted")
                                     .arg(table, heldAs);
        QTRY_VERIFY_WITH_TIMEOUT(server_.sql(database_, lockHeld) && server_.output().trimmed() == QStringLiteral("1"),
                                 3000);
    }

private Q_SLOTS:
    void initTestCase() {
        QVERIFY(useOwnSettingsFolder(OwnFolders::ConfigAndData));
        if (!startServer()) return;
        loadDemoProject();
        QVERIFY2(createTeamProject({{"ann", project::TeamRole::Curator},
                                    {"bob", project::TeamRole::Curator},
                                    {"rita", project::TeamRole::Reviewer}}),
                 qPrintable(server_.why()));
    }

    // Shared mode: Ann claims the head of the queue; Bob's queue skips it and his next claim is
    // another mention, his tooltip naming Ann and the time; renewal moves the expiry; moving on
    // releases it; a decision makes it lasting, shown as decided.
    void claimsHandOutTheQueue() {
        CurationSession ann, bob;
        openAs(ann, "ann");
        openAs(bob, "bob");
        ann.claims()->setTimeToLive(30s);
        const std::vector<QueuedMention> queue = reviewQueueOf(ann);
        QVERIFY(queue.size() >= 3);
        const auto first = test::claimNextAndWait(*ann.claims(), queue);
        QVERIFY2(first.has_value(), qPrintable(ann.claims()->lastError()));
        QCOMPARE(*first, queue.front().key);
        QCOMPARE(ann.claims()->held(), first);

        QVERIFY(test::renewAndWait(*bob.claims()));  // reads the others' claims, as its timer does
        QVERIFY(bob.claims()->takenByOthers(*first));
        QVERIFY(!queued(bob, *first));
        const QString note = bob.claims()->claimNote(*first);
        QVERIFY2(note.startsWith(QStringLiteral("claimed by ann until ")), qPrintable(note));
        const auto second = test::claimNextAndWait(*bob.claims(), reviewQueueOf(bob));
        QVERIFY(second.has_value());
        QVERIFY(*second != *first);
        QVERIFY(
            bob.claims()->documentNote(first->split, first->document).contains(QStringLiteral("claimed by other")) ||
            first->document == second->document);

        // Renewal while Ann works on it: the expiry moves on.
        const auto claimed = claimOf("ann", *first);
        QVERIFY(claimed.has_value());
        QTest::qWait(1100);
        QVERIFY(test::renewAndWait(*ann.claims()));
        QVERIFY(claimOf("ann", *first)->expires > claimed->expires);

        // Ann moves to another mention: her claim is released, Bob may take it.
        ann.claims()->moveTo(*second);
        QVERIFY(!ann.claims()->held().has_value());
        QTRY_VERIFY_WITH_TIMEOUT(!claimOf("ann", *first).has_value(), 10000);
        QVERIFY(test::renewAndWait(*bob.claims()));
        QVERIFY(!bob.claims()->takenByOthers(*first));
        QVERIFY(queued(bob, *first));

        // Ann claims it again (Bob holds the second one: she gets the first) and decides it.
        const auto again = test::claimNextAndWait(*ann.claims(), reviewQueueOf(ann));
        QCOMPARE(again, first);
        const Mention* mention = mentionOf(*first);
        QVERIFY(mention && !mention->ids.ids.empty());
        QVERIFY(ann.decisions()->decide(*first, *mention, project::DecisionKind::Correct, mention->ids.ids.front()));
        QVERIFY(!ann.claims()->held().has_value());
        QCOMPARE(claimOf("ann", *first)->expires, std::string("infinity"));
        QVERIFY(test::renewAndWait(*bob.claims()));
        QCOMPARE(bob.claims()->claimNote(*first), QStringLiteral("decided by ann"));
        // Bob's claim is his until he moves on; closing the window releases it.
        bob.close();
        QVERIFY(!claimOf("bob", *second).has_value());
    }

    // In the window: F8 claims the mention it shows, the mention's tooltip names the curator who
    // holds another one, and selecting another mention releases the claim.
    void f8ClaimsInTheWindow() {
        MainWindow window;
        window.show();
        QSignalSpy loaded(&window, &MainWindow::projectLoaded);
        window.openProject(QString::fromStdString(as("ann")));
        QTRY_VERIFY_WITH_TIMEOUT(!loaded.isEmpty(), 15000);
        CurationSession* ann = window.session();
        QTRY_VERIFY_WITH_TIMEOUT(ann->live()->state() == TeamLiveUpdates::State::Live, 10000);
        QTRY_VERIFY_WITH_TIMEOUT(ann->rankers()->proposalsAvailable(), 15000);
        QVERIFY(ann->claims()->active());
        window.activateWindow();
        QVERIFY(QTest::qWaitForWindowActive(&window));
        window.documentView()->setFocus();

        QTest::keyClick(window.documentView(), Qt::Key_F8);
        QTRY_VERIFY2_WITH_TIMEOUT(ann->claims()->held().has_value(), qPrintable(ann->claims()->lastError()), 10000);
        const auto held = ann->claims()->held();
        QVERIFY2(held.has_value(), qPrintable(ann->claims()->lastError()));
        QCOMPARE(window.currentMentionKey(), held);
        QVERIFY(claimOf("ann", *held).has_value());

        // Bob claims another mention of the same document: Ann's tooltip on it names him.
        const DocumentView* view = window.documentView();
        int other = -1;
        std::optional<project::MentionKey> otherKey;
        const Mention* heldMention = mentionOf(*held);
        for (const SplitCorpus& split : project_->splits)
            for (const Document& document : split.corpus.documents())
                if (split.split == held->split && document.pmid() == held->document)
                    for (std::size_t i = 0; i < document.mentions.size(); ++i) {
                        const project::MentionKey key{split.split, document.pmid(), document.mentions[i].start,
                                                      document.mentions[i].end};
                        if (&document.mentions[i] != heldMention && other < 0 && !ann->decisions()->hasDecision(key)) {
                            other = static_cast<int>(i);
                            otherKey = key;
                        }
                    }
        QVERIFY(other >= 0);
        CurationSession bob;
        openAs(bob, "bob");
        QCOMPARE(test::claimNextAndWait(*bob.claims(), {{*otherKey, 1.0}}), otherKey);
        QVERIFY(test::renewAndWait(*ann->claims()));
        QTRY_VERIFY_WITH_TIMEOUT(view->spans().at(other).tooltip.contains(QStringLiteral("claimed by bob until")),
                                 2000);

        // Ann moves to another mention: her claim is released on the server.
        window.documentView()->selectMention(other);
        QVERIFY(!ann->claims()->held().has_value());
        QTRY_VERIFY_WITH_TIMEOUT(!claimOf("ann", *held).has_value(), 10000);
        bob.close();

        // A reviewer claims nothing: the next mention is the first one no curator holds.
        CurationSession rita;
        openAs(rita, "rita");
        const auto queue = reviewQueueOf(rita);
        QCOMPARE(test::claimNextAndWait(*rita.claims(), queue), std::optional(queue.front().key));
        QCOMPARE(rita.claims()->lastError(), QString());
        QVERIFY(!rita.claims()->held().has_value());
        QVERIFY(!claimOf("rita", queue.front().key).has_value());
    }

    // Blind mode: Bob's window shows his own decisions only, also those read before the switch
    // go; the overlap documents are marked and take two claims; the status says blind.
    void blindModeKeepsEachCuratorToTheirOwn() {
        CurationSession ann, bob;
        openAs(ann, "ann");
        openAs(bob, "bob");
        // Ann's decision of the shared test reached Bob's window.
        const auto decided = ann.decisions()->decisionsInEffect();
        QVERIFY(!decided.empty());
        const project::MentionKey annsKey = decided.begin()->first;
        QVERIFY(bob.decisions()->hasDecision(annsKey));

        const project::TeamModeSettings blind{project::TeamMode::Blind, 0.5, 7};
        setMode(blind);
        QVERIFY(test::renewAndWait(*bob.claims()));
        QVERIFY(test::renewAndWait(*ann.claims()));
        QVERIFY(bob.claims()->blind());
        QVERIFY2(bob.claims()->modeText().startsWith(QStringLiteral("blind")), qPrintable(bob.claims()->modeText()));
        QVERIFY(!bob.decisions()->hasDecision(annsKey));  // read back from the server: gone
        QVERIFY(ann.decisions()->hasDecision(annsKey));

        // An overlap document is marked, and its mention may be claimed by both.
        std::optional<project::MentionKey> overlapKey, singleKey;
        for (const QueuedMention& entry : reviewQueueOf(ann)) {
            const bool overlap = project::overlapDocument(blind, entry.key.document);
            if (overlap && !overlapKey) overlapKey = entry.key;
            if (!overlap && !singleKey) singleKey = entry.key;
        }
        QVERIFY(overlapKey && singleKey);
        QVERIFY(bob.claims()->overlapDocument(overlapKey->document));
        QVERIFY(
            bob.claims()->documentNote(overlapKey->split, overlapKey->document).startsWith(QStringLiteral("overlap")));
        QVERIFY(!bob.claims()->overlapDocument(singleKey->document));

        QCOMPARE(test::claimNextAndWait(*ann.claims(), {{*overlapKey, 1.0}}), overlapKey);
        QVERIFY(test::renewAndWait(*bob.claims()));
        QVERIFY(!bob.claims()->takenByOthers(*overlapKey));
        QCOMPARE(test::claimNextAndWait(*bob.claims(), {{*overlapKey, 1.0}}), overlapKey);

        // Ann decides the overlap mention blind: Bob never sees it, and may still decide it.
        const Mention* mention = mentionOf(*overlapKey);
        QVERIFY(mention && !mention->ids.ids.empty());
        QVERIFY(
            ann.decisions()->decide(*overlapKey, *mention, project::DecisionKind::Correct, mention->ids.ids.front()));
        QTest::qWait(400);
        QVERIFY(!bob.decisions()->hasDecision(*overlapKey));
        QVERIFY(queued(bob, *overlapKey));

        // A mention of a single-curator document that Ann holds is out of Bob's queue.
        QCOMPARE(test::claimNextAndWait(*ann.claims(), {{*singleKey, 1.0}}), singleKey);
        QVERIFY(test::renewAndWait(*bob.claims()));
        QVERIFY(bob.claims()->takenByOthers(*singleKey));
        QVERIFY(!queued(bob, *singleKey));
        setMode({});
    }

    // The claims' statements run off the GUI thread: while another session holds the lock that
    // every claim takes first, F8's claim waits on the server and the GUI's event loop goes on;
    // a second press meanwhile claims nothing more, and the one claim arrives once it is free.
    void aClaimWaitsOffTheGuiThread() {
        CurationSession ann;
        openAs(ann, "ann");
        QProcess locker;
        holdLock(locker, QStringLiteral("claims"), QStringLiteral("SHARE ROW EXCLUSIVE"),
                 QStringLiteral("ShareRowExclusiveLock"));
        if (QTest::currentTestFailed()) return;

        const std::vector<QueuedMention> queue = reviewQueueOf(ann);
        const auto firstFree = std::find_if(queue.begin(), queue.end(), [&ann](const QueuedMention& entry) {
            return !ann.claims()->takenByOthers(entry.key);
        });
        QVERIFY(firstFree != queue.end());
        int answers = 0;
        connect(ann.claims(), &ReviewClaims::nextAnswered, this, [&answers] { ++answers; });
        QElapsedTimer call;
        call.start();
        QVERIFY(ann.claims()->claimNext(queue));
        QVERIFY2(call.elapsed() < 2000, "the claim waited for the server on the GUI thread");
        QVERIFY(ann.claims()->claiming());
        QVERIFY(ann.claims()->claimNext(queue));  // F8 again while the claim is on its way
        QVERIFY(locker.state() == QProcess::Running);
        QTRY_VERIFY_WITH_TIMEOUT(answers > 0, 15000);
        QVERIFY2(ann.claims()->held().has_value(), qPrintable(ann.claims()->lastError()));
        QCOMPARE(*ann.claims()->held(), firstFree->key);
        QTRY_COMPARE_WITH_TIMEOUT(locker.state(), QProcess::NotRunning, 10000);
        QVERIFY2(locker.exitStatus() == QProcess::NormalExit && locker.exitCode() == 0, locker.readAll().constData());
        QCOMPARE(answers, 1);
        int held = 0;
        for (const project::Claim& claim : project::ProjectStore::open(ownerAddress_).claims())
            held += claim.login == "ann" && claim.expires != "infinity";
        QCOMPARE(held, 1);
    }

    // The read-back of a switch to blind mode runs off the GUI thread too: while another session
    // holds a lock that keeps every read of the decisions waiting, the renewal that finds the
    // switch is taken at once and the event loop goes on, Ann's decision still on show in Bob's
    // window; once the lock is gone it goes, with one decisionsReloaded.
    void theBlindReadBackWaitsOffTheGuiThread() {
        CurationSession ann, bob;
        openAs(ann, "ann");
        openAs(bob, "bob");
        QVERIFY(!bob.claims()->blind());
        // A decision of Ann's, made now in shared mode, reaches Bob's window.
        const std::vector<QueuedMention> queue = reviewQueueOf(ann);
        QVERIFY(!queue.empty());
        const project::MentionKey annsKey = queue.front().key;
        const Mention* mention = mentionOf(annsKey);
        QVERIFY(mention && !mention->ids.ids.empty());
        QVERIFY(ann.decisions()->decide(annsKey, *mention, project::DecisionKind::Correct, mention->ids.ids.front()));
        QTRY_VERIFY_WITH_TIMEOUT(bob.decisions()->hasDecision(annsKey), 10000);

        // The switch is made once the lock is held: no renewal may find it before.
        QProcess locker;
        holdLock(locker, QStringLiteral("decisions"), QStringLiteral("ACCESS EXCLUSIVE"),
                 QStringLiteral("AccessExclusiveLock"));
        if (QTest::currentTestFailed()) return;
        setMode({project::TeamMode::Blind, 0.5, 7});
        QSignalSpy reloaded(bob.decisions(), &DecisionLog::decisionsReloaded);
        // The GUI thread's event loop, timed by a timer's gaps while the lock is held.
        QElapsedTimer sinceTick;
        qint64 longestGap = 0;
        QTimer ticks;
        ticks.setInterval(20);
        connect(&ticks, &QTimer::timeout, this, [&] { longestGap = std::max(longestGap, sinceTick.restart()); });
        sinceTick.start();
        ticks.start();
        bob.claims()->renew();
        QTRY_VERIFY_WITH_TIMEOUT(bob.claims()->blind(), 3000);
        QTest::qWait(500);
        QVERIFY2(longestGap < 2000, "the read-back waited for the server on the GUI thread");
        QVERIFY2(locker.state() == QProcess::Running, "the lock was gone before the check: the test proves nothing");
        QVERIFY(bob.claims()->busy());  // the read-back is on its way
        QVERIFY(bob.decisions()->hasDecision(annsKey));
        QCOMPARE(reloaded.count(), 0);

        QTRY_COMPARE_WITH_TIMEOUT(locker.state(), QProcess::NotRunning, 10000);
        QVERIFY2(locker.exitStatus() == QProcess::NormalExit && locker.exitCode() == 0, locker.readAll().constData());
        QTRY_VERIFY_WITH_TIMEOUT(!bob.claims()->busy(), 10000);
        ticks.stop();
        QVERIFY2(bob.claims()->lastError().isEmpty(), qPrintable(bob.claims()->lastError()));
        QVERIFY(!bob.decisions()->hasDecision(annsKey));
        QCOMPARE(reloaded.count(), 1);
        for (const auto& [key, decision] : bob.decisions()->decisionsInEffect())
            QCOMPARE(decision.login, std::string("bob"));
        QVERIFY(ann.decisions()->hasDecision(annsKey));
        setMode({});
    }
};

QTEST_MAIN(TestTeamQueue)
#include "test_team_queue.moc"
