#include "project/team_work.h"

#include <algorithm>
#include <cmath>

namespace linkscope::project {

std::string_view teamModeName(TeamMode mode) noexcept { return mode == TeamMode::Blind ? "blind" : "shared"; }

std::optional<TeamMode> parseTeamMode(std::string_view name) noexcept {
    if (name == "shared") return TeamMode::Shared;
    if (name == "blind") return TeamMode::Blind;
    return std::nullopt;
}

bool overlapDocument(const TeamModeSettings& settings, std::string_view document) noexcept {
    if (settings.mode != TeamMode::Blind || !(settings.overlapShare > 0.0)) return false;
    // FNV-1a, 64 bits, over the seed's eight bytes (little-endian) and the document id: fixed
    // by its definition, so every client and every build picks the same documents.
    std::uint64_t hash = 14695981039346656037ULL;
    const auto mix = [&hash](unsigned char byte) {
        hash ^= byte;
        hash *= 1099511628211ULL;
    };
    for (int shift = 0; shift < 64; shift += 8) mix(static_cast<unsigned char>(settings.overlapSeed >> shift));
    for (const char c : document) mix(static_cast<unsigned char>(c));
    constexpr std::uint64_t kScale = 1000000;
    const auto threshold = static_cast<std::uint64_t>(std::llround(std::min(settings.overlapShare, 1.0) * kScale));
    return hash % kScale < threshold;
}

int claimCapacity(const TeamModeSettings& settings, std::string_view document) noexcept {
    return overlapDocument(settings, document) ? 2 : 1;
}

}  // namespace linkscope::project
