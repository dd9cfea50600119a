// ProjectStore: a team's work and a live project on a server (team_work.h), and what a backend
// without a server answers to them (StoreBackend's defaults: a project file has no team).
#include "project/project_store.h"
#include "project/store_backend.h"

namespace linkscope::project {
namespace {

[[noreturn]] void refuseFile(const std::filesystem::path& file, const std::string& what) {
    throw Error(file.string() + ": cannot " + what +
                ": a project file has no team; claims and live changes need a project on a PostgreSQL server");
}

}  // namespace

std::vector<MentionKey> StoreBackend::claimNext(std::span<const MentionKey>, std::size_t, std::chrono::seconds) {
    refuseFile(address(), "claim mentions to review");
}
std::size_t StoreBackend::renewClaims(std::chrono::seconds) { refuseFile(address(), "renew the claims"); }
bool StoreBackend::releaseClaim(const MentionKey&) { refuseFile(address(), "release a claim"); }
std::vector<Claim> StoreBackend::claims() const { refuseFile(address(), "read the claims"); }
LiveChanges StoreBackend::changesSince(std::int64_t) const { refuseFile(address(), "read the changes"); }

TeamModeSettings ProjectStore::teamMode() const { return backend_->teamMode(); }
std::optional<TeamRole> ProjectStore::teamRole() const { return backend_->teamRole(); }

void ProjectStore::setTeamMode(const TeamModeSettings& settings) {
    if (!(settings.overlapShare >= 0.0 && settings.overlapShare <= 1.0))
        throw Error(file().string() + ": the overlap share of the blind mode must lie between 0 and 1");
    backend_->setTeamMode(settings);
}

std::vector<MentionKey> ProjectStore::claimNext(std::span<const MentionKey> byGain, std::size_t count,
                                                std::chrono::seconds timeToLive) {
    return backend_->claimNext(byGain, count, timeToLive);
}
std::size_t ProjectStore::renewClaims(std::chrono::seconds timeToLive) { return backend_->renewClaims(timeToLive); }
bool ProjectStore::releaseClaim(const MentionKey& mention) { return backend_->releaseClaim(mention); }
std::vector<Claim> ProjectStore::claims() const { return backend_->claims(); }

LiveChanges ProjectStore::changesSince(std::int64_t revision) const { return backend_->changesSince(revision); }
bool ProjectStore::connected() const { return backend_->connected(); }

LiveChanges ProjectStore::reconnect(std::int64_t sinceRevision) {
    backend_->reconnect();
    if (!onServer()) return {{}, sinceRevision};
    return backend_->changesSince(sinceRevision);
}

void ProjectStore::listenForChanges() { backend_->listenForChanges(); }
int ProjectStore::changeSocket() const { return backend_->changeSocket(); }
bool ProjectStore::takeChangeNotifications() { return backend_->takeChangeNotifications(); }

}  // namespace linkscope::project
