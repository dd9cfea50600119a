// A project on a PostgreSQL server killed with SIGKILL (the server and all its processes, as an
// OOM kill or a crash would end them) while a client writes: every decision whose record()
// returned is there after the server's recovery, with its checksum; a write to the dead server
// fails with an error rather than being queued; a client that opens the project again carries
// on. The server runs with fsync on (tests/common/postgres_server.h, Durability::Full); skipped,
// saying why, where initdb is not installed.
#include <QtTest/QtTest>

#include <string>

#include "error_of.h"
#include "fixtures.h"
#include "postgres_server.h"
#include "project/project_store.h"

using namespace linkscope;
using namespace linkscope::project;

namespace {

Decision decisionOn(std::size_t start) {
    Decision decision;
    decision.mention = {"train", "1", start, start + 5};
    decision.mentionText = "tumor";
    decision.kind = DecisionKind::Accept;
    decision.newLink = "MESH:D" + std::to_string(start);
    decision.curator = "ann";
    return decision;
}

}  // namespace

class TestStoreDurability : public QObject {
    Q_OBJECT
    test::PostgresServer server_;
    test::FixtureDir dir_;

private Q_SLOTS:
    void initTestCase() {
        if (server_.start(test::PostgresServer::Durability::Full)) return;
        if (!server_.skipReason().isEmpty()) QSKIP(qPrintable(server_.skipReason()));
        QFAIL(qPrintable(server_.why()));
    }

    void savedDecisionsSurviveAKilledServer() {
        const std::string uri = server_.newDatabase();
        QVERIFY2(!uri.empty(), qPrintable(server_.why()));
        ProjectManifest manifest;
        manifest.name = "durable";
        manifest.knowledgeBase.path = dir_.write("kb.txt", "D1||Name\n");
        auto store = ProjectStore::create(uri, manifest);
        std::vector<Decision> saved;
        for (int round = 0; round < 3; ++round) {
            for (std::size_t i = 0; i < 10; ++i) saved.push_back(store.record(decisionOn(saved.size() * 10)));
            store.undo();  // an undo that returned is saved too
            saved.back().state = DecisionState::Undone;
            QVERIFY2(server_.killAndRestart(), qPrintable(server_.why()));
            // The old connection died with the server: the next write fails, nothing is queued.
            const std::string lost = test::errorOf([&] { store.record(decisionOn(99990)); });
            QVERIFY2(lost.find("cannot record the decision") != std::string::npos, lost.c_str());
            store = ProjectStore::open(uri);
            const auto stored = store.decisions();  // each row read against its checksum
            QCOMPARE(stored.size(), saved.size());
            for (std::size_t i = 0; i < saved.size(); ++i) {
                QCOMPARE(stored[i].id, saved[i].id);
                QCOMPARE(stored[i].newLink, saved[i].newLink);
                QCOMPARE(stored[i].state, saved[i].state);
            }
            // The next decision cuts the undone one, as it would have without the kill.
            saved.back().state = DecisionState::Discarded;
        }
    }
};

QTEST_GUILESS_MAIN(TestStoreDurability)
#include "test_store_durability.moc"
