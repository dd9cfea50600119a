#include "project/project_schema.h"

#include <SQLiteCpp/Exception.h>
#include <SQLiteCpp/Statement.h>

#include <array>
#include <charconv>
#include <optional>

#include "util/error.h"

namespace linkscope::project::schema {
namespace {

// Version 3 (version 1 lacked corpora.pmid_list and knowledge_base.filters, version 2
// decisions.checksum). Kinds and states are stored by name, and timestamps as ISO 8601 text, so
// that the file reads in the sqlite3 shell without Linkscope. Paths are relative to the project file's
// folder when they lie below it (see stored_path.h). "end" is quoted: it is an SQL keyword.
constexpr const char* kSchemaSql = R"sql(
CREATE TABLE meta (
    key   TEXT PRIMARY KEY NOT NULL,
    value TEXT NOT NULL);
CREATE TABLE project (
    id          INTEGER PRIMARY KEY CHECK (id = 1),
    name        TEXT NOT NULL,
    description TEXT NOT NULL);
CREATE TABLE knowledge_base (
    id             INTEGER PRIMARY KEY CHECK (id = 1),
    path           TEXT NOT NULL,
    format         TEXT NOT NULL,
    semantic_types TEXT NOT NULL,
    filters        TEXT NOT NULL DEFAULT '');
CREATE TABLE corpora (
    position  INTEGER PRIMARY KEY,
    split     TEXT NOT NULL,
    path      TEXT NOT NULL,
    format    TEXT NOT NULL,
    pmid_list TEXT NOT NULL DEFAULT '');
CREATE TABLE runs (
    position  INTEGER PRIMARY KEY,
    name      TEXT NOT NULL UNIQUE,
    directory TEXT NOT NULL,
    preset    TEXT NOT NULL,
    added     TEXT NOT NULL);
CREATE TABLE settings (
    key   TEXT PRIMARY KEY NOT NULL,
    value TEXT NOT NULL);
CREATE TABLE blobs (
    name    TEXT PRIMARY KEY NOT NULL,
    data    BLOB NOT NULL,
    updated TEXT NOT NULL);
CREATE TABLE decisions (
    id            INTEGER PRIMARY KEY,
    split         TEXT NOT NULL CHECK (split <> ''),
    document      TEXT NOT NULL CHECK (document <> ''),
    start         INTEGER NOT NULL CHECK (start >= 0),
    "end"         INTEGER NOT NULL CHECK ("end" > start),
    mention_text  TEXT NOT NULL,
    kind          TEXT NOT NULL CHECK (kind IN ('accept', 'correct', 'reject', 'nil', 'skip')),
    previous_link TEXT NOT NULL,
    new_link      TEXT NOT NULL,
    curator       TEXT NOT NULL,
    timestamp     TEXT NOT NULL,
    state         TEXT NOT NULL CHECK (state IN ('done', 'undone', 'discarded')),
    -- decision_checksum.h; nullable only because an upgraded file adds the column to its rows.
    checksum      INTEGER);
-- currentDecision(): the decisions on one mention.
CREATE INDEX decisions_by_mention ON decisions (split, document, start, "end");
-- undo() / redo() / doneDecisions(): the latest done, the earliest undone, all done in order.
CREATE INDEX decisions_by_state ON decisions (state, id);
)sql";

constexpr std::array<const char*, 8> kTables{"meta", "project",  "knowledge_base", "corpora",
                                             "runs", "settings", "blobs",          "decisions"};

std::optional<std::string> metaValue(SQLite::Database& db, const char* key) {
    SQLite::Statement query(db, "SELECT value FROM meta WHERE key = ?");
    query.bind(1, key);
    if (!query.executeStep()) return std::nullopt;
    return query.getColumn(0).getString();
}

bool hasColumn(SQLite::Database& db, const char* table, const char* column) {
    SQLite::Statement query(db, "SELECT 1 FROM pragma_table_info(?) WHERE name = ?");
    query.bind(1, table);
    query.bind(2, column);
    return query.executeStep();
}

bool hasTable(SQLite::Database& db, const char* table) {
    SQLite::Statement query(db, "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?");
    query.bind(1, table);
    return query.executeStep();
}

}  // namespace

void create(SQLite::Database& db) {
    db.exec(kSchemaSql);
    SQLite::Statement insert(db, "INSERT INTO meta (key, value) VALUES (?, ?)");
    const std::array<std::pair<const char*, std::string>, 2> rows{{
        {"format", kFormatName},
        {"schema_version", std::to_string(kVersion)},
    }};
    for (const auto& [key, value] : rows) {
        insert.bind(1, key);
        insert.bind(2, value);
        insert.exec();
        insert.reset();
    }
}

