// A team project in the window: two curation sessions (two curators' windows) on one PostgreSQL
// server that the suite starts itself (tests/common/postgres_server.h; skipped, saying why, where
// initdb is not installed). A decision committed by one reaches the other through NOTIFY and
// moves its review queue, naming who decided it; an action the server refuses leaves the view
// and the undo stack as they were; a server killed and restarted turns the windows read-only at
// once, and they reconnect by themselves and catch up on what was decided meanwhile.
#include <QDialogButtonBox>
#include <QElapsedTimer>
#include <QPushButton>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QUndoStack>
#include <QtTest>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "corpus/corpus.h"
#include "curation_session.h"
#include "decision_command.h"
#include "project/project_store.h"
#include "team_connection_dialog.h"
#include "team_live_updates.h"
#include "team_project_fixture.h"
#include "team_status_label.h"
#ifdef LINKSCOPE_HAVE_TORCH
#include <cctype>

#include "curation/augmented_linker.h"
#include "tiny_run.h"
#endif

using namespace linkscope;
using namespace linkscope::ui;
namespace fs = std::filesystem;
using namespace std::chrono_literals;

class TestTeamLive : public QObject, protected test::TeamProjectFixture {
    Q_OBJECT

    // A curator's window on the team project, live and with every proposal known.
    void openAs(CurationSession& session, const std::string& login) {
        openLiveAs(session, login, 20s);
        if (QTest::currentTestFailed()) return;
        QVERIFY(session.decisions()->onServer());
        QCOMPARE(session.decisions()->login(), QString::fromStdString(login));
        QTRY_VERIFY_WITH_TIMEOUT(session.rankers()->proposalsAvailable(), 30000);
    }

private Q_SLOTS:
    void initTestCase() {
        QVERIFY(useOwnSettingsFolder());
        if (!startServer()) return;
        loadDemoProject();
        QVERIFY2(createTeamProject({{"ann", project::TeamRole::Curator}, {"bob", project::TeamRole::Curator}}),
                 qPrintable(server_.why()));
        QVERIFY(mentions_.size() >= 8);
    }

    // File > Open Team Project…: the address from its parts, and never a password in it nor
    // among the recent addresses kept in the settings.
    void theDialogNeverTakesAPassword() {
        QCOMPARE(
            TeamConnectionDialog::composeAddress(QStringLiteral("db.example.org"), 5433, QStringLiteral("ncbi_team"),
                                                 QStringLiteral("ann"), QStringLiteral("verify-full")),
            QStringLiteral("postgresql://ann@db.example.org:5433/ncbi_team?sslmode=verify-full"));
        QCOMPARE(TeamConnectionDialog::composeAddress(QStringLiteral("/tmp/pg"), 0, QStringLiteral("t"), QString(),
                                                      QStringLiteral("prefer")),
                 QStringLiteral("postgresql:///t?host=%2Ftmp%2Fpg"));
        const QString good = QString::fromStdString(as("ann"));
        QCOMPARE(TeamConnectionDialog::addressProblem(good), QString());
        for (const QString& withPassword : {QStringLiteral("postgresql://ann:secret@db.example.org/t"),
                                            QStringLiteral("postgresql://ann@db.example.org/t?password=secret")}) {
            QVERIFY(TeamConnectionDialog::addressProblem(withPassword).contains(QStringLiteral("password")));
            TeamConnectionDialog::rememberAddress(withPassword);
        }
        TeamConnectionDialog::rememberAddress(good);
        QCOMPARE(TeamConnectionDialog::recentAddresses(), QStringList{good});
        TeamConnectionDialog dialog;
        dialog.setAddress(QStringLiteral("postgresql://ann:secret@db.example.org/t"));
        QVERIFY(!dialog.findChild<QDialogButtonBox*>()->button(QDialogButtonBox::Open)->isEnabled());
        dialog.setAddress(good);
        QVERIFY(dialog.findChild<QDialogButtonBox*>()->button(QDialogButtonBox::Open)->isEnabled());
    }

    // Ann's decision reaches Bob's window through NOTIFY, without Bob asking: it is in effect
    // there, names Ann's login, leaves Bob's review queue, and is not on Bob's undo stack.
    void aDecisionReachesTheOtherWindowLive() {
        CurationSession ann, bob;
        openAs(ann, "ann");
        openAs(bob, "bob");
        const MentionRef& ref = mentions_.at(0);
        QVERIFY(queued(bob, ref.key));
        QSignalSpy arrived(bob.decisions(), &DecisionLog::decisionInEffectReplaced);
        QSignalSpy taken(bob.live(), &TeamLiveUpdates::remoteDecisionsTaken);

        QElapsedTimer clock;
        clock.start();
        QVERIFY(decideAccept(ann, ref));
        QTRY_VERIFY_WITH_TIMEOUT(bob.decisions()->hasDecision(ref.key), 5000);
        qInfo("Ann's decision was in Bob's window %lld ms after her commit", static_cast<long long>(clock.elapsed()));
        QCOMPARE(taken.size(), 1);
        QCOMPARE(arrived.size(), 1);

        const auto decision = bob.decisions()->currentDecision(ref.key);
        QCOMPARE(decision->login, std::string("ann"));
        QCOMPARE(decidedBy(*decision), QStringLiteral("ann"));
        QVERIFY(!queued(bob, ref.key));
        QCOMPARE(bob.decisions()->undoStack()->count(), 0);  // each curator undoes their own
        QCOMPARE(ann.decisions()->undoStack()->count(), 1);
        // Bob's undo has nothing of his own to take back: Ann's decision stays.
        QVERIFY(!bob.decisions()->undo());
        QVERIFY(bob.decisions()->hasDecision(ref.key));
    }

