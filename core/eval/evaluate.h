#pragma once
// Running an evaluation: every query part is ranked against the dictionary by a caller-supplied
// ranking function to depth max(64, k), and the ranks of the first correct entries give every
// metric (metrics.h) for every cut-off at once.
//
// Correctness of one ranked entry for one part, given the mention's gold ids:
//   lenient (BioSyn's check_label): the entry's ids intersect the gold ids. An entry shared by
//            several entities (an unresolved homonym) is correct when any of them is gold, and
//            every part of a composite mention may match any of its gold ids (BioSyn does not
//            align parts with ids, and corpora do not order them).
//   strict  (BELHD): the entry is correct only when EVERY id it names is gold. For a mention
//            with one gold entity this means the entry names that entity alone, so a homonym
//            entry is wrong even when it contains the gold; an entry naming several entities
//            is accepted only when all of them are gold ids of a composite mention, where the
//            prediction asserts nothing false and no choice is left unresolved.
// A mention is correct at k when every one of its parts is (BioSyn: "predictions for composite
// entities are correct if every prediction for each separate mention is correct").
#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <unordered_set>
#include <vector>

#include "eval/metrics.h"
#include "eval/queries.h"
#include "retrieval/name_dictionary.h"
#include "util/progress.h"

namespace linkscope::eval {

/// Ranks each query against the dictionary: result[i] holds at most k candidates for
/// queries[i], best first. Must return exactly one list per query.
using RankFn =
    std::function<std::vector<std::vector<retrieval::Candidate>>(std::span<const std::string> queries, std::size_t k)>;

/// Evaluations always rank at least this deep, so acc@k / recall@k up to 64 are reported
/// (Le & Nguyen's Table 2 goes to 64 candidates).
inline constexpr std::size_t kMinimumDepth = 64;
/// The deepest ranking evaluate() accepts: each group's metrics hold three counts per rank, and
/// the ranker a heap of that many candidates per query, so the depth sizes memory.
inline constexpr std::size_t kMaximumDepth = 100'000;

struct EvalOptions {
    /// Requested depth; the ranking depth is max(kMinimumDepth, k). Error above kMaximumDepth.
    std::size_t k = kMinimumDepth;
    /// Gold ids of the training split (goldIdSet of the training queries): enables the
    /// seen / unseen breakdown. A mention is "seen" when all of its gold ids are in the set.
    std::optional<std::unordered_set<std::string>> trainingIds;
    /// Parts ranked per call of the ranking function (progress and cancellation between calls).
    std::size_t batchSize = 4096;
    ProgressSink progress;
    /// What the ranking function is given for part `part` of a query; unset: the part itself.
    /// A method that reads the mention in its context (BELHD, Le & Nguyen) gives the part marked
    /// in its sentence (train/method_linker.h).
    std::function<std::string(const EvalQuery&, std::size_t part)> partText;
};

/// The ranking of one query part.
struct PartOutcome {
    std::vector<retrieval::Candidate> candidates;  ///< as ranked, at most `depth`
    std::size_t rank = 0;                          ///< 1-based rank of the first correct entry, 0 = none
    std::size_t strictRank = 0;                    ///< same under strict correctness
};

/// The outcome of one query (mention), in query order.
struct MentionOutcome {
    std::string document;
    std::size_t start = 0;
    std::size_t end = 0;
    std::vector<PartOutcome> parts;
    /// Rank at which the mention becomes correct (the largest rank of its parts), 0 = not
    /// within the depth; correct at k iff 0 < rank <= k.
    std::size_t rank = 0;
    std::size_t strictRank = 0;
    /// Per gold id (query order): first rank at which some part's top entries name it, 0 = none.
    std::vector<std::size_t> goldRanks;
    std::optional<bool> seen;

    bool correctAt(std::size_t k, bool strict = false) const noexcept {
        const std::size_t r = strict ? strictRank : rank;
        return r != 0 && r <= k;
    }
};

struct EvalResult {
    std::size_t depth = 0;
    double seconds = 0.0;  ///< wall time of evaluate(), ranking included
    std::size_t parts = 0;
    /// Filled by the QuerySet overload (dropped CUI-less mentions etc.).
    std::optional<QueryStatistics> queryStatistics;
    std::vector<MentionOutcome> mentions;

    GroupMetrics all;
    std::map<std::string, GroupMetrics> byType;
    std::optional<GroupMetrics> seen;  ///< with EvalOptions::trainingIds
    std::optional<GroupMetrics> unseen;
    std::optional<GroupMetrics> homonymAffected;  ///< when the queries carry the flag
    std::optional<GroupMetrics> notHomonymAffected;
};

/// Lenient and strict correctness of one entry (see the header comment).
bool idsMatch(std::span<const std::string> entryIds, std::span<const std::string> goldIds) noexcept;
bool idsMatchStrictly(std::span<const std::string> entryIds, std::span<const std::string> goldIds) noexcept;

/// Ranks and scores the queries. Throws Error when the ranking function returns the wrong
/// number of lists or an entry outside the dictionary; Cancelled when the progress sink asks.
EvalResult evaluate(std::span<const EvalQuery> queries, const retrieval::NameDictionary& dictionary, const RankFn& rank,
                    const EvalOptions& options = {});
EvalResult evaluate(const QuerySet& queries, const retrieval::NameDictionary& dictionary, const RankFn& rank,
                    const EvalOptions& options = {});

/// Per-mention correctness at k (1 = correct), in query order: the input of compare.h.
std::vector<std::uint8_t> correctness(const EvalResult& result, std::size_t k, bool strict = false);

}  // namespace linkscope::eval
