// linkscope-cli simulate-curation --curator: simulated curators that store their decisions in a
// project. On a PostgreSQL server the suite starts itself (tests/common/postgres_server.h;
// skipped, saying why, where initdb is not installed): two curators, separate processes, walk
// one team project at once through claims while a third curator (this test, as login carol)
// decides some of the mentions they hold; every mention ends with exactly one decision, each
// curator's stored decisions are those it reports, and each decision carol took from them is
// one conflict they counted. A second server, server_, is killed with SIGKILL twice while a
// curator writes: it reconnects, and what it reports stored is what the server holds. In a
// project file the decisions carry the curator's name, and a second curator goes on where the
// first stopped.
#include <QProcess>
#include <QtTest/QtTest>

#include <map>
#include <set>
#include <string>
#include <thread>

#include <nlohmann/json.hpp>

#include "cli_runner.h"
#include "fixtures.h"
#include "postgres_server.h"
#include "project/project_store.h"

using namespace linkscope;
using namespace std::chrono_literals;
namespace fs = std::filesystem;

namespace {

using Stored = std::set<std::pair<project::MentionKey, std::string>>;  // mention, link

// The demo project's test split (15 mentions), ranked by the sparse ranker.
QStringList curatorArguments(const std::string& project, const QString& curator) {
    return {QStringLiteral("simulate-curation"),
            QStringLiteral("--order"),
            QStringLiteral("queue"),
            QStringLiteral("--project"),
            QString::fromStdString(project),
            QStringLiteral("--curator"),
            curator,
            QStringLiteral("--train"),
            test::demoFile("demo-train.txt"),
            QStringLiteral("--dev"),
            test::demoFile("demo-train.txt"),
            QStringLiteral("--test"),
            test::demoFile("demo-test.txt"),
            QStringLiteral("--kb"),
            test::demoFile("demo-kb.txt"),
            QStringLiteral("--split"),
            QStringLiteral("test"),
            QStringLiteral("--json")};
}

constexpr std::size_t kMentions = 15;

// A curator given nothing but its project: the corpora and KB are those its manifest names.
QStringList projectOnlyArguments(const std::string& project, const QString& curator, int limit) {
    return {QStringLiteral("simulate-curation"),
            QStringLiteral("--project"),
            QString::fromStdString(project),
            QStringLiteral("--curator"),
            curator,
            QStringLiteral("--limit"),
            QString::number(limit),
            QStringLiteral("--json")};
}

// The demo's files as a project with a dev split (its test file, kMentions mentions), the split
// a curator walks by default.
fs::path writeDevManifest(const test::FixtureDir& dir) {
    const nlohmann::json manifest = {
        {"format", "linkscope-project-manifest"},
        {"version", 1},
        {"name", "demo with a dev split"},
        {"knowledgeBase", {{"path", test::demoFile("demo-kb.txt").toStdString()}, {"format", "medic"}}},
        {"corpora",
         {{{"split", "train"}, {"path", test::demoFile("demo-train.txt").toStdString()}, {"format", "pubtator"}},
          {{"split", "dev"}, {"path", test::demoFile("demo-test.txt").toStdString()}, {"format", "pubtator"}}}}};
    return dir.write("dev-project.json", manifest.dump(2));
}

// A simulated curator running as a process of its own.
struct CuratorProcess {
    QProcess process;
    explicit CuratorProcess(const QStringList& arguments) {
        process.start(QStringLiteral(LINKSCOPE_CLI_PATH), arguments);
        process.closeWriteChannel();
    }
    // QProcess learns of the end only while it waits (or in an event loop).
    bool running() {
        if (process.state() == QProcess::NotRunning) return false;
        return !process.waitForFinished(1);
    }
    // Waits for the end; the report, or null with `why` set.
    nlohmann::json report(QString& why) {
        if (process.state() != QProcess::NotRunning && !process.waitForFinished(60000)) {
            process.kill();
            process.waitForFinished();
            why = QStringLiteral("the curator did not finish");
            return nullptr;
        }
        const QByteArray out = process.readAllStandardOutput();
        if (process.exitStatus() != QProcess::NormalExit || process.exitCode() != 0) {
            why = QStringLiteral("the curator failed: ") + QString::fromUtf8(process.readAllStandardError());
            return nullptr;
        }
        return nlohmann::json::parse(out.constData());
    }
};

Stored reported(const nlohmann::json& report) {
    Stored stored;
    for (const auto& d : report["decisions"])
        stored.insert({{d["split"].get<std::string>(), d["document"].get<std::string>(), d["start"].get<std::size_t>(),
                        d["end"].get<std::size_t>()},
                       d["link"].get<std::string>()});
    return stored;
}

// The decisions in a project, by login (a file: by curator); every one must be done.
std::map<std::string, Stored> storedBy(const std::vector<project::Decision>& decisions, bool byLogin) {
    std::map<std::string, Stored> stored;
    for (const auto& d : decisions) stored[byLogin ? d.login : d.curator].insert({d.mention, d.newLink});
    return stored;
}

// How many decisions each mention has (any state).
std::map<project::MentionKey, int> perMention(const std::vector<project::Decision>& decisions) {
    std::map<project::MentionKey, int> count;
    for (const auto& d : decisions) ++count[d.mention];
    return count;
}

}  // namespace

