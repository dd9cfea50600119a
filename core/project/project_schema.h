#pragma once
// PRIVATE to the project store (project_store.cpp and its helpers): the SQL schema of a project
// file, the connection settings, and the checks that tell a Linkscope project from any other
// file. Includes SQLiteCpp, so no public header may include this one.
#include <SQLiteCpp/Database.h>

#include <string>

namespace linkscope::project::schema {

/// What the meta table holds under "format"; a file without it is not ours.
inline constexpr const char* kFormatName = "linkscope-project";
/// The schema this build writes and reads; a file of a higher version is refused (an older
/// Linkscope must not write into tables it does not know). Version 2 adds corpora.pmid_list
/// (MedMentions' splits) and knowledge_base.filters (UMLS filters) and allows the corpus formats
/// bioc and brat: a version-1 reader would load the whole corpus and the unfiltered KB. Version 3
/// adds decisions.checksum (decision_checksum.h), verified on every read: a version-2 reader
/// would write rows without one, which version 3 refuses.
///
/// Files of versions 1 and 2 are read as they are (no list, no filter, decision rows without a
/// checksum, trusted like before: nothing can tell their damage now) and opening one does not
/// rewrite it, so that the Linkscope that made it can still open it after it was only read or
/// exported. The first write of a decision (record, undo, redo, merge) upgrades the file to
/// version 3 inside that write's transaction: the missing columns added, every existing row
/// checksummed (each read and checked first), the version raised; a kill leaves the old file.
inline constexpr int kVersion = 3;
/// The first version whose decision rows carry a checksum.
inline constexpr int kChecksumVersion = 3;
/// How long a statement waits for a lock held by another connection (a second Linkscope on
/// the same file) before it fails with "database is locked".
inline constexpr int kBusyTimeoutMs = 5000;

/// Creates every table and index and writes the meta rows, in the caller's transaction.
void create(SQLite::Database& db);

/// Throws ParseError naming `fileName` unless `db` is a Linkscope project of a version this
/// build reads, with every table present. Reads only: a foreign file is left as it was.
void check(SQLite::Database& db, const std::string& fileName);

/// How much of the file SQLite checks: Quick reads every page and checks its structure
/// (quick_check); Full also compares every index entry with its table row and checks the
/// constraints (integrity_check), which is what finds an index page damaged inside: by SQLite's
/// design quick_check does not look at index contents.
enum class Depth { Quick, Full };
/// Throws ParseError naming `fileName`, with SQLite's first problems, when the check finds
/// damage. Reads only.
void checkPages(SQLite::Database& db, const std::string& fileName, Depth depth);

/// Upgrades a file of an older version to kVersion's tables, in the caller's transaction: adds
/// the columns it lacks (the checksum column empty) and raises the version. The caller fills
/// decisions.checksum before committing.
void upgradeTables(SQLite::Database& db, int fromVersion);

/// The schema version of a checked file.
int version(SQLite::Database& db);

/// The per-connection settings (and the persistent WAL journal mode); call on a checked file.
void configure(SQLite::Database& db);

}  // namespace linkscope::project::schema
