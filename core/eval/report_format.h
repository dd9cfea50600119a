#pragma once
// Pieces the evaluation's text and JSON reports share (report.cpp, multi_report.cpp): a
// bootstrap interval as JSON, and printf-style formatting into a string. Internal to eval.
#include <cstdio>
#include <string>

#include <nlohmann/json.hpp>

#include "eval/compare.h"

namespace linkscope::eval::detail {

inline nlohmann::json intervalJson(const ConfidenceInterval& interval) {
    return {{"estimate", interval.estimate},
            {"lower", interval.lower},
            {"upper", interval.upper},
            {"level", interval.level},
            {"resamples", interval.resamples}};
}

/// One report line: format with its values, cut at 511 bytes (no report line is near that).
template <typename... Values>
std::string formatted(const char* format, Values... values) {
    char buffer[512];
    std::snprintf(buffer, sizeof buffer, format, values...);
    return buffer;
}

}  // namespace linkscope::eval::detail