class TestCliSimulateTeam : public QObject {
    Q_OBJECT
    test::FixtureDir dir_;
    test::PostgresServer server_;
    QString skip_;

    // A new team project on `server` with curators ann, bob and carol; its owner's URI.
    static std::string teamProject(test::PostgresServer& server, const char* roles,
                                   const QString& manifest = test::demoFile("demo-project.json")) {
        const std::string owner = server.newDatabase();
        if (owner.empty()) return {};
        const auto created =
            test::runCli({"project", "create", "--manifest", manifest, "--store", QString::fromStdString(owner)});
        if (created.exitCode != 0) return {};
        if (!server.sql("postgres", QString::fromLatin1(roles))) return {};
        auto store = project::ProjectStore::open(owner);
        for (const char* login : {"ann", "bob", "carol"}) store.grant(login, project::TeamRole::Curator);
        return owner;
    }

private Q_SLOTS:
    void initTestCase() {
        if (server_.start()) return;
        if (server_.skipReason().isEmpty()) QFAIL(qPrintable(server_.why()));
        skip_ = server_.skipReason();
    }

    void twoCuratorsShareOneTeamProject() {
        if (!skip_.isEmpty()) QSKIP(qPrintable(skip_));
        const std::string owner =
            teamProject(server_, "CREATE ROLE ann LOGIN; CREATE ROLE bob LOGIN; CREATE ROLE carol LOGIN");
        QVERIFY2(!owner.empty(), qPrintable(server_.why()));
        const std::string database = test::PostgresServer::databaseOf(owner);

        // Slow enough that the two overlap however late one of them starts.
        CuratorProcess ann(curatorArguments(server_.uriOf(database, "ann"), "Ann")
                           << QStringLiteral("--rate") << QStringLiteral("5"));
        CuratorProcess bob(curatorArguments(server_.uriOf(database, "bob"), "Bob")
                           << QStringLiteral("--rate") << QStringLiteral("5"));
        // Carol decides, with a link no ranker proposes, a few mentions that Ann or Bob hold
        // while they think: each time, the one who holds it must count a conflict.
        auto carol = project::ProjectStore::open(server_.uriOf(database, "carol"));
        Stored carolStored;
        std::set<project::MentionKey> tried;
        while (ann.running() || bob.running()) {
            if (carolStored.size() < 3) {
                for (const project::Claim& claim : carol.claims()) {
                    if (claim.expires == "infinity" || claim.login == "carol" || !tried.insert(claim.mention).second)
                        continue;
                    project::Decision decision;
                    decision.mention = claim.mention;
                    decision.mentionText = "taken";
                    decision.kind = project::DecisionKind::Correct;
                    decision.newLink = "MESH:D999999";
                    decision.curator = "Carol";
                    try {
                        carol.record(decision);
                        carolStored.insert({claim.mention, decision.newLink});
                    } catch (const project::DecisionConflict&) {
                        // The holder was first: nothing taken from them.
                    }
                    break;
                }
            }
            std::this_thread::sleep_for(10ms);
        }
        QString why;
        const nlohmann::json annReport = ann.report(why);
        QVERIFY2(!annReport.is_null(), qPrintable(why));
        const nlohmann::json bobReport = bob.report(why);
        QVERIFY2(!bobReport.is_null(), qPrintable(why));
        QVERIFY2(!carolStored.empty(), "carol took no mention from the curators");

        auto store = project::ProjectStore::open(owner);
        const auto decisions = store.decisions();
        // Every mention decided exactly once, by one of the three, and every decision in effect.
        const auto count = perMention(decisions);
        QCOMPARE(count.size(), kMentions);
        for (const auto& [mention, n] : count) QVERIFY2(n == 1, mention.document.c_str());
        for (const auto& d : decisions) QCOMPARE(d.state, project::DecisionState::Done);
        // What each process reports stored is what the server holds in its login's name.
        const auto byLogin = storedBy(decisions, true);
        QCOMPARE(byLogin.at("ann"), reported(annReport));
        QCOMPARE(byLogin.at("bob"), reported(bobReport));
        QCOMPARE(byLogin.at("carol"), carolStored);
        for (const auto& d : decisions)
            QCOMPARE(d.curator, d.login == "ann" ? std::string("Ann") : d.login == "bob" ? "Bob" : "Carol");
        QCOMPARE(annReport["decided"].get<std::size_t>() + bobReport["decided"].get<std::size_t>() + carolStored.size(),
                 kMentions);
        // Each mention carol took was held by Ann or Bob: one conflict each.
        QCOMPARE(annReport["conflicts"].get<std::size_t>() + bobReport["conflicts"].get<std::size_t>(),
                 carolStored.size());
        QCOMPARE(annReport["login"].get<std::string>(), std::string("ann"));
        QVERIFY(annReport["server"].get<bool>());
        QCOMPARE(annReport["reconnects"].get<int>(), 0);
        // Each saw the others' decisions as they came.
        QVERIFY(annReport["seen_from_others"].get<std::size_t>() + bobReport["seen_from_others"].get<std::size_t>() >
                0);
        QVERIFY(annReport["commit_ms"]["p99"].get<double>() >= annReport["commit_ms"]["p50"].get<double>());
        // Every other's decision seen moved the curator's queue, and names who made it.
        for (const auto* report : {&annReport, &bobReport}) {
            const auto& received = (*report)["received"];
            QCOMPARE(received.size(), (*report)["seen_from_others"].get<std::size_t>());
            QCOMPARE((*report)["reranked_ms"]["count"].get<std::size_t>(), received.size());
            for (const auto& r : received) {
                QVERIFY(r["login"].get<std::string>() != (*report)["login"].get<std::string>());
                QVERIFY(r["reranked_at_ms"].get<double>() > 0.0);
            }
            for (const auto& d : (*report)["decisions"]) QVERIFY(d["committed_at_ms"].get<double>() > 0.0);
        }
    }

