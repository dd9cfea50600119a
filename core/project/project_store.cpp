// ProjectStore: the backend chosen by the address, the checks every backend shares (a decision
// is validated before any backend sees it), and the store's clock.
#include "project/project_store.h"

#include <chrono>
#include <cstdio>

#include "project/decision_rows.h"
#include "project/sqlite_store.h"
#include "project/store_backend.h"
#include "util/error.h"
#ifdef LINKSCOPE_HAVE_POSTGRESQL
#include "project/postgres_store.h"
#endif

namespace linkscope::project {
namespace {

#ifndef LINKSCOPE_HAVE_POSTGRESQL
[[noreturn]] void refuseServer(const std::filesystem::path& address) {
    throw Error(address.string() +
                ": this build of Linkscope has no PostgreSQL support (it was built without libpq); use a project "
                "file, or a build configured where libpq-dev is installed");
}
#endif

}  // namespace

bool ProjectStore::isServerAddress(std::string_view address) noexcept {
    return address.starts_with("postgresql://") || address.starts_with("postgres://");
}

ProjectStore::ProjectStore(std::unique_ptr<StoreBackend> backend) : backend_(std::move(backend)) {}
ProjectStore::ProjectStore(ProjectStore&&) noexcept = default;
ProjectStore& ProjectStore::operator=(ProjectStore&&) noexcept = default;
ProjectStore::~ProjectStore() = default;

ProjectStore ProjectStore::create(const std::filesystem::path& file, const ProjectManifest& manifest) {
    if (isServerAddress(file.native())) {
#ifdef LINKSCOPE_HAVE_POSTGRESQL
        return ProjectStore(PostgresStore::create(file.native(), manifest));
#else
        refuseServer(file);
#endif
    }
    return ProjectStore(SqliteStore::create(file, manifest));
}

ProjectStore ProjectStore::open(const std::filesystem::path& file, OpenCheck check) {
    if (isServerAddress(file.native())) {
#ifdef LINKSCOPE_HAVE_POSTGRESQL
        return ProjectStore(PostgresStore::open(file.native()));
#else
        refuseServer(file);
#endif
    }
    return ProjectStore(SqliteStore::open(file, check));
}

const std::filesystem::path& ProjectStore::file() const noexcept { return backend_->address(); }
bool ProjectStore::onServer() const noexcept { return isServerAddress(backend_->address().native()); }
int ProjectStore::schemaVersion() const { return backend_->schemaVersion(); }
IntegrityReport ProjectStore::checkIntegrity() const { return backend_->checkIntegrity(); }
ProjectManifest ProjectStore::manifest() const { return backend_->manifest(); }

void ProjectStore::putRun(const RunReference& run) {
    if (run.name.empty()) throw Error(file().string() + ": cannot store a run without a name");
    backend_->putRun(run);
}
std::vector<RunReference> ProjectStore::runs() const { return backend_->runs(); }
bool ProjectStore::removeRun(std::string_view name) { return backend_->removeRun(name); }

void ProjectStore::setSetting(std::string_view key, std::string_view value) { backend_->setSetting(key, value); }
std::optional<std::string> ProjectStore::setting(std::string_view key) const { return backend_->setting(key); }
std::vector<std::pair<std::string, std::string>> ProjectStore::settings() const { return backend_->settings(); }

void ProjectStore::putBlob(std::string_view name, std::span<const std::byte> data) {
    if (name.empty()) throw Error(file().string() + ": a blob needs a name");
    backend_->putBlob(name, data);
}
std::optional<std::vector<std::byte>> ProjectStore::blob(std::string_view name) const { return backend_->blob(name); }
bool ProjectStore::removeBlob(std::string_view name) { return backend_->removeBlob(name); }
void ProjectStore::putBlobFromFile(std::string_view name, const std::filesystem::path& source) {
    if (name.empty()) throw Error(file().string() + ": a blob needs a name");
    backend_->putBlobFromFile(name, source);
}
bool ProjectStore::writeBlobToFile(std::string_view name, const std::filesystem::path& target) const {
    return backend_->writeBlobToFile(name, target);
}
std::vector<std::string> ProjectStore::blobNames() const { return backend_->blobNames(); }

Decision ProjectStore::record(Decision decision) {
    validateDecision(decision, file().string());
    if (decision.timestamp.empty()) decision.timestamp = utcTimestamp();
    std::vector<Decision> one{std::move(decision)};
    backend_->insertDone(one, {});
    return std::move(one.front());
}

std::vector<Decision> ProjectStore::recordAll(std::vector<Decision> decisions,
                                              const std::function<void(std::size_t)>& beforeEach) {
    const std::string now = utcTimestamp();
    for (Decision& decision : decisions) {
        validateDecision(decision, file().string());
        if (decision.timestamp.empty()) decision.timestamp = now;
    }
    if (!decisions.empty()) backend_->insertDone(decisions, beforeEach);
    return decisions;
}

std::optional<Decision> ProjectStore::undo() { return backend_->undoLatest(); }
std::optional<Decision> ProjectStore::redo() { return backend_->redoEarliest(); }
bool ProjectStore::canUndo() const { return backend_->anyIn(DecisionState::Done); }
bool ProjectStore::canRedo() const { return backend_->anyIn(DecisionState::Undone); }
std::vector<Decision> ProjectStore::decisions() const { return backend_->decisions(std::nullopt); }
std::vector<Decision> ProjectStore::doneDecisions() const { return backend_->decisions(DecisionState::Done); }
std::optional<Decision> ProjectStore::currentDecision(const MentionKey& mention) const {
    return backend_->currentDecision(mention);
}
std::size_t ProjectStore::decisionCount() const { return backend_->decisionCount(); }

void ProjectStore::importHistory(const std::vector<Decision>& history) {
    std::vector<Decision> checked = history;
    for (Decision& decision : checked) {
        const std::int64_t id = decision.id;
        const DecisionState state = decision.state;
        validateDecision(decision, file().string());
        if (id <= 0) throw Error(file().string() + ": cannot copy a decision without an id");
        decision.state = state;
    }
    backend_->importHistory(checked);
}

void ProjectStore::grant(std::string_view login, TeamRole role) {
    if (login.empty()) throw Error(file().string() + ": cannot grant a role to an empty login");
    backend_->grant(login, role);
}

bool ProjectStore::encrypted() const { return backend_->encrypted(); }

std::string ProjectStore::login() const { return backend_->login(); }

std::string_view teamRoleName(TeamRole role) noexcept {
    switch (role) {
        case TeamRole::Curator:
            return "curator";
        case TeamRole::Adjudicator:
            return "adjudicator";
        case TeamRole::Reviewer:
            return "reviewer";
    }
    return "curator";
}

std::optional<TeamRole> parseTeamRole(std::string_view name) noexcept {
    for (const TeamRole role : {TeamRole::Curator, TeamRole::Adjudicator, TeamRole::Reviewer})
        if (teamRoleName(role) == name) return role;
    return std::nullopt;
}

std::string utcTimestamp() {
    using namespace std::chrono;
    const auto now = floor<milliseconds>(system_clock::now());
    const auto day = floor<days>(now);
    const year_month_day date{day};
    const hh_mm_ss time{now - day};
    char text[32];
    std::snprintf(text, sizeof text, "%04d-%02u-%02uT%02d:%02d:%02d.%03dZ", static_cast<int>(date.year()),
                  static_cast<unsigned>(date.month()), static_cast<unsigned>(date.day()),
                  static_cast<int>(time.hours().count()), static_cast<int>(time.minutes().count()),
                  static_cast<int>(time.seconds().count()), static_cast<int>(time.subseconds().count()));
    return text;
}

std::optional<std::chrono::system_clock::time_point> parseUtcTimestamp(const std::string& text) {
    using namespace std::chrono;
    int year = 0;
    unsigned month = 0, day = 0;
    int hour = 0, minute = 0, second = 0, millis = 0;
    if (std::sscanf(text.c_str(), "%4d-%2u-%2uT%2d:%2d:%2d.%3dZ", &year, &month, &day, &hour, &minute, &second,
                    &millis) != 7)
        return std::nullopt;
    const year_month_day date{std::chrono::year{year}, std::chrono::month{month}, std::chrono::day{day}};
    if (!date.ok() || hour > 23 || minute > 59 || second > 60 || hour < 0 || minute < 0 || second < 0 || millis < 0)
        return std::nullopt;
    return sys_days{date} + hours{hour} + minutes{minute} + seconds{second} + milliseconds{millis};
}

}  // namespace linkscope::project
