#include "eval/report.h"

#include <nlohmann/json.hpp>

#include <cstdio>

#include "eval/compare.h"
#include "eval/evaluate.h"
#include "eval/queries.h"
#include "eval/report_format.h"
#include "util/atomic_file.h"
#include "util/error.h"

namespace linkscope::eval {
namespace {

// Keys keep the order written here (document first), which reads better than sorted keys.
using json = nlohmann::ordered_json;

/// A rank as JSON: null when the mention or part was not correct within the depth.
json rankJson(std::size_t rank) { return rank == 0 ? json(nullptr) : json(rank); }

json optionalBool(const std::optional<bool>& value) { return value ? json(*value) : json(nullptr); }

json groupJson(const GroupMetrics& group) {
    return {{"mentions", group.mentions},
            {"acc@1", group.accuracy(1)},
            {"acc@5", group.accuracy(5)},
            {"strict_acc@1", group.strictAccuracy(1)},
            {"strict_acc@5", group.strictAccuracy(5)},
            {"recall@64", group.recall(kMinimumDepth)}};
}

json optionalGroup(const std::optional<GroupMetrics>& group) { return group ? groupJson(*group) : json(nullptr); }

json curve(const GroupMetrics& group, double (GroupMetrics::*metric)(std::size_t) const noexcept) {
    json values = json::array();
    for (std::size_t k = 1; k <= group.depth(); ++k) values.push_back((group.*metric)(k));
    return values;
}

json statisticsJson(const QueryStatistics& s) {
    return {{"documents", s.documents},
            {"mentions", s.mentions},
            {"filtered_by_type", s.filteredByType},
            {"cuiless_dropped", s.cuiLessDropped},
            {"unknown_ids_dropped", s.unknownIdsDropped},
            {"unknown_ids_kept", s.unknownIdsKept},
            {"mixed_ids_filtered", s.mixedIdsFiltered},
            {"queries", s.queries},
            {"parts", s.parts},
            {"composites", s.composites},
            {"composites_split", s.compositesSplit},
            {"composites_from_corpus", s.compositesFromCorpus},
            {"split_failed", s.splitFailed},
            {"conjunctions", s.conjunctions},
            {"abbreviations_expanded", s.abbreviationsExpanded}};
}

using detail::formatted;
using detail::intervalJson;

std::string tableRow(const std::string& label, const GroupMetrics& group) {
    return formatted("%-32s %8zu  %6.4f  %6.4f  %6.4f  %6.4f  %8.4f  %8.4f  %9.4f\n", label.c_str(), group.mentions,
                     group.accuracy(1), group.accuracy(5), group.accuracy(10), group.accuracy(kMinimumDepth),
                     group.strictAccuracy(1), group.strictAccuracy(5), group.recall(kMinimumDepth));
}

void writeText(const std::filesystem::path& path, const std::string& text) {
    AtomicFileWriter writer(path);
    writer.stream() << text;
    writer.commit();
}

}  // namespace

std::string reportJson(const EvalResult& result, const ReportOptions& options) {
    json report;
    for (const auto& [key, value] : options.extra) report[key] = value;
    report["mentions"] = result.all.mentions;
    report["parts"] = result.parts;
    report["depth"] = result.depth;
    report["seconds"] = result.seconds;
    report["acc@1"] = result.all.accuracy(1);
    report["acc@5"] = result.all.accuracy(5);
    report["correct@1"] = result.all.hits.empty() ? 0 : result.all.hits[0];
    report["correct@5"] = result.all.hits.size() < 5 ? 0 : result.all.hits[4];
    report["acc@k"] = curve(result.all, &GroupMetrics::accuracy);
    report["recall@k"] = curve(result.all, &GroupMetrics::recall);
    report["gold_ids"] = result.all.goldIds;
    report["strict"] = {{"acc@1", result.all.strictAccuracy(1)},
                        {"acc@5", result.all.strictAccuracy(5)},
                        {"acc@k", curve(result.all, &GroupMetrics::strictAccuracy)}};
    json perType = json::object();
    for (const auto& [type, group] : result.byType) perType[type] = groupJson(group);
    report["per_type"] = std::move(perType);
    report["seen"] = optionalGroup(result.seen);
    report["unseen"] = optionalGroup(result.unseen);
    report["homonym_affected"] = optionalGroup(result.homonymAffected);
    report["not_homonym_affected"] = optionalGroup(result.notHomonymAffected);
    report["queries"] = result.queryStatistics ? statisticsJson(*result.queryStatistics) : json(nullptr);
    return report.dump(2) + "\n";
}

void writeJsonReport(const std::filesystem::path& path, const EvalResult& result, const ReportOptions& options) {
    writeText(path, reportJson(result, options));
}

std::string formatTable(const EvalResult& result) {
    std::string out = formatted("%zu mentions, %zu query parts, ranked to depth %zu in %.2f s\n", result.all.mentions,
                                result.parts, result.depth, result.seconds);
    if (const auto& s = result.queryStatistics) {
        out += formatted(
            "queries: %zu documents, %zu mentions; dropped %zu CUI-less, %zu with ids not in the KB, %zu by type\n",
            s->documents, s->mentions, s->cuiLessDropped, s->unknownIdsDropped, s->filteredByType);
        out += formatted(
            "         %zu composite (%zu split, %zu of them by the corpus' own parts; %zu not), %zu with an "
            "abbreviation expanded\n",
            s->composites, s->compositesSplit, s->compositesFromCorpus, s->splitFailed, s->abbreviationsExpanded);
    }
    out += formatted("\n%-32s %8s  %6s  %6s  %6s  %6s  %8s  %8s  %9s\n", "group", "mentions", "acc@1", "acc@5",
                     "acc@10", "acc@64", "strict@1", "strict@5", "recall@64");
    out += tableRow("all", result.all);
    for (const auto& [type, group] : result.byType) out += tableRow("type " + type, group);
    if (result.seen) out += tableRow("seen in training", *result.seen);
    if (result.unseen) out += tableRow("unseen in training", *result.unseen);
    if (result.homonymAffected) out += tableRow("homonym-affected (BELHD)", *result.homonymAffected);
    if (result.notHomonymAffected) out += tableRow("not homonym-affected", *result.notHomonymAffected);
    out += formatted("\nrecall@k over %zu gold ids:", result.all.goldIds);
    for (std::size_t k = 1; k <= result.depth; k *= 2) out += formatted("  @%zu %.4f", k, result.all.recall(k));
    out += "\n";
    return out;
}

void writePerMention(const std::filesystem::path& path, const EvalResult& result, std::span<const EvalQuery> queries,
                     const retrieval::NameDictionary& dictionary, const PerMentionOptions& options) {
    if (queries.size() != result.mentions.size())
        throw Error("per-mention file: " + std::to_string(queries.size()) + " queries for " +
                    std::to_string(result.mentions.size()) + " evaluated mentions");
    AtomicFileWriter writer(path);
    for (std::size_t i = 0; i < queries.size(); ++i) {
        const EvalQuery& query = queries[i];
        const MentionOutcome& mention = result.mentions[i];
        if (query.document != mention.document || query.start != mention.start ||
            query.parts.size() != mention.parts.size())
            throw Error("per-mention file: query " + std::to_string(i + 1) + " (" + query.document + " " +
                        std::to_string(query.start) + ") is not the mention that was evaluated");
        json parts = json::array();
        for (std::size_t p = 0; p < mention.parts.size(); ++p) {
            const PartOutcome& part = mention.parts[p];
            json predictions = json::array();
            const std::size_t shown = std::min(options.predictions, part.candidates.size());
            for (std::size_t c = 0; c < shown; ++c) {
                const auto& entry = dictionary.at(part.candidates[c].entry);
                predictions.push_back({{"name", entry.name},
                                       {"ids", entry.ids},
                                       {"score", part.candidates[c].score},
                                       {"correct", idsMatch(entry.ids, query.goldIds)},
                                       {"strict", idsMatchStrictly(entry.ids, query.goldIds)}});
            }
            parts.push_back({{"query", query.parts[p]},
                             {"rank", rankJson(part.rank)},
                             {"strict_rank", rankJson(part.strictRank)},
                             {"predictions", std::move(predictions)}});
        }
        const json line = {{"document", query.document},
                           {"start", query.start},
                           {"end", query.end},
                           {"type", query.type},
                           {"mention", query.mention},
                           {"expanded", query.expanded},
                           {"normalized", query.parts},
                           {"gold", query.goldIds},
                           {"id_column", query.idColumn},
                           {"composite", query.composite},
                           {"abbreviation_expanded", query.abbreviationExpanded},
                           {"split_failed", query.splitFailed},
                           {"homonym_affected", optionalBool(query.homonymAffected)},
                           {"seen", optionalBool(mention.seen)},
                           {"rank", rankJson(mention.rank)},
                           {"strict_rank", rankJson(mention.strictRank)},
                           {"correct@1", mention.correctAt(1)},
                           {"correct@5", mention.correctAt(5)},
                           {"strict@1", mention.correctAt(1, true)},
                           {"parts", std::move(parts)}};
        writer.stream() << line.dump() << '\n';
    }
    writer.commit();
}

std::string comparisonJson(const RunComparison& comparison) {
    const auto& m = comparison.mcnemar;
    const json out = {{"k", comparison.k},
                      {"strict", comparison.strict},
                      {"mcnemar",
                       {{"both_correct", m.bothCorrect},
                        {"only_a", m.onlyA},
                        {"only_b", m.onlyB},
                        {"both_wrong", m.bothWrong},
                        {"exact", m.exact},
                        {"statistic", m.statistic},
                        {"p", m.pValue}}},
                      {"accuracy_a", intervalJson(comparison.accuracyA)},
                      {"accuracy_b", intervalJson(comparison.accuracyB)},
                      {"difference", intervalJson(comparison.difference)}};
    return out.dump(2) + "\n";
}

std::string formatComparison(const RunComparison& comparison, std::string_view nameA, std::string_view nameB) {
    const auto& m = comparison.mcnemar;
    const std::string a(nameA), b(nameB);
    const char* metric = comparison.strict ? "strict acc" : "acc";
    std::string out;
    out += formatted("%s@%zu  %-12s %.4f  [%.4f, %.4f]\n", metric, comparison.k, a.c_str(),
                     comparison.accuracyA.estimate, comparison.accuracyA.lower, comparison.accuracyA.upper);
    out += formatted("%s@%zu  %-12s %.4f  [%.4f, %.4f]\n", metric, comparison.k, b.c_str(),
                     comparison.accuracyB.estimate, comparison.accuracyB.lower, comparison.accuracyB.upper);
    out += formatted("difference %s - %s: %+.4f  [%+.4f, %+.4f] (%.0f%% percentile bootstrap, %zu resamples)\n",
                     a.c_str(), b.c_str(), comparison.difference.estimate, comparison.difference.lower,
                     comparison.difference.upper, comparison.difference.level * 100.0, comparison.difference.resamples);
    out += formatted("McNemar: only %s right %zu, only %s right %zu, both %zu, neither %zu; %s p = %.4g\n", a.c_str(),
                     m.onlyA, b.c_str(), m.onlyB, m.bothCorrect, m.bothWrong,
                     m.exact ? "exact binomial" : "chi-square (continuity-corrected)", m.pValue);
    return out;
}

}  // namespace linkscope::eval
