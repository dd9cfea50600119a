// Opening a team project without freezing the window, and what the window then says about it.
// The server is one of the suite's own (tests/common/postgres_server.h; skipped, saying why,
// where initdb is not installed), except for the unreachable one: a Unix socket that a test
// listens on and never answers, so that libpq waits until its connect_timeout.
// - File > Open Team Project… connects and reads the decisions on the loader's worker: the event
//   loop turns all through the attempt, and a server that cannot be reached ends in libpq's words.
// - The status bar names the login's role and the project's mode; a reviewer's window is
//   read-only, saying why.
// - A connection lost during the COMMIT of a decision: the window says the server may or may not
//   have stored it, shows nothing of it until the catch-up, then says which it was.
#include <QElapsedTimer>
#include <QProcess>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTimer>
#include <QUndoStack>
#include <QtTest>

#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstring>
#include <functional>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "corpus/corpus.h"
#include "curation_session.h"
#include "project/project_store.h"
#include "project_loader.h"
#include "review_claims.h"
#include "team_live_updates.h"
#include "team_project_fixture.h"
#include "team_project_open.h"
#include "team_status_label.h"

using namespace linkscope;
using namespace linkscope::ui;
using namespace std::chrono_literals;

namespace {

// Counts the turns of the event loop (a zero timer fires once a turn) while it lives.
class TurnCounter {
public:
    TurnCounter() {
        QObject::connect(&timer_, &QTimer::timeout, [this] { ++turns_; });
        timer_.start(0);
    }
    int turns() const { return turns_; }

private:
    QTimer timer_;
    int turns_ = 0;
};

// A Unix socket that PostgreSQL's name for a server in `folder` listens on and never answers:
// libpq's connection goes through and then waits for the server's first word.
class SilentServer {
public:
    explicit SilentServer(const QString& folder) {
        fd_ = ::socket(AF_UNIX, SOCK_STREAM, 0);
        sockaddr_un address{};
        address.sun_family = AF_UNIX;
        const std::string path = (folder + QStringLiteral("/.s.PGSQL.5432")).toStdString();
        std::strncpy(address.sun_path, path.c_str(), sizeof address.sun_path - 1);
        listening_ = fd_ >= 0 && ::bind(fd_, reinterpret_cast<const sockaddr*>(&address), sizeof address) == 0 &&
                     ::listen(fd_, 8) == 0;
    }
    ~SilentServer() {
        if (fd_ >= 0) ::close(fd_);
    }
    bool listening() const { return listening_; }

private:
    int fd_ = -1;
    bool listening_ = false;
};

}  // namespace

class TestTeamConnect : public QObject, protected test::TeamProjectFixture {
    Q_OBJECT

    // psql as the superuser, from any thread (the server object's own helper is not for threads).
    QString psql(const QString& statements) const {
        QString program = test::PostgresServer::binFolder() + QStringLiteral("/psql");
        QStringList arguments{QStringLiteral("-h"),       server_.socketFolder(), QStringLiteral("-U"),
                              QStringLiteral("postgres"), QStringLiteral("-d"),   QString::fromStdString(database_),
                              QStringLiteral("-At"),      QStringLiteral("-c"),   statements};
        if (::geteuid() == 0) {
            arguments = QStringList{QStringLiteral("-u"), QStringLiteral("postgres"), QStringLiteral("--"), program} +
                        arguments;
            program = QStringLiteral("runuser");
        }
        QProcess process;
        process.setProcessChannelMode(QProcess::MergedChannels);
        process.start(program, arguments);
        process.waitForFinished(10000);
        return QString::fromUtf8(process.readAll()).trimmed();
    }

