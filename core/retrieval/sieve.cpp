#include "retrieval/sieve.h"

#include <array>
#include <cmath>
#include <limits>
#include <optional>
#include <utility>

#include "util/error.h"

namespace linkscope::retrieval {
namespace {

constexpr std::string_view exactName = "exact";

// Every strategy with its name, in the order of the paper's Table 1.
constexpr std::array<std::pair<std::string_view, SearchStrategy>, 6> strategies{{
    {"O-T", {SearchTarget::Ontology, SearchUnit::Text}},
    {"O-C", {SearchTarget::Ontology, SearchUnit::Concept}},
    {"D-T", {SearchTarget::Data, SearchUnit::Text}},
    {"D-C", {SearchTarget::Data, SearchUnit::Concept}},
    {"OD-T", {SearchTarget::Both, SearchUnit::Text}},
    {"OD-C", {SearchTarget::Both, SearchUnit::Concept}},
}};

std::optional<SearchStrategy> findStrategy(std::string_view name) {
    for (const auto& [known, strategy] : strategies)
        if (known == name) return strategy;
    return std::nullopt;
}

std::string_view trimBlanks(std::string_view text) {
    constexpr std::string_view blanks = " \t";
    const auto first = text.find_first_not_of(blanks);
    if (first == std::string_view::npos) return {};
    return text.substr(first, text.find_last_not_of(blanks) - first + 1);
}

[[noreturn]] void failSieve(std::string_view spec, const std::string& why) {
    throw Error("sieve '" + std::string(spec) + "': " + why +
                " (expected [exact+]STRATEGY[+STRATEGY...], strategies O-T, O-C, D-T, D-C, OD-T, OD-C)");
}

// A stage's top similarity reaches the threshold. Scores are floats and the threshold a
// double: 0.95f is 0.949999988 and would fall short of 0.95 compared in double, so the
// comparison runs at the scores' precision, where a stage scoring exactly 0.95 decides.
// (A threshold beyond the range of float, which no score can reach, becomes infinity rather
// than an undefined conversion.)
bool decides(const std::vector<EntityScore>& ranked, double threshold) {
    constexpr double largest = std::numeric_limits<float>::max();
    const float bar = threshold > largest    ? std::numeric_limits<float>::infinity()
                      : threshold < -largest ? -std::numeric_limits<float>::infinity()
                                             : static_cast<float>(threshold);
    return !ranked.empty() && ranked.front().score >= bar;
}

}  // namespace

std::string strategyName(const SearchStrategy& strategy) {
    for (const auto& [name, known] : strategies)
        if (known == strategy) return std::string(name);
    throw Error("search strategy: invalid target or unit");  // only for values outside the enums
}

SearchStrategy parseStrategy(std::string_view name) {
    if (const auto strategy = findStrategy(trimBlanks(name))) return *strategy;
    throw Error("search strategy: unknown name '" + std::string(name) + "' (valid: O-T, O-C, D-T, D-C, OD-T, OD-C)");
}

SieveSpec parseSieve(std::string_view spec) {
    if (trimBlanks(spec).empty()) failSieve(spec, "empty");
    SieveSpec result;
    std::size_t position = 0;
    std::string_view rest = spec;
    while (true) {
        const auto plus = rest.find('+');
        const auto component = trimBlanks(rest.substr(0, plus));
        if (component.empty()) failSieve(spec, "empty component at position " + std::to_string(position + 1));
        if (component == exactName) {
            if (result.exactMatch) failSieve(spec, "'exact' given twice");
            if (position != 0) failSieve(spec, "'exact' must come first");
            result.exactMatch = true;
        } else {
            const auto found = findStrategy(component);
            if (!found) failSieve(spec, "unknown strategy '" + std::string(component) + "'");
            const SearchStrategy strategy = *found;
            for (const auto& earlier : result.stages)
                if (earlier == strategy) failSieve(spec, "'" + std::string(component) + "' given twice");
            result.stages.push_back(strategy);
        }
        ++position;
        if (plus == std::string_view::npos) break;
        rest.remove_prefix(plus + 1);
    }
    if (result.stages.empty()) failSieve(spec, "no search stage");
    return result;
}

std::string sieveName(const SieveSpec& spec) {
    std::string name = spec.exactMatch ? std::string(exactName) : std::string();
    for (const auto& stage : spec.stages) {
        if (!name.empty()) name += '+';
        name += strategyName(stage);
    }
    return name;
}

std::string stageName(const SieveSpec& spec, const SieveOutcome& outcome) {
    if (outcome.exact) return std::string(exactName);
    const std::size_t offset = spec.exactMatch ? 1 : 0;
    if (outcome.stage < offset || outcome.stage - offset >= spec.stages.size())
        throw Error("sieve '" + sieveName(spec) + "': no stage at position " + std::to_string(outcome.stage));
    return strategyName(spec.stages[outcome.stage - offset]);
}

SieveOutcome runSieve(const SieveSpec& spec, const std::function<std::vector<EntityScore>()>& exactMatches,
                      const std::function<std::vector<EntityScore>(const SearchStrategy&)>& search) {
    if (spec.stages.empty()) throw Error("sieve: no search stage");
    if (std::isnan(spec.threshold)) throw Error("sieve '" + sieveName(spec) + "': the threshold is NaN");
    if (spec.exactMatch && !exactMatches)
        throw Error("sieve '" + sieveName(spec) + "': an exact stage but no exact-match function");
    if (!search) throw Error("sieve '" + sieveName(spec) + "': no search function");

    std::size_t position = 0;
    if (spec.exactMatch) {
        auto matches = exactMatches();
        if (!matches.empty()) return {.ranked = std::move(matches), .stage = 0, .exact = true};
        ++position;
    }
    for (std::size_t i = 0; i < spec.stages.size(); ++i, ++position) {
        auto ranked = search(spec.stages[i]);
        if (i + 1 == spec.stages.size() || decides(ranked, spec.threshold))
            return {.ranked = std::move(ranked), .stage = position, .exact = false};
    }
    return {};  // not reached: the last stage always decides
}

}  // namespace linkscope::retrieval
