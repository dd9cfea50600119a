// The adjudication view on a team project on a PostgreSQL server that the suite starts itself
// (tests/common/postgres_server.h; skipped, saying why, where initdb is not installed): the
// curators' decisions are read from the server, the agreement follows new decisions as they
// arrive, an adjudicator's pick is stored on the server under their login, a curator's or a
// reviewer's pick is refused in plain words with the view left as it was, and in blind mode a
// curator's view holds their own decisions only while the agreement counts the overlap.
#include <QComboBox>
#include <QSignalSpy>
#include <QTableView>
#include <QtTest>

#include <string>
#include <vector>

#include "adjudication_dialog.h"
#include "corpus/corpus.h"
#include "curation_session.h"
#include "disagreement_model.h"
#include "project/project_store.h"
#include "team_project_fixture.h"

using namespace linkscope;
using namespace linkscope::ui;

class TestTeamAdjudication : public QObject, protected test::TeamProjectFixture {
    Q_OBJECT

    // A decision written by another client (another curator's window), straight to the server.
    void record(const std::string& login, const MentionRef& ref, const std::string& link, const std::string& seen) {
        auto store = project::ProjectStore::open(as(login));
        project::Decision decision;
        decision.mention = ref.key;
        decision.mentionText = ref.mention->text;
        decision.kind = project::DecisionKind::Correct;
        decision.previousLink = seen;
        decision.newLink = link;
        decision.curator = login;
        store.record(decision);
    }

    void setMode(project::TeamMode mode) {
        auto owner = project::ProjectStore::open(ownerAddress_);
        owner.setTeamMode({mode, 1.0, 7});  // every document is an overlap document
    }

    std::size_t storedDecisions() { return project::ProjectStore::open(ownerAddress_).decisionCount(); }

    static bool selectFirst(AdjudicationDialog& dialog) {
        if (dialog.model()->rowCount() == 0) return false;
        dialog.disagreementTable()->setCurrentIndex(dialog.model()->index(0, 0));
        return true;
    }

private Q_SLOTS:
    void initTestCase() {
        QVERIFY(useOwnSettingsFolder());
        if (!startServer()) return;
        loadDemoProject();
        QVERIFY2(createTeamProject({{"ann", project::TeamRole::Curator},
                                    {"bob", project::TeamRole::Curator},
                                    {"judy", project::TeamRole::Adjudicator},
                                    {"rita", project::TeamRole::Reviewer}}),
                 qPrintable(server_.why()));
        QVERIFY(mentions_.size() >= 6);
        // Shared mode: Ann and Bob agree on two mentions and disagree on a third (Bob saw Ann's).
        for (int i = 0; i < 2; ++i) {
            const std::string gold = mentions_[i].mention->ids.ids.front();
            record("ann", mentions_[i], gold, "");
            record("bob", mentions_[i], gold, gold);
        }
        record("ann", mentions_[2], mentions_[2].mention->ids.ids.front(), "");
        record("bob", mentions_[2], "MESH:D000001", mentions_[2].mention->ids.ids.front());
    }

    // The adjudicator reads both curators from the server; a decision that arrives afterwards
    // moves the figures without a hand on the dialog; a pick is stored on the server as an
    // adjudication in the adjudicator's login.
    void anAdjudicatorWorksOnTheLiveStore() {
        CurationSession judy;
        openLiveAs(judy, "judy");
        AdjudicationDialog dialog(&judy);
        dialog.show();
        QCOMPARE(dialog.curatorA()->currentText(), QStringLiteral("ann"));
        QCOMPARE(dialog.curatorB()->currentText(), QStringLiteral("bob"));
        QCOMPARE(dialog.report().overall.both, std::size_t{3});
        QCOMPARE(dialog.report().overall.agreed, std::size_t{2});
        QCOMPARE(dialog.model()->rowCount(), 1);
        QVERIFY2(dialog.summaryText().contains(QStringLiteral("Live from the team project, as judy (shared")),
                 qPrintable(dialog.summaryText()));

        // Another disagreement committed elsewhere reaches the open dialog through NOTIFY.
        record("ann", mentions_[3], mentions_[3].mention->ids.ids.front(), "");
        record("bob", mentions_[3], "MESH:D000002", mentions_[3].mention->ids.ids.front());
        QTRY_COMPARE_WITH_TIMEOUT(dialog.report().overall.both, std::size_t{4}, 5000);
        QTRY_COMPARE_WITH_TIMEOUT(dialog.model()->rowCount(), 2, 5000);

        QVERIFY(selectFirst(dialog));
        const project::MentionKey key = dialog.model()->row(0).disagreement.mention;
        QVERIFY2(dialog.takeA(), qPrintable(dialog.statusText()));
        const auto stored = project::ProjectStore::open(ownerAddress_).currentDecision(key);
        QVERIFY(stored.has_value());
        QCOMPARE(stored->login, std::string("judy"));
        QCOMPARE(stored->curator, std::string("judy (adjudicator)"));
        QCOMPARE(dialog.model()->openCount(), 1);
    }