    // The server refuses Bob's undo (his role was taken away meanwhile): he is told so in plain
    // words, and his window is as it was, undo stack included; Ann's window never saw a change.
    void aRefusedUndoLeavesTheViewAsItWas() {
        CurationSession ann, bob;
        openAs(ann, "ann");
        openAs(bob, "bob");
        const MentionRef& ref = mentions_.at(1);
        QVERIFY(decideAccept(bob, ref));
        QTRY_VERIFY_WITH_TIMEOUT(ann.decisions()->hasDecision(ref.key), 5000);
        const auto before = bob.decisions()->currentDecision(ref.key);
        const int index = bob.decisions()->undoStack()->index();

        const QString curators = QString::fromStdString(database_) + QStringLiteral("_curator");
        QVERIFY2(server_.sql("postgres", QStringLiteral("REVOKE %1 FROM bob").arg(curators)),
                 qPrintable(server_.why()));
        QSignalSpy errors(bob.decisions(), &DecisionLog::errorOccurred);
        QSignalSpy changed(bob.decisions(), &DecisionLog::decisionInEffectReplaced);
        QVERIFY(!bob.decisions()->undo());
        QVERIFY2(server_.sql("postgres", QStringLiteral("GRANT %1 TO bob").arg(curators)), qPrintable(server_.why()));

        QCOMPARE(errors.size(), 1);
        const QString message = errors.first().first().toString();
        QVERIFY2(message.startsWith(QStringLiteral("Undo refused")), qPrintable(message));
        QVERIFY2(message.contains(QStringLiteral("refused")), qPrintable(message));
        QCOMPARE(changed.size(), 0);
        QCOMPARE(bob.decisions()->undoStack()->index(), index);
        QVERIFY(bob.decisions()->undoStack()->canUndo());
        QCOMPARE(bob.decisions()->currentDecision(ref.key)->id, before->id);
        QTest::qWait(200);
        QCOMPARE(ann.decisions()->currentDecision(ref.key)->id, before->id);
        // Once allowed again, the same undo goes through.
        QVERIFY(bob.decisions()->undo());
        QVERIFY(!bob.decisions()->hasDecision(ref.key));
        QTRY_VERIFY_WITH_TIMEOUT(!ann.decisions()->hasDecision(ref.key), 5000);
    }

    // Two decisions on one mention race (Bob's window, not listening, has not seen Ann's): the
    // server refuses Bob's, his undo stack is as it was, and his window shows Ann's decision.
    void aRaceIsRefusedAndShowsTheOtherDecision() {
        CurationSession ann, bob;
        openAs(ann, "ann");
        openAs(bob, "bob");
        bob.live()->stop();
        const MentionRef& ref = mentions_.at(4);
        QVERIFY(ann.decisions()->decide(ref.key, *ref.mention, project::DecisionKind::Nil));
        const int index = bob.decisions()->undoStack()->index();
        QSignalSpy errors(bob.decisions(), &DecisionLog::errorOccurred);
        QVERIFY(!decideAccept(bob, ref));
        QCOMPARE(errors.size(), 1);
        const QString message = errors.first().first().toString();
        QVERIFY2(message.contains(QStringLiteral("ann")), qPrintable(message));
        QCOMPARE(bob.decisions()->undoStack()->index(), index);
        const auto shown = bob.decisions()->currentDecision(ref.key);
        QVERIFY(shown.has_value());
        QCOMPARE(shown->login, std::string("ann"));
        QCOMPARE(shown->kind, project::DecisionKind::Nil);
    }