    // Blind mode: each curator reads only its own decisions; a mention of a doubly assigned
    // document is decided by both, any other by one. Each stops once nothing is left to claim.
    void blindCuratorsDecideTheOverlapTwice() {
        if (!skip_.isEmpty()) QSKIP(qPrintable(skip_));
        const std::string owner = teamProject(server_, "SELECT 1");
        QVERIFY2(!owner.empty(), qPrintable(server_.why()));
        const std::string database = test::PostgresServer::databaseOf(owner);
        // A seed that gives one of the two documents to both curators.
        project::TeamModeSettings blind{project::TeamMode::Blind, 0.5, 0};
        while (project::overlapDocument(blind, "90000007") == project::overlapDocument(blind, "90000008"))
            ++blind.overlapSeed;
        project::ProjectStore::open(owner).setTeamMode(blind);

        CuratorProcess ann(curatorArguments(server_.uriOf(database, "ann"), "Ann")
                           << QStringLiteral("--rate") << QStringLiteral("20"));
        CuratorProcess bob(curatorArguments(server_.uriOf(database, "bob"), "Bob")
                           << QStringLiteral("--rate") << QStringLiteral("20"));
        QString why;
        const nlohmann::json annReport = ann.report(why);
        QVERIFY2(!annReport.is_null(), qPrintable(why));
        const nlohmann::json bobReport = bob.report(why);
        QVERIFY2(!bobReport.is_null(), qPrintable(why));
        QCOMPARE(annReport["mode"].get<std::string>(), std::string("blind"));
        QCOMPARE(annReport["seen_from_others"].get<int>() + bobReport["seen_from_others"].get<int>(), 0);

        const auto decisions = project::ProjectStore::open(owner).decisions();
        const auto count = perMention(decisions);
        QCOMPARE(count.size(), kMentions);
        for (const auto& [mention, n] : count)
            QVERIFY2(n == (project::overlapDocument(blind, mention.document) ? 2 : 1), mention.document.c_str());
        const auto byLogin = storedBy(decisions, true);
        QCOMPARE(byLogin.at("ann"), reported(annReport));
        QCOMPARE(byLogin.at("bob"), reported(bobReport));
    }