    // A curator's pick and a reviewer's are refused in plain words; nothing is stored, and the
    // rows and figures stay as they were.
    void aCuratorsAndAReviewersPicksAreRefused() {
        for (const std::string login : {"ann", "rita"}) {
            CurationSession session;
            openLiveAs(session, login);
            AdjudicationDialog dialog(&session);
            dialog.show();
            QVERIFY2(selectFirst(dialog),
                     qPrintable(QString::fromStdString(login) + QStringLiteral(": ") + dialog.summaryText() +
                                QStringLiteral(" / ") + dialog.statusText()));
            const int rows = dialog.model()->rowCount();
            const int open = dialog.model()->openCount();
            const std::size_t before = storedDecisions();
            QVERIFY(!dialog.takeB());
            QVERIFY2(
                dialog.statusText().startsWith(QStringLiteral("Refused: your login ") + QString::fromStdString(login)),
                qPrintable(dialog.statusText()));
            QVERIFY(dialog.statusText().contains(QStringLiteral("Nothing was changed")));
            QCOMPARE(storedDecisions(), before);
            QCOMPARE(dialog.model()->rowCount(), rows);
            QCOMPARE(dialog.model()->openCount(), open);
        }
    }

    // Blind mode: a curator's dialog holds their own decisions only, read again from the server
    // (none of the other's is kept from before); the adjudicator's kappa counts the overlap.
    void blindModeShowsACuratorTheirOwnOnly() {
        CurationSession ann, judy;
        openLiveAs(ann, "ann");
        openLiveAs(judy, "judy");
        AdjudicationDialog annDialog(&ann);
        annDialog.show();
        QCOMPARE(annDialog.curatorA()->count(), 2);  // shared: Ann reads Bob's decisions
        setMode(project::TeamMode::Blind);
        ann.claims()->renew();  // the mode is read again (the renewal timer's work)
        QTRY_VERIFY_WITH_TIMEOUT(ann.claims()->blind(), 10000);
        QTRY_COMPARE_WITH_TIMEOUT(annDialog.curatorA()->count(), 1, 5000);
        QCOMPARE(annDialog.curatorA()->currentText(), QStringLiteral("ann"));
        QCOMPARE(annDialog.model()->rowCount(), 0);
        QVERIFY2(annDialog.summaryText().contains(QStringLiteral("The project is blind")),
                 qPrintable(annDialog.summaryText()));
        for (const auto& [key, decision] : ann.decisions()->decisionsInEffect())
            QCOMPARE(decision.login, std::string("ann"));

        // A blind decision of Bob's reaches the adjudicator, not Ann.
        record("bob", mentions_[4], "MESH:D000003", "");
        judy.claims()->renew();
        AdjudicationDialog judyDialog(&judy);
        judyDialog.show();
        QTRY_COMPARE_WITH_TIMEOUT(judy.decisions()->hasDecision(mentions_[4].key), true, 5000);
        QTRY_VERIFY2_WITH_TIMEOUT(judyDialog.summaryText().contains(QStringLiteral("overlap documents only")),
                                  qPrintable(judyDialog.summaryText()), 10000);
        QCOMPARE(judyDialog.report().overall.both, std::size_t{4});
        QVERIFY(judyDialog.report().overall.kappa.has_value());
        QTest::qWait(300);
        QVERIFY(!ann.decisions()->hasDecision(mentions_[4].key));
        QCOMPARE(annDialog.curatorA()->count(), 1);
        setMode(project::TeamMode::Shared);
    }
};

QTEST_MAIN(TestTeamAdjudication)
#include "test_team_adjudication.moc"