    // The server killed and restarted: Bob's window says so at once and turns read-only (a
    // decision is refused, not queued), reconnects by itself, and catches up on the decision Ann
    // made while it was away; then it is writable again.
    void aLostServerTurnsTheWindowReadOnlyUntilItIsBack() {
        CurationSession bob;
        openAs(bob, "bob");
        TeamStatusLabel status(bob.live(), bob.decisions());
        QVERIFY(status.describe().contains(QStringLiteral("bob")));
        QSignalSpy readOnly(bob.decisions(), &DecisionLog::readOnlyChanged);
        const int commands = bob.decisions()->undoStack()->count();

        QVERIFY2(server_.killAndRestart(), qPrintable(server_.why()));
        const MentionRef& missed = mentions_.at(2);
        {  // Ann decides while Bob's window is away (its event loop has not run since the kill).
            auto ann = project::ProjectStore::open(as("ann"));
            project::Decision decision;
            decision.mention = missed.key;
            decision.mentionText = missed.mention->text;
            decision.kind = project::DecisionKind::Correct;
            decision.newLink = missed.mention->ids.ids.front();
            decision.previousLink = "";
            decision.curator = "ann";
            ann.record(decision);
        }

        QTRY_VERIFY_WITH_TIMEOUT(!readOnly.isEmpty(), 2000);
        QCOMPARE(readOnly.first().first().toBool(), true);
        QVERIFY(status.describe().contains(QStringLiteral("read-only")) ||
                bob.live()->state() == TeamLiveUpdates::State::Live);
        if (bob.decisions()->isReadOnly()) {
            QSignalSpy errors(bob.decisions(), &DecisionLog::errorOccurred);
            QVERIFY(!decideAccept(bob, mentions_.at(3)));  // refused at once, never queued
            QCOMPARE(errors.size(), 1);
            QVERIFY2(errors.first().first().toString().contains(QStringLiteral("connection to the server is lost")),
                     qPrintable(errors.first().first().toString()));
            QCOMPARE(bob.decisions()->undoStack()->count(), commands);
        }

        QTRY_VERIFY_WITH_TIMEOUT(bob.live()->state() == TeamLiveUpdates::State::Live, 10000);
        QVERIFY(!bob.decisions()->isReadOnly());
        QVERIFY(bob.decisions()->hasDecision(missed.key));  // the catch-up
        QCOMPARE(bob.decisions()->currentDecision(missed.key)->login, std::string("ann"));
        QVERIFY(!bob.decisions()->hasDecision(mentions_.at(3).key));
        QVERIFY(status.describe().contains(QStringLiteral("live")));
        QVERIFY(decideAccept(bob, mentions_.at(3)));  // writable again, on the new connection
        QCOMPARE(project::ProjectStore::open(as("bob")).currentDecision(mentions_.at(3).key)->login,
                 std::string("bob"));
    }

    // With a trained run linked in Bob's window, Ann's correction enters his datastore as a key
    // and the mentions it reaches (the other "stroke" mentions: the same text, the same vector)
    // are ranked again there, as his own decision would have them.
    void aRemoteDecisionFeedsTheRunsDatastore() {
#ifndef LINKSCOPE_HAVE_TORCH
        QSKIP("this build has no LibTorch: run linking needs it");
#else
        QTemporaryDir runs;
        const fs::path demo = fs::path(LINKSCOPE_SOURCE_DIR) / "resources" / "demo";
        const fs::path run = fs::path(runs.path().toStdString()) / "tiny-triplet";
        test::writeTinyTripletRun(run, {demo / "demo-kb.txt", demo / "demo-train.txt", demo / "demo-test.txt"});
        CurationSession ann, bob;
        openAs(ann, "ann");
        openAs(bob, "bob");
        QSignalSpy linked(bob.rankers(), &RankerHost::runLinked);
        bob.rankers()->linkWithRun(QString::fromStdString(run.string()), curation::LinkMode::Knn);
        QVERIFY(linked.wait(60000));
        const std::size_t keys = bob.rankers()->runRanker()->curatorKeys();

        std::vector<MentionRef> strokes;
        for (const MentionRef& ref : mentions_) {
            std::string text = ref.mention->text;
            std::transform(text.begin(), text.end(), text.begin(),
                           [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
            if (text == "stroke" && !bob.decisions()->hasDecision(ref.key)) strokes.push_back(ref);
        }
        QVERIFY(strokes.size() >= 2);
        std::vector<project::MentionKey> reranked;
        connect(bob.rankers(), &RankerHost::rankingsChanged, this,
                [&reranked](const std::vector<project::MentionKey>& reached, int) {
                    reranked.insert(reranked.end(), reached.begin(), reached.end());
                });
        QVERIFY(decideAccept(ann, strokes.front()));
        QTRY_COMPARE_WITH_TIMEOUT(bob.rankers()->runRanker()->curatorKeys(), keys + 1, 5000);
        QTRY_VERIFY_WITH_TIMEOUT(!bob.rankers()->rerankPending(), 5000);
        for (std::size_t i = 1; i < strokes.size(); ++i)
            QVERIFY(std::find(reranked.begin(), reranked.end(), strokes[i].key) != reranked.end());
        bob.rankers()->linkWithSparse();
#endif
    }
};

QTEST_MAIN(TestTeamLive)
#include "test_team_live.moc"
