#pragma once
// PRIVATE to the PostgreSQL backend: the tables of a project in a PostgreSQL database, built by
// numbered migrations. The table schema_version lists the migrations applied (one row each);
// a database's version is the highest. migrate() applies the missing ones in order, all in
// one transaction under an advisory lock, so two clients opening a database at once cannot
// apply one twice, and a failure leaves the database at its old version.
#include <string>

#include "project/pg_connection.h"

namespace linkscope::project::pgschema {

/// What the meta table holds under "format" (as in a project file).
inline constexpr const char* kFormatName = "linkscope-project";
/// The version this build writes and reads: the number of its migrations. A database of a
/// higher version is refused (an older Linkscope must not write into tables it does not know).
int latestVersion() noexcept;

/// The database's version: 0 when it has no Linkscope tables.
int version(PgConnection& connection);

/// Whether this login may create tables in the project's schema, as migrating needs (the
/// project's owner and superusers; curators, adjudicators and reviewers may not).
bool mayMigrate(PgConnection& connection);

/// Whether the database holds a Linkscope project (a meta table naming the format).
bool holdsProject(PgConnection& connection);

/// Applies the migrations above the database's version, in the caller's transaction, taking the
/// migration lock first. Throws PgFailure from the server, or Error (naming `address`) for a
/// database of a newer version. Returns the version reached.
int migrate(PgConnection& connection, const std::string& address);

}  // namespace linkscope::project::pgschema