    // Runs `action` (a write of ann's window) while the server holds every COMMIT after writing it
    // (a synchronous standby that never answers) and another connection terminates the backend
    // that waits there: the write is stored, and its client never hears so. Returns the action's
    // result; `terminated` counts the backends cut short.
    bool withCommitsCutShort(const std::function<bool()>& action, int& terminated) {
        if (psql(QStringLiteral("ALTER SYSTEM SET synchronous_standby_names = 'linkscope_nobody'")) !=
                QStringLiteral("ALTER SYSTEM") ||
            psql(QStringLiteral("SELECT pg_reload_conf()")) != QStringLiteral("t"))
            return false;
        QTest::qWait(200);
        std::atomic<bool> done{false};
        std::atomic<int> cut{0};
        std::thread terminator([&] {
            while (!done.load()) {
                cut += psql(QStringLiteral("SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity "
                                           "WHERE wait_event = 'SyncRep' AND usename = 'ann'"))
                           .toInt();
                std::this_thread::sleep_for(50ms);
            }
        });
        const bool result = action();  // waits in the COMMIT until it is cut short
        done = true;
        terminator.join();
        psql(QStringLiteral("ALTER SYSTEM RESET synchronous_standby_names"));
        psql(QStringLiteral("SELECT pg_reload_conf()"));
        terminated = cut.load();
        return result;
    }

private Q_SLOTS:
    void initTestCase() {
        QVERIFY(useOwnSettingsFolder());
        loadDemoProject();
        QVERIFY(mentions_.size() >= 8);
        if (!startServer(WithoutPostgres::SkipEachServerTest)) return;
        QVERIFY2(createTeamProject({{"ann", project::TeamRole::Curator},
                                    {"rita", project::TeamRole::Reviewer},
                                    {"ada", project::TeamRole::Adjudicator}}),
                 qPrintable(server_.why()));
    }

    void init() {
        const QString test = QString::fromLatin1(QTest::currentTestFunction());
        if (!server_.running() && test != QLatin1String("anUnreachableServerKeepsTheWindowTurning") &&
            test != QLatin1String("theAttemptIsBounded") && test != QLatin1String("cancellingTheAttemptAnswersAtOnce"))
            QSKIP(qPrintable(server_.skipReason().isEmpty() ? server_.why() : server_.skipReason()));
    }

    // A server that takes the connection and never answers: the attempt lasts until libpq's
    // connect_timeout, the event loop turns all along, and the end is libpq's message.
    void anUnreachableServerKeepsTheWindowTurning() {
        QTemporaryDir folder(QStringLiteral("/tmp/ls-silent-XXXXXX"));
        QVERIFY(folder.isValid());
        SilentServer silent(folder.path());
        QVERIFY(silent.listening());
        ProjectLoader loader;
        QSignalSpy failed(&loader, &ProjectLoader::failed);
        QSignalSpy progress(&loader, &ProjectLoader::progress);
        QElapsedTimer clock;
        clock.start();
        TurnCounter counter;
        loader.load(QStringLiteral("postgresql:///nowhere?host=%1&connect_timeout=2").arg(folder.path()));
        QVERIFY(failed.wait(15000));
        const qint64 took = clock.elapsed();
        // libpq waited (its clock counts whole seconds: between 1 and 2 s), on the worker.
        QVERIFY2(took >= 800, qPrintable(QString::number(took)));
        // A turn at least every 50 ms of the attempt.
        QVERIFY2(counter.turns() >= took / 50,
                 qPrintable(QStringLiteral("%1 turns in %2 ms").arg(counter.turns()).arg(took)));
        QVERIFY(!progress.isEmpty());
        QVERIFY2(progress.last().first().toString().startsWith(QStringLiteral("Connecting to the server's socket in")),
                 qPrintable(progress.last().first().toString()));
        const QString message = failed.first().first().toString();
        qInfo("%s", qPrintable(message));
        QVERIFY2(message.startsWith(QStringLiteral("Could not connect to the server's socket in")),
                 qPrintable(message));
        QVERIFY2(message.contains(QStringLiteral("timeout expired")), qPrintable(message));  // libpq's words
        QVERIFY(loader.takeOpenedTeamStore().store == nullptr);

        // No server at all behind the folder: at once, again in libpq's words.
        QTemporaryDir empty(QStringLiteral("/tmp/ls-none-XXXXXX"));
        QSignalSpy failedAgain(&loader, &ProjectLoader::failed);
        loader.load(QStringLiteral("postgresql:///nowhere?host=%1").arg(empty.path()));
        QVERIFY(failedAgain.wait(15000));
        QVERIFY2(failedAgain.first().first().toString().contains(QStringLiteral("No such file or directory")),
                 qPrintable(failedAgain.first().first().toString()));
    }