    // The server killed twice while a curator writes.
    void aCuratorReconnectsAfterTheServerIsKilled() {
        if (!skip_.isEmpty()) QSKIP(qPrintable(skip_));
        // The roles exist on the server already. The store commits synchronously (its session's
        // synchronous_commit), so a commit's WAL is written before record() returns; a server killed
        // with SIGKILL loses nothing then, even without fsync (the machine keeps running).
        const std::string owner = teamProject(server_, "SELECT 1");
        QVERIFY2(!owner.empty(), qPrintable(server_.why()));
        const std::string database = test::PostgresServer::databaseOf(owner);

        CuratorProcess ann(curatorArguments(server_.uriOf(database, "ann"), "Ann")
                           << QStringLiteral("--rate") << QStringLiteral("10"));
        const auto storedNow = [&]() -> std::size_t {
            try {
                return project::ProjectStore::open(owner).decisionCount();
            } catch (const Error&) {
                return 0;  // the server is starting again
            }
        };
        for (const std::size_t kill : {std::size_t{3}, std::size_t{9}}) {
            while (ann.running() && storedNow() < kill) std::this_thread::sleep_for(20ms);
            QVERIFY2(ann.running(), "the curator ended before the kill");
            QVERIFY2(server_.killAndRestart(), qPrintable(server_.why()));
        }
        QString why;
        const nlohmann::json report = ann.report(why);
        QVERIFY2(!report.is_null(), qPrintable(why));
        QVERIFY2(report["reconnects"].get<int>() >= 2, report.dump().c_str());

        auto store = project::ProjectStore::open(owner);
        const auto decisions = store.decisions();
        const auto count = perMention(decisions);
        QCOMPARE(count.size(), kMentions);
        for (const auto& [mention, n] : count) QVERIFY2(n == 1, mention.document.c_str());
        QCOMPARE(storedBy(decisions, true).at("ann"), reported(report));
        QCOMPARE(report["decided"].get<std::size_t>(), kMentions);
    }

    void aFileStoresTheDecisionsUnderTheCuratorsName() {
        const fs::path file = dir_.path("simulated.linkscope");
        const auto created = test::runCli({"project", "create", "--manifest", test::demoFile("demo-project.json"),
                                           "--store", QString::fromStdString(file.string())});
        QVERIFY2(created.exitCode == 0, created.err.constData());
        const auto first =
            test::runCli(curatorArguments(file.string(), "Ann") << QStringLiteral("--limit") << QStringLiteral("6"));
        QVERIFY2(first.exitCode == 0, first.err.constData());
        auto queueByDefault = curatorArguments(file.string(), "Bob");
        queueByDefault.remove(1, 2);  // without --order: the review queue
        const auto second = test::runCli(queueByDefault);
        QVERIFY2(second.exitCode == 0, second.err.constData());
        const nlohmann::json annReport = first.json(), bobReport = second.json();
        QCOMPARE(annReport["decided"].get<int>(), 6);
        QCOMPARE(annReport["server"].get<bool>(), false);
        QCOMPARE(annReport["login"].get<std::string>(), std::string());
        QCOMPARE(bobReport["decided"].get<std::size_t>(), kMentions - 6);

        auto store = project::ProjectStore::open(file);
        const auto decisions = store.decisions();
        const auto count = perMention(decisions);
        QCOMPARE(count.size(), kMentions);
        for (const auto& [mention, n] : count) QVERIFY2(n == 1, mention.document.c_str());
        const auto byCurator = storedBy(decisions, false);
        QCOMPARE(byCurator.at("Ann"), reported(annReport));
        QCOMPARE(byCurator.at("Bob"), reported(bobReport));
        // The decisions are the gold links: an accept where the proposal was right.
        for (const auto& d : decisions) QVERIFY(d.kind == project::DecisionKind::Accept || d.previousLink != d.newLink);
    }

