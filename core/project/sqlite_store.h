#pragma once
// PRIVATE to the project store: the project as one SQLite file (WAL journal, synchronous=FULL),
// the default backend. What it promises is ProjectStore's contract (project_store.h): durable on
// return, the file checked on open (SQLite's integrity_check or quick_check by size), every
// decision row checksummed. The schema and its versions are in project_schema.h.
#include <filesystem>
#include <memory>

#include "project/store_backend.h"

namespace linkscope::project {

class SqliteStore final : public StoreBackend {
public:
    /// Creates the file, failing when it exists; nothing is left behind on failure.
    static std::unique_ptr<SqliteStore> create(const std::filesystem::path& file, const ProjectManifest& manifest);
    static std::unique_ptr<SqliteStore> open(const std::filesystem::path& file, OpenCheck check);
    ~SqliteStore() override;

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
    TeamModeSettings teamMode() const override;
    void setTeamMode(const TeamModeSettings& settings) override;
    std::string login() const override;

private:
    struct State;
    explicit SqliteStore(std::unique_ptr<State> state);
    std::unique_ptr<State> state_;
};

}  // namespace linkscope::project