    // Cancel while libpq waits: the load says it is cancelled at once, and the attempt's end
    // (by its connect_timeout) is dropped, neither a failure nor a second cancellation.
    void cancellingTheAttemptAnswersAtOnce() {
        QTemporaryDir folder(QStringLiteral("/tmp/ls-silent-XXXXXX"));
        QVERIFY(folder.isValid());
        SilentServer silent(folder.path());
        QVERIFY(silent.listening());
        ProjectLoader loader;
        QSignalSpy failed(&loader, &ProjectLoader::failed);
        QSignalSpy cancelled(&loader, &ProjectLoader::cancelled);
        QSignalSpy progress(&loader, &ProjectLoader::progress);
        loader.load(QStringLiteral("postgresql:///nowhere?host=%1&connect_timeout=2").arg(folder.path()));
        QVERIFY(progress.wait(5000));  // "Connecting to …"
        QElapsedTimer clock;
        clock.start();
        loader.cancel();
        QCOMPARE(cancelled.size(), 1);
        QVERIFY(clock.elapsed() < 100);
        QTest::qWait(2500);  // the attempt ends meanwhile
        QCOMPARE(cancelled.size(), 1);
        QCOMPARE(failed.size(), 0);
        QVERIFY(loader.takeOpenedTeamStore().store == nullptr);
    }

    // The address a window connects with bounds the attempt: libpq's connect_timeout as given,
    // else a default one (nothing added where a service or PGCONNECT_TIMEOUT decides).
    void theAttemptIsBounded() {
        QCOMPARE(withConnectTimeout("postgresql://db.example.org/t?connect_timeout=3"),
                 std::string("postgresql://db.example.org/t?connect_timeout=3"));
        QCOMPARE(withConnectTimeout("postgresql://db.example.org/t"),
                 "postgresql://db.example.org/t?connect_timeout=" + std::to_string(kDefaultConnectTimeoutSeconds));
        QCOMPARE(withConnectTimeout("postgresql:///t?host=/run/pg"),
                 "postgresql:///t?host=/run/pg&connect_timeout=" + std::to_string(kDefaultConnectTimeoutSeconds));
        QCOMPARE(withConnectTimeout("postgresql:///?service=team"), std::string("postgresql:///?service=team"));
        QCOMPARE(serverOf(QStringLiteral("postgresql://ann@db.example.org:5433/t")),
                 QStringLiteral("db.example.org:5433"));
    }

    // File > Open Team Project… as the application does it: the loader connects and reads the
    // decisions on its worker (the loop turning), and the window takes that store as it is.
    void theLoaderConnectsOnItsWorker() {
        {
            auto ann = project::ProjectStore::open(as("ann"));
            project::Decision decision;
            decision.mention = mentions_.at(6).key;
            decision.mentionText = mentions_.at(6).mention->text;
            decision.kind = project::DecisionKind::Nil;
            decision.newLink = "-1";
            decision.curator = "ann";
            ann.record(decision);
        }
        ProjectLoader loader;
        ProjectPtr project;
        connect(&loader, &ProjectLoader::loaded, this, [&project](ProjectPtr loaded) { project = std::move(loaded); });
        TurnCounter counter;
        loader.load(QString::fromStdString(as("ann")));
        QTRY_VERIFY_WITH_TIMEOUT(project != nullptr, 20000);
        QVERIFY(counter.turns() > 1);
        OpenedTeamStore opened = loader.takeOpenedTeamStore();
        QVERIFY(opened.store != nullptr);
        QVERIFY(!opened.history.empty());
        CurationSession session;
        QCOMPARE(session.open(project, QString::fromStdString(as("ann")), std::move(opened)), QString());
        QCOMPARE(session.decisions()->login(), QStringLiteral("ann"));
        QVERIFY(session.decisions()->hasDecision(mentions_.at(6).key));
        QVERIFY(session.decisions()->undoStack()->canUndo());  // ann's own, from the history read there
        QTRY_VERIFY_WITH_TIMEOUT(session.live()->state() == TeamLiveUpdates::State::Live, 10000);
        QVERIFY(session.decisions()->undo());
        QVERIFY(!session.decisions()->hasDecision(mentions_.at(6).key));
    }

