#pragma once
// The project store: what a project refers to (corpora, knowledge base, runs), its settings,
// named binary blobs (the kNN datastore built from the training mentions), and every curation
// decision with its history. It lives in one of two backends, chosen by the address given:
//  - a file path: one SQLite database (WAL journal) the user can copy; the default, offline;
//  - a `postgresql://` or `postgres://` URI (libpq's connection string): a database on a
//    PostgreSQL server, shared by a team (postgres_store.h). A URI that holds a password is
//    refused: libpq reads it from ~/.pgpass, PGPASSFILE or a service file instead, so that it
//    never appears on a command line, in the project or in settings. A build without libpq
//    refuses every URI, saying so.
// Both keep the same contract, described below for the file; where the server differs, it says.
//
// Durability is the point: record(), undo() and redo() return only after their transaction has
// committed with synchronous=FULL, so a decision the GUI shows as saved survives a SIGKILL or a
// power cut at any later moment. Undo and redo are state changes of stored decisions (not
// deletions), so they work the same after reopening the project.
//
// Paths of the referenced files are stored relative to the project file's folder when they lie
// below it, absolute otherwise, and returned absolute.
//
// Thread safety: one ProjectStore object may be used by one thread at a time (the GUI calls it
// from its own thread; each call takes a few milliseconds, a commit's fsync included). Two
// objects, in this process or another, may open the same file: SQLite's locks order their
// writes, and a writer waits up to 5 s for another's lock before failing with an Error.
// A moved-from ProjectStore may only be assigned to or destroyed.
//
// Damage: SQLite pages carry no checksum, so the store checks the file itself. open() runs
// SQLite's full integrity_check on a file below kFullCheckOnOpenBelowBytes and quick_check on a
// larger one; checkIntegrity() runs the full check on demand (export, merge, agreement and
// `linkscope-cli project check` call it). Every decision row carries a checksum of its fields
// (decision_checksum.h), verified whenever the row is read: a changed byte in a link is refused,
// naming the file and the row, never returned.
//
// Errors: every failure throws linkscope::Error (a ParseError for a file that is not a readable
// Linkscope project) whose message names the project file or address; no SQLite or libpq type
// or exception leaves the store.
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "project/curation_decision.h"
#include "project/project_manifest.h"
#include "project/team_work.h"

namespace linkscope::project {

/// A trained run (train/trainer.h's output directory) or a model directory known to the project.
struct RunReference {
    std::string name;                 ///< unique within the project
    std::filesystem::path directory;  ///< absolute
    std::string preset;               ///< "biosyn", "triplet", ... (empty for a bare model)
    std::string added;                ///< UTC timestamp, set by the store
};

/// Below this size (the file and its WAL together), open() runs SQLite's full integrity_check;
/// above it, quick_check. Both read every page; the full check also looks every index entry up
/// against its table row, so it costs more, growing with the rows. Below this size that stays
/// short enough for every open (the GUI, eval --project); a larger file (most of its bytes are
/// then a kNN datastore blob, or a very long history) gets quick_check at open, and the full
/// check where a command is about to export, merge or compare what its decisions say
/// (checkIntegrity()).
inline constexpr std::uintmax_t kFullCheckOnOpenBelowBytes = std::uintmax_t{64} << 20;

/// How much of the file open() checks: by its size (kFullCheckOnOpenBelowBytes), or in full.
enum class OpenCheck { BySize, Full };

/// What checkIntegrity() found in a sound file.
struct IntegrityReport {
    int schemaVersion = 0;
    std::size_t decisions = 0;  ///< rows read, each checked
    bool checksummed = false;   ///< false in a file of schema version 1 or 2 (rows without checksum)
    std::size_t runs = 0;
    std::size_t blobs = 0;
    std::uintmax_t bytes = 0;  ///< the file and its WAL
};

/// What a login may do in a project on a server (database roles, enforced by the server with
/// row-level security): a curator records, undoes and redoes only their own decisions; an
/// adjudicator may also change the state of anyone's; a reviewer reads everything and writes
/// nothing. A project file has no roles.
enum class TeamRole { Curator, Adjudicator, Reviewer };
std::string_view teamRoleName(TeamRole role) noexcept;  ///< "curator", "adjudicator", "reviewer"
std::optional<TeamRole> parseTeamRole(std::string_view name) noexcept;

class StoreBackend;

class ProjectStore {
public:
    /// Whether `address` names a database on a server (a `postgresql://` or `postgres://` URI)
    /// rather than a project file.
    static bool isServerAddress(std::string_view address) noexcept;

