#include "eval/multi_report.h"

#include <cstdio>
#include <nlohmann/json.hpp>

#include "eval/multi_compare.h"
#include "eval/report_format.h"

namespace linkscope::eval {
namespace {

using json = nlohmann::json;

using detail::formatted;
using detail::intervalJson;

std::string runLabel(std::size_t index) { return "[" + std::to_string(index + 1) + "]"; }

}  // namespace

std::string multiComparisonJson(const MultiComparison& c) {
    json runs = json::array();
    for (const RunSummary& run : c.runs)
        runs.push_back({{"name", run.name}, {"correct", run.correct}, {"accuracy", intervalJson(run.accuracy)}});
    json pairs = json::array();
    for (const PairComparison& pair : c.pairs) {
        const McNemarResult& m = pair.mcnemar;
        pairs.push_back({{"a", pair.first},
                         {"b", pair.second},
                         {"name_a", c.runs[pair.first].name},
                         {"name_b", c.runs[pair.second].name},
                         {"mcnemar",
                          {{"both_correct", m.bothCorrect},
                           {"only_a", m.onlyA},
                           {"only_b", m.onlyB},
                           {"both_wrong", m.bothWrong},
                           {"exact", m.exact},
                           {"statistic", m.statistic},
                           {"p", m.pValue}}},
                         {"p_adjusted", pair.adjustedP},
                         {"significant", pair.significant},
                         {"difference", intervalJson(pair.difference)}});
    }
    json matrix = json::array();
    for (std::size_t i = 0; i < c.runs.size(); ++i) {
        json row = json::array();
        for (std::size_t j = 0; j < c.runs.size(); ++j) row.push_back(i == j ? json(nullptr) : json(c.adjustedP(i, j)));
        matrix.push_back(std::move(row));
    }
    json groups = json::array();
    for (const GroupRow& group : c.groups) {
        json accuracy = json::array();
        for (const ConfidenceInterval& interval : group.accuracy) accuracy.push_back(intervalJson(interval));
        groups.push_back({{"name", group.name},
                          {"mentions", group.mentions},
                          {"correct", group.correct},
                          {"accuracy", std::move(accuracy)}});
    }
    const json out = {{"k", c.k},
                      {"strict", c.strict},
                      {"alpha", c.alpha},
                      {"mentions", c.mentions},
                      {"correction", "holm"},
                      {"runs", std::move(runs)},
                      {"pairs", std::move(pairs)},
                      {"p_adjusted", std::move(matrix)},
                      {"groups", std::move(groups)}};
    return out.dump(2) + "\n";
}

std::string formatMultiComparison(const MultiComparison& c) {
    const char* metric = c.strict ? "strict acc" : "acc";
    const ConfidenceInterval& first = c.runs.front().accuracy;
    std::string out = formatted("%s@%zu of %zu runs on %zu mentions (%.0f%% percentile bootstrap, %zu resamples)\n",
                                metric, c.k, c.runs.size(), c.mentions, first.level * 100.0, first.resamples);
    for (std::size_t i = 0; i < c.runs.size(); ++i) {
        const RunSummary& run = c.runs[i];
        out += formatted("%-5s %-40s %7zu  %.4f  [%.4f, %.4f]\n", runLabel(i).c_str(), run.name.c_str(), run.correct,
                         run.accuracy.estimate, run.accuracy.lower, run.accuracy.upper);
    }
    out += formatted("\nMcNemar p, Holm-adjusted over %zu pairs (* below %.3g)\n", c.pairs.size(), c.alpha);
    out += formatted("%-5s", "");
    for (std::size_t j = 0; j < c.runs.size(); ++j) out += formatted(" %10s", runLabel(j).c_str());
    out += "\n";
    for (std::size_t i = 0; i < c.runs.size(); ++i) {
        out += formatted("%-5s", runLabel(i).c_str());
        for (std::size_t j = 0; j < c.runs.size(); ++j) {
            if (i == j) {
                out += formatted(" %10s", "-");
                continue;
            }
            const PairComparison& pair = c.pair(i, j);
            out += formatted(" %9.3g%s", pair.adjustedP, pair.significant ? "*" : " ");
        }
        out += "\n";
    }
    if (!c.groups.empty()) {
        out += formatted("\n%s@%zu per group\n%-28s %8s", metric, c.k, "group", "mentions");
        for (std::size_t j = 0; j < c.runs.size(); ++j) out += formatted(" %8s", runLabel(j).c_str());
        out += "\n";
        for (const GroupRow& group : c.groups) {
            out += formatted("%-28s %8zu", group.name.c_str(), group.mentions);
            for (const ConfidenceInterval& interval : group.accuracy) out += formatted("   %.4f", interval.estimate);
            out += "\n";
        }
    }
    return out;
}

}  // namespace linkscope::eval
