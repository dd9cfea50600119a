#pragma once
// What an evaluation writes: a JSON report, a human-readable table, and a per-mention file for
// error analysis. Files are written atomically (AtomicFileWriter).
//
// JSON report (one object):
//   "mentions", "parts", "depth", "seconds", "acc@1", "acc@5", "correct@1", "correct@5",
//   "acc@k" [depth values, k = 1..depth], "recall@k" [same], "gold_ids",
//   "strict" {"acc@1", "acc@5", "acc@k"},
//   "per_type" {type: group}, "seen" / "unseen" / "homonym_affected" / "not_homonym_affected":
//   group or null when not computed, where a group is {"mentions", "acc@1", "acc@5",
//   "strict_acc@1", "strict_acc@5", "recall@64"};
//   "queries" {documents, mentions, filtered_by_type, cuiless_dropped, unknown_ids_dropped,
//   unknown_ids_kept, mixed_ids_filtered, queries, parts, composites, composites_split,
//   composites_from_corpus, split_failed, conjunctions, abbreviations_expanded} or null;
//   plus every key of ReportOptions::extra (run settings the caller wants recorded).
//
// Per-mention file: JSON Lines, one object per mention in query order:
//   {"document", "start", "end", "type", "mention", "expanded", "normalized": [parts],
//    "gold": [KB primary ids], "id_column", "composite", "abbreviation_expanded",
//    "split_failed", "homonym_affected" (null when not computed), "seen" (null likewise),
//    "rank" (first k at which the mention is correct, null beyond the depth), "strict_rank",
//    "correct@1", "correct@5", "strict@1",
//    "parts": [{"query", "rank", "strict_rank",
//               "predictions": [{"name", "ids": [..], "score", "correct", "strict"}]}]}
// JSON Lines rather than TSV because each mention carries a variable list of parts, each with
// its ranked predictions; one line per mention still greps and diffs well.
#include <cstddef>
#include <filesystem>
#include <map>
#include <span>
#include <string>
#include <string_view>

#include "retrieval/name_dictionary.h"

namespace linkscope::eval {

struct EvalQuery;
struct EvalResult;
struct RunComparison;

struct ReportOptions {
    /// Extra top-level string fields ("ranker": "tfidf char 1-2", "dictionary": ...).
    std::map<std::string, std::string> extra;
};

/// The JSON report, pretty-printed.
std::string reportJson(const EvalResult& result, const ReportOptions& options = {});
void writeJsonReport(const std::filesystem::path& path, const EvalResult& result, const ReportOptions& options = {});

/// A fixed-width table: acc@1/5/10/64, strict acc@1/5 and recall for every group.
std::string formatTable(const EvalResult& result);

struct PerMentionOptions {
    /// Predictions written per part (the ranking holds `depth`).
    std::size_t predictions = 10;
};

/// Writes the per-mention JSON Lines file. `queries` must be the ones evaluated (same order;
/// throws Error otherwise) and `dictionary` the one ranked.
void writePerMention(const std::filesystem::path& path, const EvalResult& result, std::span<const EvalQuery> queries,
                     const retrieval::NameDictionary& dictionary, const PerMentionOptions& options = {});

/// A comparison of two runs as JSON and as text.
std::string comparisonJson(const RunComparison& comparison);
std::string formatComparison(const RunComparison& comparison, std::string_view nameA = "A",
                             std::string_view nameB = "B");

}  // namespace linkscope::eval