    // The status bar names the role the server gives the login and the project's mode.
    void roleAndModeAreShown() {
        {
            auto owner = project::ProjectStore::open(ownerAddress_);
            project::TeamModeSettings blind;
            blind.mode = project::TeamMode::Blind;
            owner.setTeamMode(blind);
        }
        struct Expected {
            std::string login;
            QString role;
        };
        for (const Expected& expected :
             {Expected{"ann", QStringLiteral("curator")}, Expected{"ada", QStringLiteral("adjudicator")},
              Expected{"postgres", QStringLiteral("owner")}}) {
            CurationSession session;
            openLiveAs(session, expected.login);
            TeamStatusLabel status(session.live(), session.decisions());
            const QString text = status.describe();
            QVERIFY2(text.contains(QString::fromStdString(expected.login)), qPrintable(text));
            QVERIFY2(text.contains(QStringLiteral(" · ") + expected.role + QStringLiteral(" · ")), qPrintable(text));
            QVERIFY2(text.contains(QStringLiteral(" · blind · ")), qPrintable(text));
            QVERIFY2(status.toolTip().contains(QStringLiteral("Blind mode")), qPrintable(status.toolTip()));
            QVERIFY(!session.decisions()->isReadOnly());
        }
        {
            auto owner = project::ProjectStore::open(ownerAddress_);
            owner.setTeamMode({});
        }
        CurationSession session;
        openLiveAs(session, "ann");
        TeamStatusLabel status(session.live(), session.decisions());
        QVERIFY2(status.describe().contains(QStringLiteral(" · shared · ")), qPrintable(status.describe()));
    }

    // An owner's switch of the mode while a window is open shows in its status bar as soon as
    // the claims read the mode again, without a reconnect.
    void theShownModeFollowsASwitch() {
        const auto setMode = [this](project::TeamMode mode) {
            project::TeamModeSettings settings;
            settings.mode = mode;
            project::ProjectStore::open(ownerAddress_).setTeamMode(settings);
        };
        setMode(project::TeamMode::Shared);
        CurationSession session;
        openLiveAs(session, "ann");
        QTRY_VERIFY_WITH_TIMEOUT(session.live()->state() == TeamLiveUpdates::State::Live, 10000);
        TeamStatusLabel status(session.live(), session.decisions());
        status.followMode(session.claims());
        QVERIFY2(status.text().contains(QStringLiteral(" · shared · ")), qPrintable(status.text()));
        setMode(project::TeamMode::Blind);
        session.claims()->renew();
        QTRY_VERIFY2_WITH_TIMEOUT(status.text().contains(QStringLiteral(" · blind · ")), qPrintable(status.text()),
                                  10000);
        QVERIFY2(status.toolTip().contains(QStringLiteral("Blind mode")), qPrintable(status.toolTip()));
        setMode(project::TeamMode::Shared);
        session.claims()->renew();
        QTRY_VERIFY2_WITH_TIMEOUT(status.text().contains(QStringLiteral(" · shared · ")), qPrintable(status.text()),
                                  10000);
    }

