#pragma once
// PRIVATE to the PostgreSQL backend: the rows of one statement's result, as text.
#include <libpq-fe.h>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace linkscope::project {

class PgResult {
public:
    explicit PgResult(PGresult* result) noexcept : result_(result) {}

    int rows() const noexcept;
    bool isNull(int row, int column) const noexcept;
    std::string text(int row, int column) const;
    /// A bigint or integer column; throws std::runtime_error for a value that is not one.
    std::int64_t integer(int row, int column) const;
    /// A bytea column, decoded from its text form.
    std::vector<std::byte> bytes(int row, int column) const;
    /// The number of rows an INSERT, UPDATE or DELETE changed.
    std::size_t affected() const;

private:
    struct Clearer {
        void operator()(PGresult* result) const noexcept { PQclear(result); }
    };
    std::unique_ptr<PGresult, Clearer> result_;
};

}  // namespace linkscope::project
