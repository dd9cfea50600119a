#pragma once
// PRIVATE to the PostgreSQL backend's files (postgres_store*.cpp): the connection behind a
// PostgresStore, and the wrapper that turns libpq's failures into Linkscope errors naming the
// project's address.
#include <filesystem>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>

#include "project/pg_connection.h"
#include "project/postgres_store.h"
#include "project/team_work.h"
#include "util/error.h"

namespace linkscope::project {

struct PostgresStore::State {
    std::filesystem::path address;  // the URI as given (holds no password)
    PgConnection connection;
    bool listening = false;  // LISTEN on kChangeChannel, repeated after a reconnect
};

/// The SQLSTATE of the server's race check (postgres_schema.cpp, migration 4).
inline constexpr const char* kRaceRefused = "LS409";

/// Runs `action`; a PgFailure it throws becomes an Error reading
/// "ADDRESS: cannot WHAT (PostgreSQL: the server's message)". Linkscope's own errors pass
/// unchanged; a value that cannot be read as its column's type makes the project damaged.
template <typename Action>
decltype(auto) pgGuarded(const std::filesystem::path& address, std::string_view what, Action&& action) {
    try {
        return std::forward<Action>(action)();
    } catch (const PgFailure& e) {
        if (e.connectionLost())
            throw StoreDisconnected(address.string() + ": cannot " + std::string(what) +
                                    ": the connection to the server is lost; nothing more is sent until the store "
                                    "reconnects (PostgreSQL: " +
                                    e.what() + ")");
        if (e.sqlState() == kRaceRefused)
            throw DecisionConflict(
                address.string() + ": cannot " + std::string(what) + ": the server refused it, as " + e.what(), {},
                std::nullopt);
        // insufficient_privilege: a forbidden action, refused by the server itself.
        if (e.sqlState() == "42501")
            throw Error(address.string() + ": cannot " + std::string(what) +
                        ": the server refused it, as this login's role in the project does not allow it "
                        "(PostgreSQL: " +
                        e.what() + ")");
        throw Error(address.string() + ": cannot " + std::string(what) + " (PostgreSQL: " + e.what() + ")");
    } catch (const Error&) {
        throw;
    } catch (const std::runtime_error& e) {
        throw ParseError(address.string(), 0, std::string("damaged project: ") + e.what());
    }
}

}  // namespace linkscope::project
