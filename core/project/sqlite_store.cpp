// SqliteStore: creating and opening the file, the manifest, runs and settings. Blobs are in
// sqlite_store_blobs.cpp, decisions in sqlite_store_decisions.cpp; the schema in project_schema.cpp.
#include "project/sqlite_store.h"

#include <SQLiteCpp/Statement.h>
#include <SQLiteCpp/Transaction.h>

#include <cerrno>
#include <cstdio>
#include <system_error>

#include "project/kb_filters_text.h"
#include "project/project_schema.h"
#include "project/sqlite_store_state.h"
#include "project/stored_path.h"

namespace linkscope::project {
namespace {

// The bytes a check reads: the database file and its WAL, whose committed pages SQLite reads
// in place of the file's.
std::uintmax_t fileBytes(const std::filesystem::path& file) {
    std::uintmax_t bytes = 0;
    for (const auto& path : {file, std::filesystem::path(file.string() + "-wal")}) {
        std::error_code ec;
        const auto size = std::filesystem::file_size(path, ec);
        if (!ec) bytes += size;
    }
    return bytes;
}

std::filesystem::path absoluteFile(const std::filesystem::path& file) {
    return std::filesystem::absolute(file).lexically_normal();
}

// SQLite's companions of a database file: a stale one beside a new project would be taken for
// the new file's journal (a WAL is replayed into the database it sits next to).
void removeCompanions(const std::filesystem::path& file) {
    for (const char* suffix : {"-wal", "-shm", "-journal"}) {
        std::error_code ignored;
        std::filesystem::remove(std::filesystem::path(file.string() + suffix), ignored);
    }
}

// Creates the empty file, failing when it exists, so that two creators cannot both think the
// file is theirs (an empty file is a valid, empty SQLite database).
void createExclusively(const std::filesystem::path& file) {
    std::error_code ec;
    if (std::filesystem::exists(file, ec))
        throw Error(file.string() + ": cannot create the project: the file already exists");
    std::FILE* handle = std::fopen(file.c_str(), "wbx");  // "x": O_EXCL
    if (handle == nullptr)
        throw Error(file.string() +
                    ": cannot create the project: " + std::error_code(errno, std::generic_category()).message());
    std::fclose(handle);
}

void bindText(SQLite::Statement& statement, int index, std::string_view text) {
    statement.bind(index, std::string(text));
}

void writeManifest(SQLite::Database& db, const ProjectManifest& manifest, const std::filesystem::path& folder) {
    SQLite::Statement project(db, "INSERT INTO project (id, name, description) VALUES (1, ?, ?)");
    project.bind(1, manifest.name);
    project.bind(2, manifest.description);
    project.exec();

    SQLite::Statement kb(
        db, "INSERT INTO knowledge_base (id, path, format, semantic_types, filters) VALUES (1, ?, ?, ?, ?)");
    kb.bind(1, storedPath(manifest.knowledgeBase.path, folder));
    kb.bind(2, kbFormatName(manifest.knowledgeBase.format));
    kb.bind(3, storedPath(manifest.knowledgeBase.semanticTypes, folder));
    kb.bind(4, filtersText(manifest.knowledgeBase));
    kb.exec();

    SQLite::Statement corpus(db,
                             "INSERT INTO corpora (position, split, path, format, pmid_list) VALUES (?, ?, ?, ?, ?)");
    std::int64_t position = 0;
    for (const auto& reference : manifest.corpora) {
        corpus.bind(1, position++);
        corpus.bind(2, reference.split);
        corpus.bind(3, storedPath(reference.path, folder));
        corpus.bind(4, std::string(corpusFormatName(reference.format)));
        corpus.bind(5, reference.pmidList.empty() ? std::string() : storedPath(reference.pmidList, folder));
        corpus.exec();
        corpus.reset();
    }
}

// A path read back from the project file, resolved against its folder; one that cannot be
// makes the project damaged, named by its file and the path's field.
std::filesystem::path projectPath(const std::filesystem::path& file, const std::filesystem::path& folder,
                                  const std::string& stored, const char* what) {
    try {
        return resolvedPath(stored, folder);
    } catch (const Error& e) {
        throw ParseError(file.string(), 0, std::string("damaged project: the ") + what + " path " + e.what());
    }
}

}  // namespace

SqliteStore::SqliteStore(std::unique_ptr<State> state) : state_(std::move(state)) {}
SqliteStore::~SqliteStore() = default;

std::unique_ptr<SqliteStore> SqliteStore::create(const std::filesystem::path& file, const ProjectManifest& manifest) {
    const auto path = absoluteFile(file);
    createExclusively(path);
    removeCompanions(path);
    try {
        auto state = guarded(path, "create the project", [&] {
            auto created = std::make_unique<State>(
                State{path, path.parent_path(),
                      SQLite::Database(path.string(), SQLite::OPEN_READWRITE, schema::kBusyTimeoutMs)});
            schema::configure(created->db);  // WAL from the first write on
            SQLite::Transaction transaction(created->db, SQLite::TransactionBehavior::IMMEDIATE);
            schema::create(created->db);
            writeManifest(created->db, manifest, created->folder);
            transaction.commit();
            created->version = schema::kVersion;
            return created;
        });
        return std::unique_ptr<SqliteStore>(new SqliteStore(std::move(state)));
    } catch (...) {
        // The file is ours (createExclusively made it): leave nothing half-made behind.
        std::error_code ignored;
        std::filesystem::remove(path, ignored);
        removeCompanions(path);
        throw;
    }
}

std::unique_ptr<SqliteStore> SqliteStore::open(const std::filesystem::path& file, OpenCheck check) {
    const auto path = absoluteFile(file);
    const std::string name = path.string();
    std::error_code ec;
    const auto status = std::filesystem::status(path, ec);
    if (!std::filesystem::exists(status)) throw Error(name + ": no such project file");
    if (std::filesystem::is_directory(status)) throw Error(name + ": is a folder, not a project file");
    // SQLite would open a FIFO or a device as it opens a file, and wait on its first read.
    if (!std::filesystem::is_regular_file(status))
        throw ParseError(name, 0, "not a regular file (a FIFO, device or socket), not a project file");
    // SQLite takes an empty file for an empty database; say what it is instead.
    if (std::filesystem::file_size(path, ec) == 0 && !ec)
        throw ParseError(name, 0, "not a Linkscope project (the file is empty)");

    auto state = guarded(path, "open the project", [&] {
        return std::make_unique<State>(
            State{path, path.parent_path(), SQLite::Database(name, SQLite::OPEN_READWRITE, schema::kBusyTimeoutMs)});
    });
    schema::check(state->db, name);  // before configure(): a foreign file is not written to
    const bool full = check == OpenCheck::Full || fileBytes(path) < kFullCheckOnOpenBelowBytes;
    schema::checkPages(state->db, name, full ? schema::Depth::Full : schema::Depth::Quick);
    state->version = schema::version(state->db);
    guarded(path, "open the project", [&] { schema::configure(state->db); });
    std::unique_ptr<SqliteStore> store(new SqliteStore(std::move(state)));
    store->manifest();  // a damaged manifest is refused now rather than at the first use
    return store;
}

const std::filesystem::path& SqliteStore::address() const noexcept { return state_->file; }

int SqliteStore::schemaVersion() const {
    return guarded(state_->file, "read the schema version", [&] { return schema::version(state_->db); });
}

IntegrityReport SqliteStore::checkIntegrity() const {
    IntegrityReport report;
    report.bytes = fileBytes(state_->file);
    schema::checkPages(state_->db, state_->file.string(), schema::Depth::Full);
    report.schemaVersion = schemaVersion();
    report.checksummed = report.schemaVersion >= schema::kChecksumVersion;
    (void)manifest();
    report.runs = runs().size();
    report.decisions = decisions(std::nullopt).size();  // every row checked, its checksum included
    report.blobs = guarded(state_->file, "count the blobs", [&] {
        SQLite::Statement query(state_->db, "SELECT count(*) FROM blobs");
        query.executeStep();
        return static_cast<std::size_t>(query.getColumn(0).getInt64());
    });
    return report;
}

ProjectManifest SqliteStore::manifest() const {
    const std::string name = state_->file.string();
    return guarded(state_->file, "read the project manifest", [&] {
        ProjectManifest manifest;
        manifest.file = state_->file;
        SQLite::Statement project(state_->db, "SELECT name, description FROM project WHERE id = 1");
        if (!project.executeStep()) throw ParseError(name, 0, "damaged project: the project row is missing");
        manifest.name = project.getColumn(0).getString();
        manifest.description = project.getColumn(1).getString();

        // A version-1 file has neither filters nor PMID lists: read as it is, never rewritten.
        const bool version2 = schema::version(state_->db) >= 2;
        SQLite::Statement kb(state_->db,
                             version2 ? "SELECT path, format, semantic_types, filters FROM knowledge_base WHERE id = 1"
                                      : "SELECT path, format, semantic_types FROM knowledge_base WHERE id = 1");
        if (!kb.executeStep()) throw ParseError(name, 0, "damaged project: the knowledge_base row is missing");
        // The operating system reads a path up to its first NUL: "a.txt\0b" would open a.txt.
        const auto storedPathOf = [&](const SQLite::Column& column, const char* what) {
            return projectPath(state_->file, state_->folder, column.getString(), what);
        };
        manifest.knowledgeBase.path = storedPathOf(kb.getColumn(0), "knowledge base");
        try {
            manifest.knowledgeBase.format = kbFormatFromName(kb.getColumn(1).getString());
        } catch (const Error& e) {
            throw ParseError(name, 0, std::string("damaged project: ") + e.what());
        }
        manifest.knowledgeBase.semanticTypes = storedPathOf(kb.getColumn(2), "semantic types");
        if (version2) readFilters(kb.getColumn(3).getString(), manifest.knowledgeBase, name);

        SQLite::Statement corpora(state_->db,
                                  version2 ? "SELECT split, path, format, pmid_list FROM corpora ORDER BY position"
                                           : "SELECT split, path, format FROM corpora ORDER BY position");
        while (corpora.executeStep()) {
            CorpusReference reference;
            reference.split = corpora.getColumn(0).getString();
            if (const auto problem = splitNameProblem(reference.split))
                throw ParseError(name, 0, "damaged project: " + *problem);
            reference.path = storedPathOf(corpora.getColumn(1), "corpus");
            const std::string format = corpora.getColumn(2).getString();
            const auto known = corpusFormatFromName(format);
            if (!known || (!version2 && *known != CorpusFormat::PubTator))
                throw ParseError(name, 0, "damaged project: unknown corpus format \"" + format + "\"");
            reference.format = *known;
            if (version2)
                if (const std::string list = corpora.getColumn(3).getString(); !list.empty())
                    reference.pmidList = storedPathOf(corpora.getColumn(3), "PMID list");
            manifest.corpora.push_back(std::move(reference));
        }
        return manifest;
    });
}

// --- runs ---------------------------------------------------------------------------------------

void SqliteStore::putRun(const RunReference& run) {
    if (run.name.empty()) throw Error(state_->file.string() + ": cannot store a run without a name");
    guarded(state_->file, "store the run \"" + run.name + "\"", [&] {
        // A replaced run keeps its place in the list (position is the rowid, kept by UPDATE).
        SQLite::Statement upsert(state_->db,
                                 "INSERT INTO runs (name, directory, preset, added) VALUES (?, ?, ?, ?) "
                                 "ON CONFLICT (name) DO UPDATE SET directory = excluded.directory, "
                                 "preset = excluded.preset, added = excluded.added");
        upsert.bind(1, run.name);
        upsert.bind(2, storedPath(run.directory, state_->folder));
        upsert.bind(3, run.preset);
        upsert.bind(4, utcTimestamp());
        upsert.exec();
    });
}

std::vector<RunReference> SqliteStore::runs() const {
    return guarded(state_->file, "read the runs", [&] {
        std::vector<RunReference> runs;
        SQLite::Statement query(state_->db, "SELECT name, directory, preset, added FROM runs ORDER BY position");
        while (query.executeStep())
            runs.push_back({query.getColumn(0).getString(),
                            projectPath(state_->file, state_->folder, query.getColumn(1).getString(), "run"),
                            query.getColumn(2).getString(), query.getColumn(3).getString()});
        return runs;
    });
}

bool SqliteStore::removeRun(std::string_view name) {
    return guarded(state_->file, "remove the run \"" + std::string(name) + "\"", [&] {
        SQLite::Statement remove(state_->db, "DELETE FROM runs WHERE name = ?");
        bindText(remove, 1, name);
        return remove.exec() > 0;
    });
}

// --- settings -----------------------------------------------------------------------------------

void SqliteStore::setSetting(std::string_view key, std::string_view value) {
    guarded(state_->file, "store the setting \"" + std::string(key) + "\"", [&] {
        SQLite::Statement upsert(state_->db,
                                 "INSERT INTO settings (key, value) VALUES (?, ?) "
                                 "ON CONFLICT (key) DO UPDATE SET value = excluded.value");
        bindText(upsert, 1, key);
        bindText(upsert, 2, value);
        upsert.exec();
    });
}

std::optional<std::string> SqliteStore::setting(std::string_view key) const {
    return guarded(state_->file, "read the setting \"" + std::string(key) + "\"", [&]() -> std::optional<std::string> {
        SQLite::Statement query(state_->db, "SELECT value FROM settings WHERE key = ?");
        bindText(query, 1, key);
        if (!query.executeStep()) return std::nullopt;
        return query.getColumn(0).getString();
    });
}

std::vector<std::pair<std::string, std::string>> SqliteStore::settings() const {
    return guarded(state_->file, "read the settings", [&] {
        std::vector<std::pair<std::string, std::string>> settings;
        SQLite::Statement query(state_->db, "SELECT key, value FROM settings ORDER BY key");
        while (query.executeStep())
            settings.emplace_back(query.getColumn(0).getString(), query.getColumn(1).getString());
        return settings;
    });
}

void SqliteStore::grant(std::string_view login, TeamRole role) {
    throw Error(state_->file.string() + ": cannot give " + std::string(login) + " the role " +
                std::string(teamRoleName(role)) +
                ": a project file has no roles (anyone who can write the file can write any decision); put the "
                "project on a PostgreSQL server (linkscope-cli project copy FILE URI) for a team with roles");
}

bool SqliteStore::encrypted() const { return false; }

std::string SqliteStore::login() const { return {}; }

}  // namespace linkscope::project
