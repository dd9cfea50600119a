#pragma once
// What the team GUI suites (tests/ui/test_team_*.cpp) share: a PostgreSQL server of the suite's
// own (tests/common/postgres_server.h), the demo project (resources/demo) created on it with the
// suite's logins and their roles, the application's settings in a folder of the suite's own, and
// windows opened on the project as one of those logins.
//
// A suite's test class derives from it, after QObject, and sets it up in initTestCase. The steps
// that can fail do so through Qt Test in the calling test function (see each one).
#include <QTemporaryDir>

#include <chrono>
#include <memory>
#include <string>
#include <vector>

#include "decision_log.h"
#include "postgres_server.h"
#include "project/project_store.h"

namespace linkscope {
struct LoadedProject;
namespace ui {
class CurationSession;
}
}  // namespace linkscope

namespace linkscope::test {

/// A login that the suite creates on its server, and the role the team project grants it.
struct TeamLogin {
    std::string name;
    project::TeamRole role;
};

class TeamProjectFixture {
protected:
    /// The application's folders that the suite points into settings_.
    enum class OwnFolders { Config, ConfigAndData };

    /// What a suite does where PostgreSQL is not installed.
    enum class WithoutPostgres {
        SkipTheSuite,        ///< startServer() skips the calling test function (initTestCase: all)
        SkipEachServerTest,  ///< the suite's tests that need no server still run
    };

    /// Names the application's organisation and points its settings (and, for ConfigAndData,
    /// its data) at settings_, so that the suite reads and writes none of the user's; false when
    /// the folder could not be made.
    bool useOwnSettingsFolder(OwnFolders folders = OwnFolders::Config);

    /// Starts server_; true when it runs. Where PostgreSQL is not installed it skips the calling
    /// test function saying why (SkipTheSuite), or leaves that to each test that needs the server
    /// (server_.skipReason() says why); where it is installed and does not start, it fails the
    /// calling test function saying why. The caller returns at once on false.
    bool startServer(WithoutPostgres withoutPostgres = WithoutPostgres::SkipTheSuite);

    /// Reads the demo project into project_, and its mentions that have a gold id into
    /// mentions_.
    void loadDemoProject();

    /// Creates project_ on a new database of server_ (its owner's address in ownerAddress_, its
    /// name in database_), and each login with its role on it; false, with server_.why() saying
    /// why, when the server refuses. loadDemoProject() comes first.
    bool createTeamProject(const std::vector<TeamLogin>& logins);

    /// The team project's address for `login` (no password: the socket trusts every login).
    std::string as(const std::string& login) const;

    /// Opens the team project in `session` as `login`, retrying a lost connection at short
    /// pauses, and waits up to `liveWithin` for its live updates to be live. Fails the calling
    /// test function (QTest::currentTestFailed()) where it cannot open or does not go live.
    void openLiveAs(ui::CurationSession& session, const std::string& login,
                    std::chrono::milliseconds liveWithin = std::chrono::seconds(10));

    /// Decides `ref` in `session`: its gold id (the first of its ids) as the link, recorded as a
    /// correction; whether the decision was stored.
    static bool decideAccept(ui::CurationSession& session, const ui::MentionRef& ref);

    /// Whether `key` is in `session`'s review queue.
    static bool queued(const ui::CurationSession& session, const project::MentionKey& key);

    PostgresServer server_;
    QTemporaryDir settings_;    ///< the application's settings (and data) folder for the suite
    std::string ownerAddress_;  ///< the team project's address for its owner, the superuser
    std::string database_;      ///< the team project's database on server_
    std::shared_ptr<const LoadedProject> project_;
    std::vector<ui::MentionRef> mentions_;  ///< project_'s mentions that have a gold id, in project order

private:
    // The rest of startServer() where the server did not start: void, as Qt Test's QSKIP and
    // QFAIL return from the function they stand in.
    void skipOrFailWithoutServer(WithoutPostgres withoutPostgres) const;
};

}  // namespace linkscope::test