    // A reviewer reads everything and writes nothing: the window is read-only and says why, and
    // a decision is refused at once, in those words, the view unchanged.
    void aReviewersWindowIsReadOnly() {
        CurationSession rita;
        openLiveAs(rita, "rita");
        QVERIFY(rita.decisions()->isReadOnly());
        QVERIFY2(rita.decisions()->readOnlyReason().contains(QStringLiteral("reviewer")),
                 qPrintable(rita.decisions()->readOnlyReason()));
        TeamStatusLabel status(rita.live(), rita.decisions());
        QVERIFY2(status.describe().contains(QStringLiteral("reviewer, read-only")), qPrintable(status.describe()));
        QVERIFY2(status.toolTip().contains(QStringLiteral("you read every decision and record none")),
                 qPrintable(status.toolTip()));
        QSignalSpy errors(rita.decisions(), &DecisionLog::errorOccurred);
        const MentionRef& ref = mentions_.at(5);
        QVERIFY(!decideAccept(rita, ref));
        QCOMPARE(errors.size(), 1);
        QVERIFY2(errors.first().first().toString().contains(QStringLiteral("you are a reviewer")),
                 qPrintable(errors.first().first().toString()));
        QVERIFY(!rita.decisions()->hasDecision(ref.key));
        QCOMPARE(rita.decisions()->undoStack()->count(), 0);
    }

    // The connection lost while the server waits to finish a COMMIT (a synchronous standby that
    // never answers holds it after the commit is written; the backend is then terminated from
    // another connection): the server did store the decision, and the client cannot know. The
    // window says so, shows nothing of it until the catch-up, then shows it as stored.
    void aCommitCutShortIsSettledByTheCatchUp() {
        CurationSession ann;
        openLiveAs(ann, "ann");
        const MentionRef& ref = mentions_.at(0);
        QVERIFY(!ann.decisions()->hasDecision(ref.key));
        QSignalSpy errors(ann.decisions(), &DecisionLog::errorOccurred);
        QSignalSpy outcome(ann.live(), &TeamLiveUpdates::decisionOutcomeKnown);
        int terminated = 0;
        const bool stored = withCommitsCutShort([&] { return decideAccept(ann, ref); }, terminated);
        QVERIFY(!stored);
        QVERIFY(terminated >= 1);
        QCOMPARE(errors.size(), 1);
        const QString message = errors.first().first().toString();
        QVERIFY2(message.contains(QStringLiteral("the server may or may not have stored it")), qPrintable(message));
        QVERIFY2(message.contains(QStringLiteral("catching up will show")), qPrintable(message));
        // Until the catch-up: nothing of it shown, read-only, one decision in doubt.
        QVERIFY(!ann.decisions()->hasDecision(ref.key));
        QCOMPARE(ann.live()->decisionsInDoubt(), 1);
        TeamStatusLabel status(ann.live(), ann.decisions());
        QVERIFY2(status.describe().contains(QStringLiteral("may or may not be saved")), qPrintable(status.describe()));

        QVERIFY(outcome.wait(10000));
        QCOMPARE(outcome.first().at(1).toBool(), true);
        QVERIFY2(outcome.first().first().toString().contains(QStringLiteral("it did store")),
                 qPrintable(outcome.first().first().toString()));
        QVERIFY(ann.decisions()->hasDecision(ref.key));
        QCOMPARE(ann.decisions()->currentDecision(ref.key)->login, std::string("ann"));
        QCOMPARE(ann.live()->decisionsInDoubt(), 0);
        QTRY_VERIFY(!ann.decisions()->isReadOnly());
        // The log's own decision: undo takes it back on the server.
        QVERIFY(ann.decisions()->undo());
        QVERIFY(!project::ProjectStore::open(as("ann")).currentDecision(ref.key).has_value());
    }

