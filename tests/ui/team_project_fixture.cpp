#include "team_project_fixture.h"

#include <QCoreApplication>
#include <QtTest>

#include <algorithm>
#include <filesystem>

#include "corpus/corpus.h"
#include "curation_session.h"
#include "demo_project.h"
#include "project/loaded_project.h"
#include "project/project_manifest.h"
#include "review_queue_order.h"
#include "team_live_updates.h"

namespace linkscope::test {

namespace fs = std::filesystem;

bool TeamProjectFixture::useOwnSettingsFolder(OwnFolders folders) {
    if (!settings_.isValid()) return false;
    QCoreApplication::setOrganizationName(QStringLiteral("LinkscopeTests"));
    qputenv("XDG_CONFIG_HOME", settings_.path().toUtf8());
    if (folders == OwnFolders::ConfigAndData) qputenv("XDG_DATA_HOME", settings_.path().toUtf8());
    return true;
}

bool TeamProjectFixture::startServer(WithoutPostgres withoutPostgres) {
    if (server_.start()) return true;
    skipOrFailWithoutServer(withoutPostgres);
    return false;
}

void TeamProjectFixture::skipOrFailWithoutServer(WithoutPostgres withoutPostgres) const {
    if (!server_.skipReason().isEmpty()) {
        if (withoutPostgres == WithoutPostgres::SkipTheSuite) QSKIP(qPrintable(server_.skipReason()));
        return;  // each server test skips, saying why
    }
    QFAIL(qPrintable(server_.why()));
}

void TeamProjectFixture::loadDemoProject() {
    project_ = test::loadDemoProject();  // the free function of demo_project.h
    mentions_.clear();
    for (const SplitCorpus& split : project_->splits)
        for (const Document& document : split.corpus.documents())
            for (const Mention& mention : document.mentions)
                if (!mention.ids.ids.empty())
                    mentions_.push_back({{split.split, document.pmid(), mention.start, mention.end}, &mention});
}

bool TeamProjectFixture::createTeamProject(const std::vector<TeamLogin>& logins) {
    ownerAddress_ = server_.newDatabase();
    if (ownerAddress_.empty()) return false;
    database_ = PostgresServer::databaseOf(ownerAddress_);
    auto store = project::ProjectStore::create(ownerAddress_, project_->manifest);
    QStringList createRoles;
    for (const TeamLogin& login : logins)
        createRoles << QStringLiteral("CREATE ROLE %1 LOGIN").arg(QString::fromStdString(login.name));
    if (!server_.sql("postgres", createRoles.join(QStringLiteral("; ")))) return false;
    for (const TeamLogin& login : logins) store.grant(login.name, login.role);
    return true;
}

std::string TeamProjectFixture::as(const std::string& login) const { return server_.uriOf(database_, login); }

void TeamProjectFixture::openLiveAs(ui::CurationSession& session, const std::string& login,
                                    std::chrono::milliseconds liveWithin) {
    using namespace std::chrono_literals;
    QCOMPARE(session.open(project_, QString::fromStdString(as(login))), QString());
    session.live()->setRetryPauses(100ms, 400ms);
    QTRY_VERIFY2_WITH_TIMEOUT(session.live()->state() == ui::TeamLiveUpdates::State::Live,
                              qPrintable(session.live()->detail()), static_cast<int>(liveWithin.count()));
}

bool TeamProjectFixture::decideAccept(ui::CurationSession& session, const ui::MentionRef& ref) {
    return session.decisions()->decide(ref.key, *ref.mention, project::DecisionKind::Correct,
                                       ref.mention->ids.ids.front());
}

bool TeamProjectFixture::queued(const ui::CurationSession& session, const project::MentionKey& key) {
    const auto queue = ui::reviewQueueOf(session);
    return std::any_of(queue.begin(), queue.end(), [&key](const ui::QueuedMention& entry) { return entry.key == key; });
}

}  // namespace linkscope::test
