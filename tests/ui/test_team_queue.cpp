// The review queue of a team project handed out through claims, on a PostgreSQL server that the
// suite starts itself (tests/common/postgres_server.h; skipped, saying why, where initdb is not
// installed): each window claims the next mention in queue order, skips the ones another holds
// (saying who until when), renews its claim and releases it on moving on; a decision makes it
// lasting. In blind mode a window shows its own decisions only, the overlap documents are
// marked, and decisions of others read before the switch to blind do not stay on show.
#include <QSignalSpy>
#include <QTemporaryDir>
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
#include "document_view.h"
#include "main_window.h"
#include "postgres_server.h"
#include "project/loaded_project.h"
#include "project/project_manifest.h"
#include "project/project_store.h"
#include "review_claims.h"
#include "review_queue_order.h"
#include "team_live_updates.h"

using namespace linkscope;
using namespace linkscope::ui;
namespace fs = std::filesystem;
using namespace std::chrono_literals;

namespace {

bool queued(const CurationSession& session, const project::MentionKey& key) {
    const auto queue = reviewQueueOf(session);
    return std::any_of(queue.begin(), queue.end(), [&key](const QueuedMention& entry) { return entry.key == key; });
}

}  // namespace

class TestTeamQueue : public QObject {
    Q_OBJECT
    test::PostgresServer server_;
    QTemporaryDir settings_;
    std::string owner_;
    std::string database_;
    std::shared_ptr<const LoadedProject> project_;

    std::string as(const std::string& login) const { return server_.uriOf(database_, login); }

    void openAs(CurationSession& session, const std::string& login) {
        QCOMPARE(session.open(project_, QString::fromStdString(as(login))), QString());
        session.live()->setRetryPauses(100ms, 400ms);
        QTRY_VERIFY2_WITH_TIMEOUT(session.live()->state() == TeamLiveUpdates::State::Live,
                                  qPrintable(session.live()->detail()), 10000);
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
        for (project::Claim& claim : project::ProjectStore::open(owner_).claims())
            if (claim.login == login && claim.mention == key) return claim;
        return std::nullopt;
    }

