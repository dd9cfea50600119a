#pragma once
// The "linking difficulty" section of `linkscope-cli stats`: the mention classes and properties of
// eval/linking_difficulty.h as JSON, and as aligned text rendered from that JSON.
#include <nlohmann/json.hpp>

#include <sstream>

namespace linkscope::eval {
struct LinkingDifficulty;
}

namespace linkscope::cli {

/// Counts, shares of all mentions, mean lengths in words, and with outcomes Acc@1 and each
/// group's share of the run's errors at rank 1.
nlohmann::json linkingDifficultyReport(const eval::LinkingDifficulty& difficulty);
/// Appends the section's table to a corpus report's text.
void renderLinkingDifficulty(std::ostringstream& out, const nlohmann::json& section);

}  // namespace linkscope::cli