    // Curators given only --project and --curator read the corpora and KB the project names, in a
    // file and on a server; the options, when given, win, and the curator says so.
    void curatorsReadTheProjectsCorpora() {
        const QString manifest = QString::fromStdString(writeDevManifest(dir_).string());
        const fs::path file = dir_.path("from-manifest.linkscope");
        QVERIFY(test::runCli(
                    {"project", "create", "--manifest", manifest, "--store", QString::fromStdString(file.string())})
                    .exitCode == 0);
        const auto first = test::runCli(projectOnlyArguments(file.string(), "Ann", 6));
        QVERIFY2(first.exitCode == 0, first.err.constData());
        const auto second = test::runCli(projectOnlyArguments(file.string(), "Bob", 100));
        QVERIFY2(second.exitCode == 0, second.err.constData());
        const nlohmann::json annReport = first.json(), bobReport = second.json();
        QCOMPARE(annReport["mentions"].get<std::size_t>(), kMentions);
        QCOMPARE(annReport["decided"].get<int>(), 6);
        QCOMPARE(bobReport["decided"].get<std::size_t>(), kMentions - 6);
        {
            const auto decisions = project::ProjectStore::open(file).decisions();
            const auto count = perMention(decisions);
            QCOMPARE(count.size(), kMentions);
            for (const auto& [mention, n] : count) {
                QVERIFY2(n == 1, mention.document.c_str());
                QCOMPARE(mention.split, std::string("dev"));
            }
            const auto byCurator = storedBy(decisions, false);
            QCOMPARE(byCurator.at("Ann"), reported(annReport));
            QCOMPARE(byCurator.at("Bob"), reported(bobReport));
        }
        // A split the project does not have is refused, naming those it has.
        const auto noTest = test::runCli(projectOnlyArguments(file.string(), "Cy", 1)
                                         << QStringLiteral("--split") << QStringLiteral("test"));
        QVERIFY2(noTest.exitCode == 1 && noTest.err.contains("train, dev"), noTest.err.constData());
        // Other files on the command line are read, and the curator says so once.
        const fs::path other = dir_.path("options-win.linkscope");
        QVERIFY(test::runCli(
                    {"project", "create", "--manifest", manifest, "--store", QString::fromStdString(other.string())})
                    .exitCode == 0);
        const auto given =
            test::runCli(curatorArguments(other.string(), "Cy") << QStringLiteral("--limit") << QStringLiteral("1"));
        QVERIFY2(given.exitCode == 0, given.err.constData());
        QCOMPARE(given.err.count("are read, not the files the project names"), 1);
        QCOMPARE(given.json()["decisions"][0]["split"].get<std::string>(), std::string("test"));

        if (!skip_.isEmpty()) QSKIP(qPrintable(skip_));
        const std::string owner = teamProject(server_, "SELECT 1", manifest);
        QVERIFY2(!owner.empty(), qPrintable(server_.why()));
        const std::string database = test::PostgresServer::databaseOf(owner);
        CuratorProcess ann(projectOnlyArguments(server_.uriOf(database, "ann"), "Ann", 5));
        CuratorProcess bob(projectOnlyArguments(server_.uriOf(database, "bob"), "Bob", 5));
        QString why;
        const nlohmann::json annTeam = ann.report(why);
        QVERIFY2(!annTeam.is_null(), qPrintable(why));
        const nlohmann::json bobTeam = bob.report(why);
        QVERIFY2(!bobTeam.is_null(), qPrintable(why));
        QCOMPARE(annTeam["decided"].get<int>(), 5);
        QCOMPARE(bobTeam["decided"].get<int>(), 5);
        const auto decisions = project::ProjectStore::open(owner).decisions();
        for (const auto& [mention, n] : perMention(decisions)) {
            QVERIFY2(n == 1, mention.document.c_str());
            QCOMPARE(mention.split, std::string("dev"));
        }
        const auto byLogin = storedBy(decisions, true);
        QCOMPARE(byLogin.at("ann"), reported(annTeam));
        QCOMPARE(byLogin.at("bob"), reported(bobTeam));
    }

    void refusesWhatTheStoredWalkCannotDo() {
        const fs::path file = dir_.path("refusals.linkscope");
        QVERIFY(test::runCli({"project", "create", "--manifest", test::demoFile("demo-project.json"), "--store",
                              QString::fromStdString(file.string())})
                    .exitCode == 0);
        auto both = curatorArguments(file.string(), "Ann");
        both[2] = QStringLiteral("queue,document");
        const auto twoOrders = test::runCli(both);
        QVERIFY2(twoOrders.exitCode == 1 && twoOrders.err.contains("one order"), twoOrders.err.constData());
        const auto csv =
            test::runCli(curatorArguments(file.string(), "Ann")
                         << QStringLiteral("--csv") << QString::fromStdString(dir_.path("x.csv").string()));
        QVERIFY2(csv.exitCode == 1 && csv.err.contains("--csv"), csv.err.constData());
        auto noProject = curatorArguments(file.string(), "Ann");
        noProject.remove(3, 2);
        const auto missing = test::runCli(noProject);
        QVERIFY2(missing.exitCode == 1 && missing.err.contains("--project"), missing.err.constData());
        QCOMPARE(project::ProjectStore::open(file).decisionCount(), std::size_t{0});
    }
};

QTEST_GUILESS_MAIN(TestCliSimulateTeam)
#include "test_cli_simulate_team.moc"
