#include "project/curation_decision.h"

#include <array>
#include <utility>

namespace linkscope::project {
namespace {

// The names are what the project file stores (so that sqlite3 shows them): never rename one.
constexpr std::array<std::pair<DecisionKind, std::string_view>, 5> kKindNames{{
    {DecisionKind::Accept, "accept"},
    {DecisionKind::Correct, "correct"},
    {DecisionKind::Reject, "reject"},
    {DecisionKind::Nil, "nil"},
    {DecisionKind::Skip, "skip"},
}};

constexpr std::array<std::pair<DecisionState, std::string_view>, 3> kStateNames{{
    {DecisionState::Done, "done"},
    {DecisionState::Undone, "undone"},
    {DecisionState::Discarded, "discarded"},
}};

}  // namespace

std::string_view decisionKindName(DecisionKind kind) noexcept {
    for (const auto& [value, name] : kKindNames)
        if (value == kind) return name;
    return "?";
}

std::optional<DecisionKind> parseDecisionKind(std::string_view name) noexcept {
    for (const auto& [value, text] : kKindNames)
        if (text == name) return value;
    return std::nullopt;
}

std::string_view decisionStateName(DecisionState state) noexcept {
    for (const auto& [value, name] : kStateNames)
        if (value == state) return name;
    return "?";
}

std::optional<DecisionState> parseDecisionState(std::string_view name) noexcept {
    for (const auto& [value, text] : kStateNames)
        if (text == name) return value;
    return std::nullopt;
}

std::optional<std::string> decidedLink(const Decision& decision) {
    switch (decision.kind) {
        case DecisionKind::Accept:
        case DecisionKind::Correct:
        case DecisionKind::Nil:
            return decision.newLink;
        case DecisionKind::Reject:
            return std::string{};
        case DecisionKind::Skip:
            return std::nullopt;
    }
    return std::nullopt;
}

}  // namespace linkscope::project