int version(SQLite::Database& db) {
    const std::string text = metaValue(db, "schema_version").value_or("");
    int number = 0;
    std::from_chars(text.data(), text.data() + text.size(), number);
    return number;
}

void check(SQLite::Database& db, const std::string& fileName) {
    const auto notOurs = [&fileName](const std::string& why) {
        return ParseError(fileName, 0, "not a Linkscope project (" + why + ")");
    };
    try {
        if (!hasTable(db, "meta")) throw notOurs("an SQLite database without a meta table");
        const auto format = metaValue(db, "format");
        if (format != kFormatName)
            throw notOurs(format ? "its format is \"" + *format + "\"" : std::string("its meta table names no format"));
        const std::string version = metaValue(db, "schema_version").value_or("");
        int number = 0;
        const auto [end, error] = std::from_chars(version.data(), version.data() + version.size(), number);
        if (error != std::errc{} || end != version.data() + version.size() || number < 1)
            throw notOurs("its schema version \"" + version + "\" is not a positive number");
        if (number > kVersion)
            throw ParseError(fileName, 0,
                             "schema version " + version + " is newer than this Linkscope (" +
                                 std::to_string(kVersion) + "): open it with a newer Linkscope");
        for (const char* table : kTables)
            if (!hasTable(db, table)) throw notOurs(std::string("the table ") + table + " is missing");
        if (number >= kChecksumVersion && !hasColumn(db, "decisions", "checksum"))
            throw ParseError(fileName, 0, "damaged project: the decisions table lacks its checksum column");
    } catch (const SQLite::Exception& e) {
        // SQLite reads nothing from random bytes ("file is not a database") nor from a file
        // shorter than its header says ("database disk image is malformed").
        throw ParseError(fileName, 0,
                         std::string("not a Linkscope project, or a damaged one (SQLite: ") + e.what() + ")");
    }
}

void checkPages(SQLite::Database& db, const std::string& fileName, Depth depth) {
    // A page damaged on disk (a bad sector, a copy cut short, a tool that wrote into the file)
    // may leave SQLite able to open it and then answer from a broken index: export would apply
    // the wrong decisions. Both checks read every page once; their first problems go into the
    // message.
    try {
        SQLite::Statement check(db, depth == Depth::Full ? "PRAGMA integrity_check(3)" : "PRAGMA quick_check(3)");
        std::string problems;
        while (check.executeStep())
            if (const std::string row = check.getColumn(0).getString(); row != "ok")
                problems += (problems.empty() ? "" : "; ") + row;
        if (!problems.empty())
            throw ParseError(
                fileName, 0,
                "damaged project: SQLite's check of the file failed (" + problems +
                    "); restore it from a copy (the decisions log export of an earlier copy holds every decision)");
    } catch (const SQLite::Exception& e) {
        throw ParseError(fileName, 0,
                         std::string("not a Linkscope project, or a damaged one (SQLite: ") + e.what() + ")");
    }
}

void upgradeTables(SQLite::Database& db, int fromVersion) {
    if (fromVersion >= kVersion) return;
    if (fromVersion < 2) {
        // Version 2's columns, with the values a version-1 file meant (no list, no filter).
        db.exec("ALTER TABLE corpora ADD COLUMN pmid_list TEXT NOT NULL DEFAULT ''");
        db.exec("ALTER TABLE knowledge_base ADD COLUMN filters TEXT NOT NULL DEFAULT ''");
    }
    if (fromVersion < kChecksumVersion) db.exec("ALTER TABLE decisions ADD COLUMN checksum INTEGER");
    SQLite::Statement raise(db, "UPDATE meta SET value = ? WHERE key = 'schema_version'");
    raise.bind(1, std::to_string(kVersion));
    raise.exec();
}

void configure(SQLite::Database& db) {
    // foreign_keys and synchronous are per connection. FULL: a commit returns only once the WAL
    // is on disk, which is what makes a saved decision survive a crash or a power cut.
    db.exec("PRAGMA foreign_keys = ON");
    db.exec("PRAGMA synchronous = FULL");
    // WAL: readers never block the writer and a commit appends to one file. The mode stays
    // with the file; a file system that cannot share memory for WAL keeps the rollback
    // journal, which is as durable with synchronous = FULL, so the answer is not checked.
    db.exec("PRAGMA journal_mode = WAL");
    // Two connections may write (the GUI records a decision while a worker stores a datastore
    // built from the same project): the second waits for the first's commit instead of failing
    // with "database is locked" at once.
    db.setBusyTimeout(10000);
}

}  // namespace linkscope::project::schema
