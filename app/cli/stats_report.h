#pragma once
// The figures `linkscope-cli stats` reports, gathered into one JSON document; the human-readable
// table is rendered from that same document so the two outputs can never disagree.
#include <nlohmann/json.hpp>

#include <span>
#include <string>

namespace linkscope {
class Corpus;
namespace kb {
class KnowledgeBase;
struct HomonymStatistics;
}  // namespace kb

namespace cli {

/// Figures of one corpus; with a KB, also the ids the KB does not know.
nlohmann::json corpusReport(const Corpus& corpus, const kb::KnowledgeBase* kb);
/// Sums over several corpora (distinct ids are a union, not a sum).
nlohmann::json totalReport(std::span<const Corpus> corpora, const kb::KnowledgeBase* kb);
/// KB size figures and the BELHD homonym table for exact and normalized names.
nlohmann::json kbReport(const kb::KnowledgeBase& kb, const kb::HomonymStatistics& exact,
                        const kb::HomonymStatistics& normalized);
/// The report as aligned plain text.
std::string renderStatsText(const nlohmann::json& report);

}  // namespace cli
}  // namespace linkscope
