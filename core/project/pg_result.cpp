#include "project/pg_result.h"

#include <charconv>
#include <cstdlib>
#include <stdexcept>

namespace linkscope::project {

int PgResult::rows() const noexcept { return PQntuples(result_.get()); }

bool PgResult::isNull(int row, int column) const noexcept { return PQgetisnull(result_.get(), row, column) != 0; }

std::string PgResult::text(int row, int column) const {
    return {PQgetvalue(result_.get(), row, column), static_cast<std::size_t>(PQgetlength(result_.get(), row, column))};
}

std::int64_t PgResult::integer(int row, int column) const {
    const std::string value = text(row, column);
    std::int64_t number = 0;
    const auto [end, error] = std::from_chars(value.data(), value.data() + value.size(), number);
    if (error != std::errc{} || end != value.data() + value.size() || value.empty())
        throw std::runtime_error("the value \"" + value + "\" is not a whole number");
    return number;
}

std::vector<std::byte> PgResult::bytes(int row, int column) const {
    std::size_t size = 0;
    unsigned char* decoded =
        PQunescapeBytea(reinterpret_cast<const unsigned char*>(PQgetvalue(result_.get(), row, column)), &size);
    if (decoded == nullptr) throw std::runtime_error("a bytea value cannot be decoded");
    const std::unique_ptr<unsigned char, decltype(&PQfreemem)> owned(decoded, &PQfreemem);
    const auto* begin = reinterpret_cast<const std::byte*>(owned.get());
    return std::vector<std::byte>(begin, begin + size);
}

std::size_t PgResult::affected() const {
    const char* count = PQcmdTuples(result_.get());
    return count[0] == '\0' ? 0 : static_cast<std::size_t>(std::strtoull(count, nullptr, 10));
}

}  // namespace linkscope::project
