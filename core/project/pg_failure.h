#pragma once
// PRIVATE to the PostgreSQL backend: what libpq or the server said when a statement failed or
// the connection could not be made. PostgresStore turns it into an Error naming the project.
#include <stdexcept>
#include <string>
#include <utility>

namespace linkscope::project {

class PgFailure : public std::runtime_error {
public:
    PgFailure(const std::string& message, std::string sqlState)
        : std::runtime_error(message), sqlState_(std::move(sqlState)) {}
    /// The SQLSTATE code ("42501" for insufficient privilege); "" when there is none.
    const std::string& sqlState() const noexcept { return sqlState_; }

private:
    std::string sqlState_;
};

}  // namespace linkscope::project
