#pragma once
// PRIVATE to the project store: what one kind of storage behind a ProjectStore does (the SQLite
// file, sqlite_store.h; a PostgreSQL database, postgres_store.h). ProjectStore validates what it
// is given and hands it on; a backend keeps the rows, runs the transactions and checks what it
// reads (fields and each decision's checksum, decision_rows.h). No SQLite or libpq type appears
// here: ProjectStore's callers never see which backend they use.
//
// Every method throws linkscope::Error (ParseError for damage) whose message names label().
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "project/curation_decision.h"
#include "project/project_manifest.h"
#include "project/project_store.h"
#include "project/team_work.h"

namespace linkscope::project {

class StoreBackend {
public:
    virtual ~StoreBackend() = default;
    StoreBackend() = default;
    StoreBackend(const StoreBackend&) = delete;
    StoreBackend& operator=(const StoreBackend&) = delete;

    /// The file (absolute), or the server address without any password: what messages name.
    virtual const std::filesystem::path& address() const noexcept = 0;

    virtual int schemaVersion() const = 0;
    virtual IntegrityReport checkIntegrity() const = 0;
    virtual ProjectManifest manifest() const = 0;

    virtual void putRun(const RunReference& run) = 0;
    virtual std::vector<RunReference> runs() const = 0;
    virtual bool removeRun(std::string_view name) = 0;

    virtual void setSetting(std::string_view key, std::string_view value) = 0;
    virtual std::optional<std::string> setting(std::string_view key) const = 0;
    /// Every setting, by key.
    virtual std::vector<std::pair<std::string, std::string>> settings() const = 0;

    virtual void putBlob(std::string_view name, std::span<const std::byte> data) = 0;
    virtual std::optional<std::vector<std::byte>> blob(std::string_view name) const = 0;
    virtual bool removeBlob(std::string_view name) = 0;
    virtual void putBlobFromFile(std::string_view name, const std::filesystem::path& source) = 0;
    virtual bool writeBlobToFile(std::string_view name, const std::filesystem::path& target) const = 0;
    /// Every blob's name, sorted.
    virtual std::vector<std::string> blobNames() const = 0;

    /// Records validated decisions (timestamps set) in one transaction, as
    /// ProjectStore::recordAll: cuts the redo stack, assigns ids, sets the state to done.
    virtual void insertDone(std::vector<Decision>& decisions, const std::function<void(std::size_t)>& beforeEach) = 0;
    /// Moves the latest done decision to undone (undo) or the earliest undone one to done
    /// (redo), in one committed transaction; nullopt when there is none.
    virtual std::optional<Decision> undoLatest() = 0;
    virtual std::optional<Decision> redoEarliest() = 0;
    virtual bool anyIn(DecisionState state) const = 0;
    /// The decisions in id order: all of them, or those in one state.
    virtual std::vector<Decision> decisions(std::optional<DecisionState> only) const = 0;
    virtual std::optional<Decision> currentDecision(const MentionKey& mention) const = 0;
    virtual std::size_t decisionCount() const = 0;
    /// Stores a history read from another store as it is (ids, states, timestamps kept), in one
    /// transaction; Error when this store holds decisions already.
    virtual void importHistory(const std::vector<Decision>& history) = 0;

    virtual void grant(std::string_view login, TeamRole role) = 0;
    virtual bool encrypted() const = 0;

    // A team's work (team_work.h). The mode is stored by both backends; the rest needs a server,
    // and a project file refuses it (StoreBackend's versions, which say so).
    virtual TeamModeSettings teamMode() const = 0;
    virtual void setTeamMode(const TeamModeSettings& settings) = 0;
    virtual std::vector<MentionKey> claimNext(std::span<const MentionKey> byGain, std::size_t count,
                                              std::chrono::seconds timeToLive);
    virtual std::size_t renewClaims(std::chrono::seconds timeToLive);
    virtual bool releaseClaim(const MentionKey& mention);
    virtual std::vector<Claim> claims() const;
    virtual LiveChanges changesSince(std::int64_t revision) const;
    /// A file is always at hand: true; nothing to reconnect; no notifications.
    virtual bool connected() const { return true; }
    virtual void reconnect() {}
    virtual void listenForChanges() {}
    virtual int changeSocket() const { return -1; }
    virtual bool takeChangeNotifications() { return false; }
    virtual std::string login() const = 0;
    /// A file has no roles.
    virtual std::optional<TeamRole> teamRole() const { return std::nullopt; }
};

}  // namespace linkscope::project
