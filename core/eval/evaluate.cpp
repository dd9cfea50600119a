#include "eval/evaluate.h"

#include <algorithm>
#include <chrono>

#include "util/error.h"

namespace linkscope::eval {
namespace {

bool contains(std::span<const std::string> list, const std::string& value) noexcept {
    return std::find(list.begin(), list.end(), value) != list.end();
}

/// Scores the ranked candidates of one part: first correct ranks, and the first rank at which
/// each gold id appears (merged into goldRanks over the parts of the mention).
PartOutcome scorePart(std::vector<retrieval::Candidate> candidates, const retrieval::NameDictionary& dictionary,
                      std::span<const std::string> gold, std::vector<std::size_t>& goldRanks) {
    PartOutcome part;
    part.candidates = std::move(candidates);
    for (std::size_t i = 0; i < part.candidates.size(); ++i) {
        const std::size_t rank = i + 1;
        const auto& ids = dictionary[part.candidates[i].entry].ids;
        if (part.rank == 0 && idsMatch(ids, gold)) part.rank = rank;
        if (part.strictRank == 0 && idsMatchStrictly(ids, gold)) part.strictRank = rank;
        for (std::size_t g = 0; g < gold.size(); ++g)
            if ((goldRanks[g] == 0 || rank < goldRanks[g]) && contains(ids, gold[g])) goldRanks[g] = rank;
    }
    return part;
}

/// The mention is correct once all parts are: the largest first-correct rank, 0 if any is 0.
std::size_t mentionRank(const std::vector<PartOutcome>& parts, std::size_t PartOutcome::*member) {
    std::size_t worst = 0;
    for (const auto& part : parts) {
        if (part.*member == 0) return 0;
        worst = std::max(worst, part.*member);
    }
    return worst;
}

}  // namespace

bool idsMatch(std::span<const std::string> entryIds, std::span<const std::string> goldIds) noexcept {
    return std::any_of(entryIds.begin(), entryIds.end(), [&](const std::string& id) { return contains(goldIds, id); });
}

bool idsMatchStrictly(std::span<const std::string> entryIds, std::span<const std::string> goldIds) noexcept {
    return !entryIds.empty() &&
           std::all_of(entryIds.begin(), entryIds.end(), [&](const std::string& id) { return contains(goldIds, id); });
}

EvalResult evaluate(std::span<const EvalQuery> queries, const retrieval::NameDictionary& dictionary, const RankFn& rank,
                    const EvalOptions& options) {
    if (!rank) throw Error("evaluate: no ranking function");
    if (options.k > kMaximumDepth)
        throw Error("evaluate: the ranking depth " + std::to_string(options.k) + " is more than the maximum of " +
                    std::to_string(kMaximumDepth));
    const auto started = std::chrono::steady_clock::now();
    EvalResult result;
    result.depth = std::max(kMinimumDepth, options.k);

    // Every part of every query, flattened, so the ranker sees large batches.
    std::vector<std::string> texts;
    for (const auto& query : queries) {
        if (query.parts.empty())
            throw Error("evaluate: query without parts: \"" + query.mention + "\" in " + query.document);
        if (options.partText)
            for (std::size_t part = 0; part < query.parts.size(); ++part)
                texts.push_back(options.partText(query, part));
        else
            texts.insert(texts.end(), query.parts.begin(), query.parts.end());
    }
    result.parts = texts.size();

    std::vector<std::vector<retrieval::Candidate>> ranked;
    ranked.reserve(texts.size());
    const std::size_t batch = std::max<std::size_t>(1, options.batchSize);
    // Said at once: the first batch may take minutes (a dense encoder on a CPU).
    options.progress("Ranking queries", 0.0);
    for (std::size_t begin = 0; begin < texts.size(); begin += batch) {
        options.progress.checkCancelled();
        const std::size_t count = std::min(batch, texts.size() - begin);
        auto lists = rank(std::span<const std::string>(texts).subspan(begin, count), result.depth);
        if (lists.size() != count)
            throw Error("evaluate: the ranking function returned " + std::to_string(lists.size()) + " lists for " +
                        std::to_string(count) + " queries");
        for (auto& list : lists) {
            if (list.size() > result.depth) list.resize(result.depth);
            for (const auto& candidate : list)
                if (candidate.entry >= dictionary.size())
                    throw Error("evaluate: the ranking function returned entry " + std::to_string(candidate.entry) +
                                " of a dictionary of " + std::to_string(dictionary.size()) + " entries");
            ranked.push_back(std::move(list));
        }
        options.progress("Ranking queries", static_cast<double>(begin + count) / static_cast<double>(texts.size()));
    }

    result.all = GroupMetrics(result.depth);
    if (options.trainingIds) {
        result.seen = GroupMetrics(result.depth);
        result.unseen = GroupMetrics(result.depth);
    }
    const bool homonyms =
        std::any_of(queries.begin(), queries.end(), [](const auto& q) { return q.homonymAffected.has_value(); });
    if (homonyms) {
        result.homonymAffected = GroupMetrics(result.depth);
        result.notHomonymAffected = GroupMetrics(result.depth);
    }

    std::size_t next = 0;
    result.mentions.reserve(queries.size());
    for (const auto& query : queries) {
        MentionOutcome mention;
        mention.document = query.document;
        mention.start = query.start;
        mention.end = query.end;
        mention.goldRanks.assign(query.goldIds.size(), 0);
        for (std::size_t p = 0; p < query.parts.size(); ++p)
            mention.parts.push_back(scorePart(std::move(ranked[next++]), dictionary, query.goldIds, mention.goldRanks));
        mention.rank = mentionRank(mention.parts, &PartOutcome::rank);
        mention.strictRank = mentionRank(mention.parts, &PartOutcome::strictRank);

        result.all.add(mention.rank, mention.strictRank, mention.goldRanks);
        result.byType.try_emplace(query.type, result.depth)
            .first->second.add(mention.rank, mention.strictRank, mention.goldRanks);
        if (options.trainingIds) {
            const auto& training = *options.trainingIds;
            mention.seen = !query.goldIds.empty() && std::all_of(query.goldIds.begin(), query.goldIds.end(),
                                                                 [&](const auto& id) { return training.contains(id); });
            (*mention.seen ? *result.seen : *result.unseen).add(mention.rank, mention.strictRank, mention.goldRanks);
        }
        if (homonyms)
            (query.homonymAffected.value_or(false) ? *result.homonymAffected : *result.notHomonymAffected)
                .add(mention.rank, mention.strictRank, mention.goldRanks);
        result.mentions.push_back(std::move(mention));
    }
    result.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
    return result;
}

EvalResult evaluate(const QuerySet& queries, const retrieval::NameDictionary& dictionary, const RankFn& rank,
                    const EvalOptions& options) {
    EvalResult result = evaluate(std::span<const EvalQuery>(queries.queries), dictionary, rank, options);
    result.queryStatistics = queries.statistics;
    return result;
}

std::vector<std::uint8_t> correctness(const EvalResult& result, std::size_t k, bool strict) {
    std::vector<std::uint8_t> out;
    out.reserve(result.mentions.size());
    for (const auto& mention : result.mentions) out.push_back(mention.correctAt(k, strict) ? 1 : 0);
    return out;
}

}  // namespace linkscope::eval
