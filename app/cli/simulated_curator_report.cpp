#include "simulated_curator_report.h"

#include <algorithm>
#include <cmath>
#include <sstream>
#include <vector>

namespace linkscope::cli {
namespace {

std::vector<double> commitLatencies(const SimulatedCuratorResult& result) {
    std::vector<double> values;
    values.reserve(result.decisions.size());
    for (const SimulatedDecision& decision : result.decisions) values.push_back(decision.commitMilliseconds);
    return values;
}

std::vector<double> rerankLatencies(const SimulatedCuratorResult& result) {
    std::vector<double> values;
    for (const ReceivedDecision& received : result.received)
        if (received.rerankedMilliseconds) values.push_back(*received.rerankedMilliseconds);
    return values;
}

nlohmann::json mentionJson(const project::MentionKey& mention) {
    return {{"split", mention.split}, {"document", mention.document}, {"start", mention.start}, {"end", mention.end}};
}

nlohmann::json latencyJson(std::span<const double> values) {
    const double max = values.empty() ? 0.0 : *std::max_element(values.begin(), values.end());
    return {{"count", values.size()},
            {"p50", nearestRankQuantile(values, 0.5)},
            {"p99", nearestRankQuantile(values, 0.99)},
            {"max", max}};
}

std::size_t corrections(const SimulatedCuratorResult& result) {
    return static_cast<std::size_t>(std::count_if(result.decisions.begin(), result.decisions.end(),
                                                  [](const SimulatedDecision& d) { return d.correction; }));
}

double perSecond(const SimulatedCuratorResult& result) {
    return result.seconds > 0.0 ? static_cast<double>(result.decisions.size()) / result.seconds : 0.0;
}

}  // namespace

double nearestRankQuantile(std::span<const double> values, double q) {
    if (values.empty()) return 0.0;
    std::vector<double> sorted(values.begin(), values.end());
    std::sort(sorted.begin(), sorted.end());
    const auto rank = static_cast<std::size_t>(std::ceil(q * static_cast<double>(sorted.size())));
    return sorted[std::clamp<std::size_t>(rank, 1, sorted.size()) - 1];
}

nlohmann::json simulatedCuratorJson(const SimulatedCuratorResult& result, const std::string& linking,
                                    const std::string& project) {
    const std::vector<double> commits = commitLatencies(result);
    nlohmann::json decisions = nlohmann::json::array();
    for (const SimulatedDecision& d : result.decisions) {
        nlohmann::json entry = mentionJson(d.mention);
        entry["link"] = d.link;
        entry["commit_ms"] = d.commitMilliseconds;
        entry["committed_at_ms"] = d.committedAtMilliseconds;
        decisions.push_back(std::move(entry));
    }
    nlohmann::json received = nlohmann::json::array();
    for (const ReceivedDecision& r : result.received) {
        nlohmann::json entry = mentionJson(r.mention);
        entry["login"] = r.login;
        entry["reranked_at_ms"] = r.rerankedAtMilliseconds;
        received.push_back(std::move(entry));
    }
    return {{"project", project},
            {"server", result.onServer},
            {"curator", result.curator},
            {"login", result.login},
            {"mode", result.mode},
            {"linking", linking},
            {"mentions", result.mentions},
            {"decided", result.decisions.size()},
            {"corrections", corrections(result)},
            {"conflicts", result.conflicts},
            {"reconnects", result.reconnects},
            {"recovered_commits", result.recoveredCommits},
            {"seen_from_others", result.seenFromOthers},
            {"seconds", result.seconds},
            {"decisions_per_second", perSecond(result)},
            {"commit_ms", latencyJson(commits)},
            {"visible_ms", latencyJson(result.visibleMilliseconds)},
            {"reranked_ms", latencyJson(rerankLatencies(result))},
            {"decisions", decisions},
            {"received", received}};
}

std::string simulatedCuratorText(const SimulatedCuratorResult& result, const std::string& linking,
                                 const std::string& project) {
    const std::vector<double> commits = commitLatencies(result);
    std::ostringstream out;
    out << result.curator;
    if (!result.login.empty()) out << " (login " << result.login << ", " << result.mode << " mode)";
    out << " on " << project << ", " << linking << '\n';
    out << "decided " << result.decisions.size() << " of " << result.mentions << " mentions (" << corrections(result)
        << " corrections) in " << result.seconds << " s, " << perSecond(result) << " decisions/s\n";
    out << "conflicts " << result.conflicts << ", reconnects " << result.reconnects << " (" << result.recoveredCommits
        << " commits found after one), decisions of others seen " << result.seenFromOthers << '\n';
    out << "commit latency p50 " << nearestRankQuantile(commits, 0.5) << " ms, p99 "
        << nearestRankQuantile(commits, 0.99) << " ms\n";
    return out.str();
}

}  // namespace linkscope::cli
