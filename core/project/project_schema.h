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
/// bioc and brat: a version-1 reader would load the whole corpus and the unfiltered KB. Version-1
/// files are read as they are (no list, no filter) and not rewritten.
inline constexpr int kVersion = 2;
/// How long a statement waits for a lock held by another connection (a second Linkscope on
/// the same file) before it fails with "database is locked".
inline constexpr int kBusyTimeoutMs = 5000;

/// Creates every table and index and writes the meta rows, in the caller's transaction.
void create(SQLite::Database& db);

/// Throws ParseError naming `fileName` unless `db` is a Linkscope project of a version this
/// build reads, with every table present. Reads only: a foreign file is left as it was.
void check(SQLite::Database& db, const std::string& fileName);

/// The schema version of a checked file.
int version(SQLite::Database& db);

/// The per-connection settings (and the persistent WAL journal mode); call on a checked file.
void configure(SQLite::Database& db);

}  // namespace linkscope::project::schema