    // The same for an undo: the server did undo the decision; the window says it cannot know,
    // leaves the decision shown and the undo stack as they were until the catch-up, then shows it
    // undone with the stack rebuilt from the server's history (the decision on the redo side).
    void anUndoCutShortIsSettledByTheCatchUp() {
        CurationSession ann;
        openLiveAs(ann, "ann");
        const MentionRef& ref = mentions_.at(3);
        QVERIFY(decideAccept(ann, ref));
        const int index = ann.decisions()->undoStack()->index();
        QSignalSpy errors(ann.decisions(), &DecisionLog::errorOccurred);
        QSignalSpy outcome(ann.live(), &TeamLiveUpdates::decisionOutcomeKnown);
        int terminated = 0;
        QVERIFY(!withCommitsCutShort([&ann] { return ann.decisions()->undo(); }, terminated));
        QVERIFY(terminated >= 1);
        QCOMPARE(errors.size(), 1);
        QVERIFY2(errors.first().first().toString().contains(QStringLiteral("may or may not have undone it")),
                 qPrintable(errors.first().first().toString()));
        QVERIFY(ann.decisions()->hasDecision(ref.key));
        QCOMPARE(ann.decisions()->undoStack()->index(), index);
        QCOMPARE(ann.live()->decisionsInDoubt(), 1);

        QVERIFY(outcome.wait(10000));
        QCOMPARE(outcome.first().at(1).toBool(), true);
        QVERIFY2(outcome.first().first().toString().contains(QStringLiteral("it did undo")),
                 qPrintable(outcome.first().first().toString()));
        QVERIFY(!ann.decisions()->hasDecision(ref.key));
        QVERIFY(ann.decisions()->undoStack()->canRedo());
        QTRY_VERIFY(!ann.decisions()->isReadOnly());
        QVERIFY(ann.decisions()->redo());  // the rebuilt stack matches the server's
        QVERIFY(project::ProjectStore::open(as("ann")).currentDecision(ref.key).has_value());
    }

    // The connection lost during the COMMIT before it was written (a deferred check that ends
    // the session): the server did not store the decision, and the catch-up says so.
    void aCommitLostBeforeItWasWrittenIsSaidToBeLost() {
        CurationSession ann;
        openLiveAs(ann, "ann");
        const MentionRef& ref = mentions_.at(1);
        QVERIFY2(server_.sql(database_,
                             QStringLiteral(
                                 "CREATE FUNCTION linkscope_test_cut() RETURNS trigger LANGUAGE plpgsql AS "
                                 "$$ BEGIN PERFORM pg_terminate_backend(pg_backend_pid()); RETURN NULL; END $$; "
                                 "CREATE CONSTRAINT TRIGGER linkscope_test_cut AFTER INSERT ON decisions "
                                 "DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION linkscope_test_cut()")),
                 qPrintable(server_.why()));
        const int commands = ann.decisions()->undoStack()->count();
        QSignalSpy errors(ann.decisions(), &DecisionLog::errorOccurred);
        QSignalSpy outcome(ann.live(), &TeamLiveUpdates::decisionOutcomeKnown);
        const bool stored = decideAccept(ann, ref);
        QVERIFY2(server_.sql(database_, QStringLiteral("DROP TRIGGER linkscope_test_cut ON decisions; "
                                                       "DROP FUNCTION linkscope_test_cut()")),
                 qPrintable(server_.why()));
        QVERIFY(!stored);
        QVERIFY(!errors.isEmpty());
        QVERIFY2(errors.first().first().toString().contains(QStringLiteral("may or may not have stored it")),
                 qPrintable(errors.first().first().toString()));
        QVERIFY(!ann.decisions()->hasDecision(ref.key));
        QVERIFY(outcome.wait(10000));
        QCOMPARE(outcome.first().at(1).toBool(), false);
        QVERIFY2(outcome.first().first().toString().contains(QStringLiteral("it did not store")),
                 qPrintable(outcome.first().first().toString()));
        QVERIFY(!ann.decisions()->hasDecision(ref.key));
        QCOMPARE(ann.decisions()->undoStack()->count(), commands);
        QTRY_VERIFY(!ann.decisions()->isReadOnly());
        QVERIFY(decideAccept(ann, ref));  // decided again, on the new connection
    }
};

QTEST_MAIN(TestTeamConnect)
#include "test_team_connect.moc"
