#include "stats_report.h"

#include <iomanip>
#include <set>
#include <sstream>

#include "corpus/corpus.h"
#include "corpus/corpus_stats.h"
#include "kb/homonyms.h"
#include "kb/knowledge_base.h"
#include "linking_difficulty_report.h"

namespace linkscope::cli {
namespace {

using Json = nlohmann::json;

// How many unknown ids are listed by name; the count is always complete.
constexpr std::size_t kUnknownIdSample = 20;

Json statsJson(const CorpusStats& s) {
    return Json{{"documents", s.documents},
                {"mentions", s.mentions},
                {"mentions_by_type", s.mentionsByType},
                {"composite_mentions", s.alternativeMentions},
                {"conjunction_mentions", s.conjunctionMentions},
                {"cui_less_mentions", s.cuiLessMentions},
                {"mentions_with_cui_less_part", s.mentionsWithCuiLessPart},
                {"mentions_with_individual_mentions", s.mentionsWithIndividualMentions},
                {"mentions_with_invalid_offsets", s.mentionsWithInvalidOffsets},
                {"relations", s.relations},
                {"relations_by_type", s.relationsByType},
                {"duplicate_documents", s.duplicateDocuments},
                {"distinct_ids", s.distinctIds}};
}

std::function<bool(std::string_view)> knownIn(const kb::KnowledgeBase& kb) {
    return [&kb](std::string_view id) { return !kb.findById(id).empty(); };
}

Json homonymJson(const kb::HomonymStatistics& h) {
    return Json{{"names", h.pairs},
                {"distinct_names", h.distinctNames},
                {"homonym_names", h.homonymNames},
                {"homonym_pairs", h.homonymPairs},
                {"preferred_name_pairs", h.preferredNamePairs},
                {"other_name_pairs", h.otherNamePairs},
                {"unexpandable_pairs", h.unexpandablePairs},
                {"cross_species_pairs", h.crossSpeciesPairs},
                {"expanded_pairs", h.expandedPairs},
                {"failed_pairs", h.failedPairs},
                {"success_rate", h.successRate()},
                {"remaining_duplicate_names", h.remainingDuplicateNames},
                {"remaining_duplicate_pairs", h.remainingDuplicatePairs}};
}

std::string num(const Json& value) {
    if (value.is_number_float()) {
        std::ostringstream out;
        out << std::fixed << std::setprecision(4) << value.get<double>();
        return out.str();
    }
    return value.dump();
}

void row(std::ostringstream& out, const std::string& label, const Json& value, int indent = 2) {
    out << std::string(static_cast<std::size_t>(indent), ' ') << std::left << std::setw(42 - indent) << label
        << std::right << std::setw(12) << num(value) << '\n';
}

void corpusSection(std::ostringstream& out, const std::string& title, const Json& c) {
    out << title << '\n';
    row(out, "documents", c["documents"]);
    row(out, "mentions", c["mentions"]);
    for (const auto& [type, count] : c["mentions_by_type"].items()) row(out, type, count, 4);
    row(out, "composite mentions (A|B)", c["composite_mentions"]);
    row(out, "conjunction mentions (A+B)", c["conjunction_mentions"]);
    row(out, "CUI-less mentions (-1)", c["cui_less_mentions"]);
    row(out, "composites with a CUI-less part", c["mentions_with_cui_less_part"]);
    row(out, "mentions with individual-mention column", c["mentions_with_individual_mentions"]);
    if (c["mentions_with_invalid_offsets"].get<std::size_t>() > 0)
        row(out, "mentions with invalid offsets", c["mentions_with_invalid_offsets"]);
    row(out, "relations", c["relations"]);
    for (const auto& [type, count] : c["relations_by_type"].items()) row(out, type, count, 4);
    row(out, "duplicate documents (kept once)", c["duplicate_documents"]);
    row(out, "distinct ids", c["distinct_ids"]);
    if (c.contains("ids_missing_from_kb")) {
        row(out, "ids missing from the KB", c["ids_missing_from_kb"]);
        row(out, "mentions with an id missing from the KB", c["mentions_with_ids_missing_from_kb"]);
        if (!c["missing_ids"].empty()) {
            std::string list;
            for (const auto& id : c["missing_ids"]) list += (list.empty() ? "" : " ") + id.get<std::string>();
            out << "    e.g. " << list << '\n';
        }
    }
    if (c.contains("linking_difficulty")) renderLinkingDifficulty(out, c["linking_difficulty"]);
    out << '\n';
}

}  // namespace

Json corpusReport(const Corpus& corpus, const kb::KnowledgeBase* kb) {
    Json report = statsJson(computeCorpusStats(corpus));
    report["name"] = corpus.name;
    report["files"] = corpus.sourceFiles;
    if (kb) {
        const UnknownIdStats unknown = countUnknownIds(corpus, knownIn(*kb));
        report["ids_missing_from_kb"] = unknown.unknownIds.size();
        report["mentions_with_ids_missing_from_kb"] = unknown.mentionsWithUnknownId;
        const auto shown = std::min(unknown.unknownIds.size(), kUnknownIdSample);
        report["missing_ids"] = std::vector<std::string>(
            unknown.unknownIds.begin(), unknown.unknownIds.begin() + static_cast<std::ptrdiff_t>(shown));
    }
    return report;
}

Json totalReport(std::span<const Corpus> corpora, const kb::KnowledgeBase* kb) {
    Json total = Json::object();
    std::set<std::string> ids;
    std::set<std::string> unknownIds;
    std::size_t unknownMentions = 0;
    for (const Corpus& corpus : corpora) {
        const Json one = statsJson(computeCorpusStats(corpus));
        for (const auto& [key, value] : one.items()) {
            if (key == "distinct_ids") continue;
            if (value.is_object()) {
                Json& into = total[key];
                if (!into.is_object()) into = Json::object();
                for (const auto& [sub, count] : value.items())
                    into[sub] = into.value(sub, std::size_t{0}) + count.get<std::size_t>();
            } else {
                total[key] = total.value(key, std::size_t{0}) + value.get<std::size_t>();
            }
        }
        for (const Document& document : corpus.documents())
            for (const Mention& mention : document.mentions)
                for (const std::string& id : mention.ids.ids)
                    if (id != "-1") ids.insert(id);
        if (kb) {
            const UnknownIdStats unknown = countUnknownIds(corpus, knownIn(*kb));
            unknownMentions += unknown.mentionsWithUnknownId;
            unknownIds.insert(unknown.unknownIds.begin(), unknown.unknownIds.end());
        }
    }
    total["distinct_ids"] = ids.size();
    if (kb) {
        total["ids_missing_from_kb"] = unknownIds.size();
        total["mentions_with_ids_missing_from_kb"] = unknownMentions;
        std::vector<std::string> sample;
        for (const auto& id : unknownIds) {
            if (sample.size() == kUnknownIdSample) break;
            sample.push_back(id);
        }
        total["missing_ids"] = sample;
    }
    return total;
}

Json kbReport(const kb::KnowledgeBase& kb, const kb::HomonymStatistics& exact,
              const kb::HomonymStatistics& normalized) {
    const kb::KbStatistics s = kb.statistics();
    return Json{{"entities", s.entities},
                {"names", s.namePairs},
                {"distinct_names", s.distinctNames},
                {"alternative_ids", s.alternativeIds},
                {"ids_of_several_entities", s.idsOfSeveralEntities},
                {"entities_without_names", s.entitiesWithoutNames},
                {"entities_with_species", s.entitiesWithSpecies},
                {"semantic_types", s.semanticTypes},
                {"memory_bytes", s.memoryBytes},
                {"homonyms_exact", exact.homonymNames},
                {"homonyms_normalized", normalized.homonymNames},
                {"homonym_table", {{"exact", homonymJson(exact)}, {"normalized", homonymJson(normalized)}}}};
}

std::string renderStatsText(const Json& report) {
    std::ostringstream out;
    for (const Json& corpus : report["corpora"]) {
        std::string files;
        for (const auto& f : corpus["files"]) files += (files.empty() ? "" : ", ") + f.get<std::string>();
        corpusSection(out, "Corpus " + corpus["name"].get<std::string>() + " (" + files + ")", corpus);
    }
    if (report["corpora"].size() > 1) corpusSection(out, "All corpora", report["total"]);
    if (report.contains("kb")) {
        const Json& kb = report["kb"];
        out << "Knowledge base " << kb["file"].get<std::string>() << " (" << kb["format"].get<std::string>() << ")\n";
        row(out, "entities", kb["entities"]);
        row(out, "names (entity, name pairs)", kb["names"]);
        row(out, "distinct names", kb["distinct_names"]);
        row(out, "alternative ids", kb["alternative_ids"]);
        row(out, "ids held by several entities", kb["ids_of_several_entities"]);
        row(out, "semantic types", kb["semantic_types"]);
        row(out, "memory (MiB)", Json(static_cast<double>(kb["memory_bytes"].get<std::size_t>()) / (1024.0 * 1024.0)));
        out << "\n  Homonyms (BELHD Table 2)                      exact  normalized\n";
        const Json& e = kb["homonym_table"]["exact"];
        const Json& n = kb["homonym_table"]["normalized"];
        const std::pair<const char*, const char*> rows[] = {{"names (pairs)", "names"},
                                                            {"distinct names", "distinct_names"},
                                                            {"homonym names", "homonym_names"},
                                                            {"homonym pairs", "homonym_pairs"},
                                                            {"  preferred name", "preferred_name_pairs"},
                                                            {"  other", "other_name_pairs"},
                                                            {"  unexpandable (kept as default)", "unexpandable_pairs"},
                                                            {"  cross-species", "cross_species_pairs"},
                                                            {"success rate", "success_rate"},
                                                            {"remaining duplicate names", "remaining_duplicate_names"}};
        for (const auto& [label, key] : rows)
            out << "  " << std::left << std::setw(40) << label << std::right << std::setw(12) << num(e[key])
                << std::setw(12) << num(n[key]) << '\n';
    }
    if (report.contains("diagnostics") && !report["diagnostics"].empty()) {
        out << "\nDiagnostics (" << report["diagnostics"].size() << ")\n";
        for (const auto& d : report["diagnostics"]) out << "  " << d.get<std::string>() << '\n';
    }
    return out.str();
}

}  // namespace linkscope::cli
