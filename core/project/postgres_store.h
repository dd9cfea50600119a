#pragma once
// PRIVATE to the project store: the project as tables in a PostgreSQL database (libpq), the
// backend for a team. ProjectStore's contract holds (project_store.h): record(), undo() and
// redo() return once their transaction has committed with synchronous_commit on (the server's
// WAL flushed), recordAll() is one transaction, and every decision row carries its checksum,
// checked on every read. Writers of decisions are ordered by a lock on the decisions table, so
// ids grow in commit order and two clients never take one id. The tables are built and
// upgraded by numbered migrations (postgres_schema.h).
//
// The address is libpq's connection URI; a password in it is refused (pg_connection.h).
#include <filesystem>
#include <memory>
#include <string>

#include "project/store_backend.h"

namespace linkscope::project {

class PostgresStore final : public StoreBackend {
public:
    /// Creates the project's tables in the database the URI names, which must hold none yet.
    static std::unique_ptr<PostgresStore> create(const std::string& uri, const ProjectManifest& manifest);
    /// Opens the project in the database; a database of an older schema version is migrated.
    static std::unique_ptr<PostgresStore> open(const std::string& uri);
    ~PostgresStore() override;

    const std::filesystem::path& address() const noexcept override;
    int schemaVersion() const override;
    IntegrityReport checkIntegrity() const override;
    ProjectManifest manifest() const override;

    void putRun(const RunReference& run) override;
    std::vector<RunReference> runs() const override;
    bool removeRun(std::string_view name) override;

    void setSetting(std::string_view key, std::string_view value) override;
    std::optional<std::string> setting(std::string_view key) const override;
    std::vector<std::pair<std::string, std::string>> settings() const override;

    void putBlob(std::string_view name, std::span<const std::byte> data) override;
    std::optional<std::vector<std::byte>> blob(std::string_view name) const override;
    bool removeBlob(std::string_view name) override;
    void putBlobFromFile(std::string_view name, const std::filesystem::path& source) override;
    bool writeBlobToFile(std::string_view name, const std::filesystem::path& target) const override;
    std::vector<std::string> blobNames() const override;

    void insertDone(std::vector<Decision>& decisions, const std::function<void(std::size_t)>& beforeEach) override;
    std::optional<Decision> undoLatest() override;
    std::optional<Decision> redoEarliest() override;
    bool anyIn(DecisionState state) const override;
    std::vector<Decision> decisions(std::optional<DecisionState> only) const override;
    std::optional<Decision> currentDecision(const MentionKey& mention) const override;
    std::size_t decisionCount() const override;
    void importHistory(const std::vector<Decision>& history) override;
    void grant(std::string_view login, TeamRole role) override;
    bool encrypted() const override;
    std::string login() const override;
    std::optional<TeamRole> teamRole() const override;

    TeamModeSettings teamMode() const override;
    void setTeamMode(const TeamModeSettings& settings) override;
    std::vector<MentionKey> claimNext(std::span<const MentionKey> byGain, std::size_t count,
                                      std::chrono::seconds timeToLive) override;
    std::size_t renewClaims(std::chrono::seconds timeToLive) override;
    bool releaseClaim(const MentionKey& mention) override;
    std::vector<Claim> claims() const override;
    LiveChanges changesSince(std::int64_t revision) const override;
    bool connected() const override;
    void reconnect() override;
    void listenForChanges() override;
    int changeSocket() const override;
    bool takeChangeNotifications() override;

private:
    void insertDoneGuarded(std::vector<Decision>& decisions, const std::function<void(std::size_t)>& beforeEach,
                           const std::string& what, std::size_t& at);
    struct State;
    explicit PostgresStore(std::unique_ptr<State> state);
    std::unique_ptr<State> state_;
};

}  // namespace linkscope::project
