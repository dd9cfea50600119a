#pragma once
// Whole numbers read from the engine's JSON files (presets, checkpoint state): nlohmann's
// get<std::uint64_t>() reads 1e30 or 0.5 as some integer and -1 as 2^64-1, so a count from
// outside data is checked for being a whole number in range before it sizes anything. Internal
// to core: the header includes nlohmann/json.
#include <cstdint>
#include <string>

#include <nlohmann/json.hpp>

namespace linkscope {

/// `value` when it is a whole number from 0 to `max`; else ParseError(source, 0, field +
/// " must be a whole number from 0 to MAX, not VALUE"), `field` naming the key as the message
/// should show it (e.g. "vocabulary: \"size\"").
std::uint64_t wholeNumberIn(const nlohmann::json& value, std::uint64_t max, const std::string& source,
                            const std::string& field);

}  // namespace linkscope