    void setMode(const project::TeamModeSettings& settings) {
        auto owner = project::ProjectStore::open(owner_);
        owner.setTeamMode(settings);
    }

private Q_SLOTS:
    void initTestCase() {
        QVERIFY(settings_.isValid());
        QCoreApplication::setOrganizationName(QStringLiteral("LinkscopeTests"));
        qputenv("XDG_CONFIG_HOME", settings_.path().toUtf8());
        qputenv("XDG_DATA_HOME", settings_.path().toUtf8());
        if (!server_.start()) {
            if (!server_.skipReason().isEmpty()) QSKIP(qPrintable(server_.skipReason()));
            QFAIL(qPrintable(server_.why()));
        }
        owner_ = server_.newDatabase();
        QVERIFY2(!owner_.empty(), qPrintable(server_.why()));
        database_ = test::PostgresServer::databaseOf(owner_);
        const fs::path demo = fs::path(LINKSCOPE_SOURCE_DIR) / "resources" / "demo";
        const ProjectManifest manifest = readProjectManifest(demo / "demo-project.json");
        project_ = std::make_shared<const LoadedProject>(loadProject(manifest));
        auto store = project::ProjectStore::create(owner_, manifest);
        QVERIFY2(server_.sql("postgres",
                             QStringLiteral("CREATE ROLE ann LOGIN; CREATE ROLE bob LOGIN; CREATE ROLE rita LOGIN")),
                 qPrintable(server_.why()));
        store.grant("ann", project::TeamRole::Curator);
        store.grant("bob", project::TeamRole::Curator);
        store.grant("rita", project::TeamRole::Reviewer);
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
        const auto first = ann.claims()->claimNext(queue);
        QVERIFY2(first.has_value(), qPrintable(ann.claims()->lastError()));
        QCOMPARE(*first, queue.front().key);
        QCOMPARE(ann.claims()->held(), first);

        bob.claims()->renew();  // reads the others' claims, as its timer does
        QVERIFY(bob.claims()->takenByOthers(*first));
        QVERIFY(!queued(bob, *first));
        const QString note = bob.claims()->claimNote(*first);
        QVERIFY2(note.startsWith(QStringLiteral("claimed by ann until ")), qPrintable(note));
        const auto second = bob.claims()->claimNext(reviewQueueOf(bob));
        QVERIFY(second.has_value());
        QVERIFY(*second != *first);
        QVERIFY(
            bob.claims()->documentNote(first->split, first->document).contains(QStringLiteral("claimed by other")) ||
            first->document == second->document);

        // Renewal while Ann works on it: the expiry moves on.
        const auto claimed = claimOf("ann", *first);
        QVERIFY(claimed.has_value());
        QTest::qWait(1100);
        ann.claims()->renew();
        QVERIFY(claimOf("ann", *first)->expires > claimed->expires);

        // Ann moves to another mention: her claim is released, Bob may take it.
        ann.claims()->moveTo(*second);
        QVERIFY(!ann.claims()->held().has_value());
        QVERIFY(!claimOf("ann", *first).has_value());
        bob.claims()->renew();
        QVERIFY(!bob.claims()->takenByOthers(*first));
        QVERIFY(queued(bob, *first));

        // Ann claims it again (Bob holds the second one: she gets the first) and decides it.
        const auto again = ann.claims()->claimNext(reviewQueueOf(ann));
        QCOMPARE(again, first);
        const Mention* mention = mentionOf(*first);
        QVERIFY(mention && !mention->ids.ids.empty());
        QVERIFY(ann.decisions()->decide(*first, *mention, project::DecisionKind::Correct, mention->ids.ids.front()));
        QVERIFY(!ann.claims()->held().has_value());
        QCOMPARE(claimOf("ann", *first)->expires, std::string("infinity"));
        bob.claims()->renew();
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
        QCOMPARE(bob.claims()->claimNext({{*otherKey, 1.0}}), otherKey);
        ann->claims()->renew();
        QTRY_VERIFY_WITH_TIMEOUT(view->spans().at(other).tooltip.contains(QStringLiteral("claimed by bob until")),
                                 2000);

        // Ann moves to another mention: her claim is released on the server.
        window.documentView()->selectMention(other);
        QVERIFY(!ann->claims()->held().has_value());
        QVERIFY(!claimOf("ann", *held).has_value());
        bob.close();

        // A reviewer claims nothing: the next mention is the first one no curator holds.
        CurationSession rita;
        openAs(rita, "rita");
        const auto queue = reviewQueueOf(rita);
        QCOMPARE(rita.claims()->claimNext(queue), std::optional(queue.front().key));
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
        bob.claims()->renew();
        ann.claims()->renew();
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

        QCOMPARE(ann.claims()->claimNext({{*overlapKey, 1.0}}), overlapKey);
        bob.claims()->renew();
        QVERIFY(!bob.claims()->takenByOthers(*overlapKey));
        QCOMPARE(bob.claims()->claimNext({{*overlapKey, 1.0}}), overlapKey);

        // Ann decides the overlap mention blind: Bob never sees it, and may still decide it.
        const Mention* mention = mentionOf(*overlapKey);
        QVERIFY(mention && !mention->ids.ids.empty());
        QVERIFY(
            ann.decisions()->decide(*overlapKey, *mention, project::DecisionKind::Correct, mention->ids.ids.front()));
        QTest::qWait(400);
        QVERIFY(!bob.decisions()->hasDecision(*overlapKey));
        QVERIFY(queued(bob, *overlapKey));

        // A mention of a single-curator document that Ann holds is out of Bob's queue.
        QCOMPARE(ann.claims()->claimNext({{*singleKey, 1.0}}), singleKey);
        bob.claims()->renew();
        QVERIFY(bob.claims()->takenByOthers(*singleKey));
        QVERIFY(!queued(bob, *singleKey));
        setMode({});
    }
};

QTEST_MAIN(TestTeamQueue)
#include "test_team_queue.moc"