    /// Creates a new project from a manifest (its name, description, KB and corpora): a file, or
    /// the tables in an empty server database. Throws Error when the file exists, the database
    /// holds a project already, or either cannot be created.
    static ProjectStore create(const std::filesystem::path& file, const ProjectManifest& manifest);
    /// Opens an existing project. Throws Error naming the file (address) when it is missing, not
    /// a Linkscope project, of a newer schema version, or damaged (SQLite's check, see above).
    static ProjectStore open(const std::filesystem::path& file, OpenCheck check = OpenCheck::BySize);

    /// SQLite's full integrity_check, then the manifest, the runs and every decision row read
    /// and checked (fields and checksum). Throws ParseError naming the file (and the row) at the
    /// first damage; reads only.
    IntegrityReport checkIntegrity() const;
    int schemaVersion() const;

    ProjectStore(ProjectStore&&) noexcept;
    ProjectStore& operator=(ProjectStore&&) noexcept;
    ~ProjectStore();

    /// The project file, absolute; for a server project its address (the URI as given).
    const std::filesystem::path& file() const noexcept;
    bool onServer() const noexcept;

    /// The manifest the project was created from, paths absolute (`file` is the project file).
    ProjectManifest manifest() const;

    // --- runs -------------------------------------------------------------------------------
    /// Adds or replaces (by name) a run. A replaced run keeps its place in runs(); `added` is set
    /// to now either way. Error for an empty name.
    void putRun(const RunReference& run);
    std::vector<RunReference> runs() const;  ///< in order of addition
    bool removeRun(std::string_view name);

    // --- settings and blobs --------------------------------------------------------------------
    void setSetting(std::string_view key, std::string_view value);
    std::optional<std::string> setting(std::string_view key) const;
    /// Every setting, sorted by key.
    std::vector<std::pair<std::string, std::string>> settings() const;
    /// Named binary data (replaced as a whole, in one transaction).
    void putBlob(std::string_view name, std::span<const std::byte> data);
    std::optional<std::vector<std::byte>> blob(std::string_view name) const;
    bool removeBlob(std::string_view name);
    /// putBlob() from a file's content, streamed in chunks (a datastore of hundreds of MB is
    /// never held in memory twice). Error when the file cannot be read or exceeds SQLite's
    /// limit for one value (1,000,000,000 bytes in the default build).
    void putBlobFromFile(std::string_view name, const std::filesystem::path& source);
    /// Writes a blob to a file (AtomicFileWriter), streamed in chunks; false (no file written)
    /// when there is no blob of that name.
    bool writeBlobToFile(std::string_view name, const std::filesystem::path& target) const;
    /// Every blob's name, sorted bytewise.
    std::vector<std::string> blobNames() const;

    // --- decisions -----------------------------------------------------------------------------
    /// Stores a new decision (state done), filling id and, when empty, timestamp; every undone
    /// decision becomes discarded (a new decision cuts the redo stack, as QUndoStack does).
    /// Returns the decision as stored, once committed.
    Decision record(Decision decision);
    /// Records the decisions, in their order, as record() does, in ONE transaction: once it
    /// returns, all are durable; when anything fails before (a decision refused, an exception
    /// from beforeEach such as Cancelled, a kill, a power cut), none is recorded and the file is
    /// as it was, its redo stack included. beforeEach(i) is called before the i-th is written.
    /// Every decision is validated before anything is written. Nothing happens for none.
    std::vector<Decision> recordAll(std::vector<Decision> decisions,
                                    const std::function<void(std::size_t)>& beforeEach = {});
    /// Undoes the latest done decision; nullopt when there is none.
    std::optional<Decision> undo();
    /// Redoes the earliest undone decision; nullopt when there is none.
    std::optional<Decision> redo();
    bool canUndo() const;
    bool canRedo() const;

