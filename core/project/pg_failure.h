#pragma once
// PRIVATE to the PostgreSQL backend: what libpq or the server said when a statement failed or
// the connection could not be made. PostgresStore turns it into an Error naming the project.
#include <stdexcept>
#include <string>
#include <utility>

namespace linkscope::project {

/// The SQLSTATE class of a lost connection ("08006": connection_failure), also given to a
/// failure libpq reports without a state once the connection is bad.
inline constexpr const char* kConnectionLost = "08006";

class PgFailure : public std::runtime_error {
public:
    PgFailure(const std::string& message, std::string sqlState)
        : std::runtime_error(message), sqlState_(std::move(sqlState)) {}
    /// The SQLSTATE code ("42501" for insufficient privilege); "" when there is none.
    const std::string& sqlState() const noexcept { return sqlState_; }
    /// Whether the connection is gone (SQLSTATE class 08, or the server shutting down: 57P01-3).
    bool connectionLost() const noexcept {
        return sqlState_.starts_with("08") || sqlState_ == "57P01" || sqlState_ == "57P02" || sqlState_ == "57P03";
    }

private:
    std::string sqlState_;
};

}  // namespace linkscope::project
