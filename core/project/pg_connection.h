#pragma once
// PRIVATE to the PostgreSQL backend: one libpq connection, and the statements it runs. A failed
// statement or a lost connection throws PgFailure with the server's message; the store turns it
// into an Error naming the project and what it could not do (postgres_store_guard.h).
#include <libpq-fe.h>

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "project/pg_failure.h"
#include "project/pg_result.h"

namespace linkscope::project {

/// One parameter of a statement: text (as PostgreSQL reads the type's text form), binary bytes
/// (for a bytea), or NULL.
struct PgParam {
    std::string value;
    bool binary = false;
    bool null = false;

    static PgParam text(std::string_view value) { return {std::string(value), false, false}; }
    static PgParam integer(std::int64_t value) { return {std::to_string(value), false, false}; }
    static PgParam bytes(const void* data, std::size_t size) {
        return {std::string(static_cast<const char*>(data), size), true, false};
    }
};

class PgConnection {
public:
    /// Connects with libpq's connection string (a URI); throws PgFailure when it cannot.
    explicit PgConnection(const std::string& conninfo);
    PgConnection(const PgConnection&) = delete;
    PgConnection& operator=(const PgConnection&) = delete;
    ~PgConnection();

    /// Runs one statement (parameters $1, $2, ...); throws PgFailure unless it succeeded. Results
    /// come as text.
    PgResult exec(std::string_view sql, const std::vector<PgParam>& params = {});
    /// Runs statements without parameters (several separated by ';'); throws PgFailure.
    void execScript(std::string_view sql);
    /// Whether the connection is encrypted with SSL/TLS.
    bool encrypted() const noexcept;
    /// The role the server knows this session by.
    std::string user() const;

    /// Whether the connection still stands: reads what the socket holds, without blocking, so a
    /// server that went away is seen without a statement.
    bool alive() noexcept;
    /// Connects again with the same parameters (libpq's PQreset); throws PgFailure (kConnectionLost)
    /// when the server cannot be reached. Session settings are gone: the caller sets them again.
    void reset();
    /// The socket, for an event loop to watch (-1 when there is none).
    int socket() const noexcept;
    /// The payloads of the notifications on `channel` that arrived (after LISTEN), without
    /// blocking; throws PgFailure when the connection is lost.
    std::vector<std::string> takeNotifications(std::string_view channel);

private:
    struct Closer {
        void operator()(PGconn* conn) const noexcept { PQfinish(conn); }
    };
    std::unique_ptr<PGconn, Closer> conn_;
};

/// Throws Error unless `conninfo` is free of a password: Linkscope never takes one on its
/// command line nor stores one (libpq reads it from ~/.pgpass, PGPASSFILE or a service file).
void refusePasswordIn(const std::string& conninfo);

}  // namespace linkscope::project
