// PostgresStore: connecting, creating and opening the project's tables, the manifest, runs and
// settings. Blobs are in postgres_store_blobs.cpp, decisions in postgres_store_decisions.cpp;
// the tables and their migrations in postgres_schema.cpp.
#include "project/postgres_store.h"

#include "project/kb_filters_text.h"
#include "project/pg_transaction.h"
#include "project/postgres_schema.h"
#include "project/postgres_store_state.h"
#include "project/stored_path.h"

namespace linkscope::project {
namespace {

// A server has no project folder: every path is stored absolute.
std::string absoluteText(const std::filesystem::path& path) {
    if (path.empty()) return {};
    return std::filesystem::absolute(path).lexically_normal().generic_string();
}

std::filesystem::path storedAbsolute(const std::filesystem::path& address, const std::string& stored,
                                     const char* what) {
    try {
        const std::filesystem::path path = resolvedPath(stored, {});
        if (!path.empty() && path.is_relative())
            throw Error("\"" + stored + "\" is not absolute, as a server project's paths are");
        return path;
    } catch (const Error& e) {
        throw ParseError(address.string(), 0, std::string("damaged project: the ") + what + " path " + e.what());
    }
}

void writeManifest(PgConnection& db, const ProjectManifest& manifest) {
    db.exec("INSERT INTO project (id, name, description) VALUES (1, $1, $2)",
            {PgParam::text(manifest.name), PgParam::text(manifest.description)});
    db.exec("INSERT INTO knowledge_base (id, path, format, semantic_types, filters) VALUES (1, $1, $2, $3, $4)",
            {PgParam::text(absoluteText(manifest.knowledgeBase.path)),
             PgParam::text(kbFormatName(manifest.knowledgeBase.format)),
             PgParam::text(absoluteText(manifest.knowledgeBase.semanticTypes)),
             PgParam::text(filtersText(manifest.knowledgeBase))});
    std::int64_t position = 0;
    for (const auto& reference : manifest.corpora)
        db.exec(
            "INSERT INTO corpora (position, split, path, format, pmid_list) VALUES ($1, $2, $3, $4, $5)",
            {PgParam::integer(position++), PgParam::text(reference.split), PgParam::text(absoluteText(reference.path)),
             PgParam::text(corpusFormatName(reference.format)), PgParam::text(absoluteText(reference.pmidList))});
}

}  // namespace

PostgresStore::PostgresStore(std::unique_ptr<State> state) : state_(std::move(state)) {}
PostgresStore::~PostgresStore() = default;

std::unique_ptr<PostgresStore> PostgresStore::create(const std::string& uri, const ProjectManifest& manifest) {
    refusePasswordIn(uri);
    auto state = pgGuarded(uri, "connect to the PostgreSQL server", [&] {
        return std::unique_ptr<State>(new State{uri, PgConnection(uri)});
    });
    std::unique_ptr<PostgresStore> store(new PostgresStore(std::move(state)));
    PgConnection& db = store->state_->connection;
    pgGuarded(uri, "create the project", [&] {
        // A decision shown as saved must be on the server's disk, whatever the server's default.
        db.execScript("SET synchronous_commit = on");
        PgTransaction transaction(db);
        if (pgschema::holdsProject(db) || pgschema::version(db) > 0)
            throw Error(uri + ": cannot create the project: the database holds a project already");
        pgschema::migrate(db, uri);
        writeManifest(db, manifest);
        transaction.commit();
    });
    return store;
}

std::unique_ptr<PostgresStore> PostgresStore::open(const std::string& uri) {
    refusePasswordIn(uri);
    auto state = pgGuarded(uri, "connect to the PostgreSQL server", [&] {
        return std::unique_ptr<State>(new State{uri, PgConnection(uri)});
    });
    std::unique_ptr<PostgresStore> store(new PostgresStore(std::move(state)));
    PgConnection& db = store->state_->connection;
    pgGuarded(uri, "open the project", [&] {
        db.execScript("SET synchronous_commit = on");
        if (!pgschema::holdsProject(db))
            throw ParseError(uri, 0,
                             "not a Linkscope project (the database has no Linkscope tables; make one with "
                             "`linkscope-cli project create --store URI`)");
        const int version = pgschema::version(db);
        if (version > pgschema::latestVersion())
            throw ParseError(uri, 0,
                             "schema version " + std::to_string(version) + " is newer than this Linkscope (" +
                                 std::to_string(pgschema::latestVersion()) + "): open it with a newer Linkscope");
        if (version < pgschema::latestVersion()) {
            // Only a login that may create tables in the project's schema (its owner) brings it
            // up to date; anyone else would meet the server's bare "permission denied".
            if (!pgschema::mayMigrate(db))
                throw Error(uri + ": the project's schema is version " + std::to_string(version) +
                            " and this Linkscope works on version " + std::to_string(pgschema::latestVersion()) +
                            "; only the project's owner may bring it up to date: ask them to open it once with "
                            "this Linkscope, or open it with the Linkscope that made it");
            PgTransaction transaction(db);
            pgschema::migrate(db, uri);
            transaction.commit();
        }
    });
    store->manifest();  // a damaged manifest is refused now rather than at the first use
    return store;
}

bool PostgresStore::encrypted() const { return state_->connection.encrypted(); }

std::string PostgresStore::login() const { return state_->connection.user(); }

void PostgresStore::grant(std::string_view login, TeamRole role) {
    pgGuarded(state_->address, "give " + std::string(login) + " the role " + std::string(teamRoleName(role)), [&] {
        PgConnection& db = state_->connection;
        // The names quoted by the server (format's %I): a login is any text.
        const PgResult statement = db.exec("SELECT format('GRANT %I TO %I', current_database() || '_' || $1, $2::text)",
                                           {PgParam::text(teamRoleName(role)), PgParam::text(login)});
        db.execScript(statement.text(0, 0));
    });
}

const std::filesystem::path& PostgresStore::address() const noexcept { return state_->address; }

int PostgresStore::schemaVersion() const {
    return pgGuarded(state_->address, "read the schema version", [&] { return pgschema::version(state_->connection); });
}

IntegrityReport PostgresStore::checkIntegrity() const {
    IntegrityReport report;
    report.schemaVersion = schemaVersion();
    report.checksummed = true;
    (void)manifest();
    report.runs = runs().size();
    report.decisions = decisions(std::nullopt).size();  // every row checked, its checksum included
    report.blobs = blobNames().size();
    report.bytes = pgGuarded(state_->address, "read the database size", [&] {
        return static_cast<std::uintmax_t>(
            state_->connection.exec("SELECT pg_database_size(current_database())").integer(0, 0));
    });
    return report;
}

ProjectManifest PostgresStore::manifest() const {
    const std::string name = state_->address.string();
    return pgGuarded(state_->address, "read the project manifest", [&] {
        PgConnection& db = state_->connection;
        ProjectManifest manifest;
        manifest.file = state_->address;
        const PgResult project = db.exec("SELECT name, description FROM project WHERE id = 1");
        if (project.rows() != 1) throw ParseError(name, 0, "damaged project: the project row is missing");
        manifest.name = project.text(0, 0);
        manifest.description = project.text(0, 1);

        const PgResult kb = db.exec("SELECT path, format, semantic_types, filters FROM knowledge_base WHERE id = 1");
        if (kb.rows() != 1) throw ParseError(name, 0, "damaged project: the knowledge_base row is missing");
        manifest.knowledgeBase.path = storedAbsolute(state_->address, kb.text(0, 0), "knowledge base");
        try {
            manifest.knowledgeBase.format = kbFormatFromName(kb.text(0, 1));
        } catch (const Error& e) {
            throw ParseError(name, 0, std::string("damaged project: ") + e.what());
        }
        manifest.knowledgeBase.semanticTypes = storedAbsolute(state_->address, kb.text(0, 2), "semantic types");
        readFilters(kb.text(0, 3), manifest.knowledgeBase, name);

        const PgResult corpora = db.exec("SELECT split, path, format, pmid_list FROM corpora ORDER BY position");
        for (int row = 0; row < corpora.rows(); ++row) {
            CorpusReference reference;
            reference.split = corpora.text(row, 0);
            if (const auto problem = splitNameProblem(reference.split))
                throw ParseError(name, 0, "damaged project: " + *problem);
            reference.path = storedAbsolute(state_->address, corpora.text(row, 1), "corpus");
            const std::string format = corpora.text(row, 2);
            const auto known = corpusFormatFromName(format);
            if (!known) throw ParseError(name, 0, "damaged project: unknown corpus format \"" + format + "\"");
            reference.format = *known;
            reference.pmidList = storedAbsolute(state_->address, corpora.text(row, 3), "PMID list");
            manifest.corpora.push_back(std::move(reference));
        }
        return manifest;
    });
}

// --- runs ---------------------------------------------------------------------------------------

void PostgresStore::putRun(const RunReference& run) {
    pgGuarded(state_->address, "store the run \"" + run.name + "\"", [&] {
        // A replaced run keeps its place in the list (position is kept by the update).
        state_->connection.exec(
            "INSERT INTO runs (name, directory, preset, added) VALUES ($1, $2, $3, $4) "
            "ON CONFLICT (name) DO UPDATE SET directory = excluded.directory, preset = excluded.preset, "
            "added = excluded.added",
            {PgParam::text(run.name), PgParam::text(absoluteText(run.directory)), PgParam::text(run.preset),
             PgParam::text(utcTimestamp())});
    });
}

std::vector<RunReference> PostgresStore::runs() const {
    return pgGuarded(state_->address, "read the runs", [&] {
        std::vector<RunReference> runs;
        const PgResult rows =
            state_->connection.exec("SELECT name, directory, preset, added FROM runs ORDER BY position");
        for (int row = 0; row < rows.rows(); ++row)
            runs.push_back({rows.text(row, 0), storedAbsolute(state_->address, rows.text(row, 1), "run"),
                            rows.text(row, 2), rows.text(row, 3)});
        return runs;
    });
}

bool PostgresStore::removeRun(std::string_view name) {
    return pgGuarded(state_->address, "remove the run \"" + std::string(name) + "\"", [&] {
        return state_->connection.exec("DELETE FROM runs WHERE name = $1", {PgParam::text(name)}).affected() > 0;
    });
}

// --- settings -----------------------------------------------------------------------------------

void PostgresStore::setSetting(std::string_view key, std::string_view value) {
    pgGuarded(state_->address, "store the setting \"" + std::string(key) + "\"", [&] {
        state_->connection.exec(
            "INSERT INTO settings (key, value) VALUES ($1, $2) ON CONFLICT (key) DO UPDATE SET value = excluded.value",
            {PgParam::text(key), PgParam::text(value)});
    });
}

std::optional<std::string> PostgresStore::setting(std::string_view key) const {
    return pgGuarded(state_->address, "read the setting \"" + std::string(key) + "\"",
                     [&]() -> std::optional<std::string> {
                         const PgResult rows =
                             state_->connection.exec("SELECT value FROM settings WHERE key = $1", {PgParam::text(key)});
                         if (rows.rows() == 0) return std::nullopt;
                         return rows.text(0, 0);
                     });
}

std::vector<std::pair<std::string, std::string>> PostgresStore::settings() const {
    return pgGuarded(state_->address, "read the settings", [&] {
        std::vector<std::pair<std::string, std::string>> settings;
        // COLLATE "C": bytewise, as SQLite orders text, so that both backends list alike.
        const PgResult rows = state_->connection.exec("SELECT key, value FROM settings ORDER BY key COLLATE \"C\"");
        for (int row = 0; row < rows.rows(); ++row) settings.emplace_back(rows.text(row, 0), rows.text(row, 1));
        return settings;
    });
}

}  // namespace linkscope::project