    /// Every decision in id order, whatever its state (the history).
    std::vector<Decision> decisions() const;
    /// The decisions in effect (state done), in id order.
    std::vector<Decision> doneDecisions() const;
    /// The latest done decision on a mention.
    std::optional<Decision> currentDecision(const MentionKey& mention) const;
    std::size_t decisionCount() const;  ///< all states
    /// Stores the history of another project as it is (ids, states, curators and timestamps
    /// kept), in one transaction, for a copy (project_copy.h). Every decision is validated
    /// first. Error when this project holds decisions already.
    void importHistory(const std::vector<Decision>& history);

    // --- a team on a server ------------------------------------------------------------------
    /// Gives a server login a role in this project (its database); needs the right to grant the
    /// project's roles (the project's owner, or CREATEROLE). Error for a project file.
    void grant(std::string_view login, TeamRole role);
    /// Whether the connection to the server is encrypted (SSL/TLS, as libpq's sslmode asked);
    /// false for a file.
    bool encrypted() const;
    /// The server login this client works as (decisions it records name it); empty for a file.
    std::string login() const;
    /// This login's role in the project, as the server's role memberships say (the highest of
    /// adjudicator, curator, reviewer); nullopt for a file, and for a login the roles do not bind
    /// (the project's owner, a superuser).
    std::optional<TeamRole> teamRole() const;

    // --- a team's work (team_work.h) --------------------------------------------------------
    /// The mode: stored in a file as on a server (a file's default and a server's is shared).
    TeamModeSettings teamMode() const;
    /// Sets the mode; on a server only the project's owner may (the server refuses others).
    /// Error for an overlap share outside [0, 1].
    void setTeamMode(const TeamModeSettings& settings);
    /// Claims, for this login, the first `count` mentions of `byGain` (the review queue's order,
    /// highest expected gain first) that are free: not claimed by as many others as the mention
    /// may have (claimCapacity) and not decided by this login. A mention this login holds
    /// already is renewed and counts. Each claim expires after timeToLive. Returns the
    /// mentions claimed, in byGain's order. Error for a project file (no team).
    std::vector<MentionKey> claimNext(std::span<const MentionKey> byGain, std::size_t count,
                                      std::chrono::seconds timeToLive);
    /// Extends this login's unexpired claims to now + timeToLive; how many.
    std::size_t renewClaims(std::chrono::seconds timeToLive);
    /// Gives up this login's claim on a mention (a decided mention's lasting claim stays).
    bool releaseClaim(const MentionKey& mention);
    /// The unexpired claims of everyone.
    std::vector<Claim> claims() const;

    // --- a live project on a server ----------------------------------------------------------
    /// The decisions that changed above `revision` (0: all), as this login may read them, and
    /// the highest revision: the next call's start. Error for a project file.
    LiveChanges changesSince(std::int64_t revision) const;
    /// Whether the connection to the server stands, seen without a statement and without
    /// blocking (the socket is read); always true for a file.
    bool connected() const;
    /// Connects again (same address, login and session settings, LISTEN included) and returns
    /// what changed above `sinceRevision` while the client was away. Throws StoreDisconnected
    /// while the server cannot be reached. Nothing for a file.
    LiveChanges reconnect(std::int64_t sinceRevision);
    /// LISTENs on kChangeChannel: the server notifies every committed change of a decision.
    void listenForChanges();
    /// The connection's socket, for an event loop to watch after listenForChanges(); -1 for a
    /// file. Readable means: call takeChangeNotifications().
    int changeSocket() const;
    /// Reads what arrived on the socket, without blocking; true when a change was announced
    /// (read changesSince() then). StoreDisconnected when the connection is lost.
    bool takeChangeNotifications();

private:
    explicit ProjectStore(std::unique_ptr<StoreBackend> backend);
    std::unique_ptr<StoreBackend> backend_;
};

/// Now, as the store writes timestamps ("2026-11-22T07:30:12.123Z").
std::string utcTimestamp();
/// A timestamp as utcTimestamp writes it, as system time; unset when the text is not one.
std::optional<std::chrono::system_clock::time_point> parseUtcTimestamp(const std::string& text);

}  // namespace linkscope::project
