#include "util/json_number.h"

#include "util/error.h"
#include "util/json_file.h"

namespace linkscope {

std::uint64_t wholeNumberIn(const nlohmann::json& value, std::uint64_t max, const std::string& source,
                            const std::string& field) {
    if (!value.is_number_unsigned() || value.get<std::uint64_t>() > max)
        throw ParseError(
            source, 0,
            field + " must be a whole number from 0 to " + std::to_string(max) + ", not " + briefJson(value));
    return value.get<std::uint64_t>();
}

}  // namespace linkscope
