#pragma once
// The events of a training run's log.jsonl (train/run_directory.h), one JSON object per line,
// for tests that compare runs or read what a run recorded.
#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "train/run_directory.h"

namespace linkscope::test {

inline std::vector<nlohmann::json> logLines(const std::filesystem::path& run) {
    std::ifstream in(train::logFile(run));
    std::vector<nlohmann::json> lines;
    for (std::string line; std::getline(in, line);) lines.push_back(nlohmann::json::parse(line));
    return lines;
}

}  // namespace linkscope::test
