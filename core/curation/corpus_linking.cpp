#include "curation/corpus_linking.h"

#include <algorithm>

#include "corpus/link_column.h"
#include "util/error.h"

namespace linkscope::curation {
namespace {

// An id no KB holds: a mention without ids gets it so that the query builder keeps it (it drops
// CUI-less mentions); with dropUnknownIds off it stays a query of one part.
constexpr const char* kStandInGoldId = "LINKSCOPE:UNLINKED";

// Why a query cannot be ranked, or empty.
std::string unrankableReason(const Mention& mention, const eval::EvalQuery& query, std::size_t maxCharacters) {
    if (mention.text.empty()) return "empty mention text";
    // Offsets count characters (mention.h).
    const std::size_t characters = mention.end > mention.start ? mention.end - mention.start : mention.text.size();
    if (characters > maxCharacters)
        return "mention of " + std::to_string(characters) + " characters (at most " + std::to_string(maxCharacters) +
               " are ranked)";
    if (query.parts.empty() ||
        std::any_of(query.parts.begin(), query.parts.end(), [](const std::string& part) { return part.empty(); }))
        return "no text left after normalization";
    return {};
}

// The ids of the parts' entries at one rank, distinct, in part order; nullopt when a part has no
// candidate at that rank.
std::optional<LinkCandidate> candidateAt(const std::vector<const std::vector<retrieval::Candidate>*>& parts,
                                         std::size_t rank, const retrieval::NameDictionary& dictionary) {
    LinkCandidate candidate;
    bool first = true;
    for (const auto* ranked : parts) {
        if (rank >= ranked->size()) return std::nullopt;
        const retrieval::Candidate& c = (*ranked)[rank];
        candidate.parts.push_back(dictionary[c.entry].ids);
        for (const auto& id : dictionary[c.entry].ids)
            if (std::find(candidate.ids.begin(), candidate.ids.end(), id) == candidate.ids.end())
                candidate.ids.push_back(id);
        candidate.score = first ? c.score : std::min<double>(candidate.score, c.score);
        first = false;
    }
    return candidate;
}

}  // namespace

eval::QuerySet linkQueries(const Corpus& corpus, const kb::KnowledgeBase& kb, eval::QueryOptions options) {
    Corpus withIds = corpus;
    std::size_t mentions = 0;
    for (Document& document : withIds.documents())
        for (Mention& mention : document.mentions) {
            ++mentions;
            if (mention.ids.cuiLess || mention.ids.ids.empty()) mention.ids = ConceptIdList{{kStandInGoldId}};
        }
    options.types.clear();
    options.dropUnknownIds = false;
    eval::QuerySet queries = eval::buildQueries(withIds, kb, options);
    if (queries.queries.size() != mentions)
        throw Error("linking: " + std::to_string(queries.queries.size()) + " queries were made of " +
                    std::to_string(mentions) + " mentions");
    return queries;
}

CorpusLinks linkCorpus(const Corpus& corpus, const eval::QuerySet& queries, const retrieval::NameDictionary& dictionary,
                       const eval::RankFn& rank, const CorpusLinkOptions& options) {
    if (!rank) throw Error("linking: no ranking function");
    const std::size_t top = std::max<std::size_t>(1, options.top);
    const std::size_t depth = std::max(options.depth, top);

    // The mentions in corpus order, each with its query (linkQueries keeps that order).
    struct Item {
        std::size_t document = 0;
        std::size_t mention = 0;
        std::size_t firstPart = 0;  ///< into `texts`; unused when unrankable
    };
    CorpusLinks out;
    std::vector<Item> items;
    std::vector<std::string> texts;
    std::size_t q = 0;
    const auto documents = corpus.documents();
    out.links.resize(documents.size());
    for (std::size_t d = 0; d < documents.size(); ++d) {
        out.links[d].resize(documents[d].mentions.size());
        for (std::size_t m = 0; m < documents[d].mentions.size(); ++m, ++q) {
            const Mention& mention = documents[d].mentions[m];
            const eval::EvalQuery& query = queries.queries.at(q);
            if (query.document != documents[d].pmid() || query.start != mention.start || query.end != mention.end)
                throw Error("linking: the queries do not follow the mentions of document " + documents[d].pmid());
            ++out.mentions;
            MentionLink& link = out.links[d][m];
            link.unrankable = unrankableReason(mention, query, options.maxMentionCharacters);
            if (!link.unrankable.empty()) {
                link.nil = true;
                out.unrankable.push_back({documents[d].pmid(), mention.start, mention.end, link.unrankable});
                continue;
            }
            items.push_back({d, m, texts.size()});
            for (std::size_t p = 0; p < query.parts.size(); ++p)
                texts.push_back(options.partText ? options.partText(query, p) : query.parts[p]);
        }
    }

    // Every part ranked in batches, so that the ranker sees large ones.
    std::vector<std::vector<retrieval::Candidate>> ranked(texts.size());
    const std::size_t batch = std::max<std::size_t>(1, options.batchSize);
    for (std::size_t begin = 0; begin < texts.size(); begin += batch) {
        options.progress.checkCancelled();
        options.progress("Linking mentions", static_cast<double>(begin) / static_cast<double>(texts.size()));
        const std::size_t count = std::min(batch, texts.size() - begin);
        auto result = rank(std::span<const std::string>(texts).subspan(begin, count), depth);
        if (result.size() != count) throw Error("linking: the ranker returned a wrong number of lists");
        for (std::size_t i = 0; i < count; ++i) ranked[begin + i] = std::move(result[i]);
    }
    options.progress("Linking mentions", 1.0);

    for (std::size_t i = 0; i < items.size(); ++i) {
        const Item& item = items[i];
        const std::size_t partCount = (i + 1 < items.size() ? items[i + 1].firstPart : texts.size()) - item.firstPart;
        std::vector<const std::vector<retrieval::Candidate>*> parts;
        for (std::size_t p = 0; p < partCount; ++p) parts.push_back(&ranked[item.firstPart + p]);
        MentionLink& link = out.links[item.document][item.mention];
        // Candidates naming the same ids as a better one are skipped: the K best are K entities.
        for (std::size_t r = 0; r < depth && link.candidates.size() < top; ++r) {
            auto candidate = candidateAt(parts, r, dictionary);
            if (!candidate) break;
            const bool repeated = std::any_of(link.candidates.begin(), link.candidates.end(),
                                              [&](const LinkCandidate& c) { return c.ids == candidate->ids; });
            if (!repeated) link.candidates.push_back(std::move(*candidate));
        }
        if (link.candidates.empty()) {
            link.nil = true;
        } else if (options.nilBelow && link.candidates.front().score < *options.nilBelow) {
            link.nil = true;
            ++out.nilBelow;
        } else {
            ++out.linked;
        }
    }
    return out;
}

std::string linkColumnFor(const MentionLink& link) {
    if (link.nil || link.candidates.empty()) return "-1";
    const auto& ids = link.candidates.front().ids;
    return formatLinkColumn(ConceptIdList{ids, ids.size() > 1 ? IdJoin::Alternative : IdJoin::Single});
}

Corpus withLinks(const Corpus& corpus, const CorpusLinks& links) {
    Corpus out = corpus;
    auto documents = out.documents();
    if (links.links.size() != documents.size()) throw Error("linking: the links do not fit the corpus");
    for (std::size_t d = 0; d < documents.size(); ++d) {
        auto& mentions = documents[d].mentions;
        if (links.links[d].size() != mentions.size()) throw Error("linking: the links do not fit the corpus");
        for (std::size_t m = 0; m < mentions.size(); ++m) {
            const MentionLink& link = links.links[d][m];
            Mention& mention = mentions[m];
            if (link.nil || link.candidates.empty()) {
                mention.ids = ConceptIdList{{}, IdJoin::Single, true};
            } else {
                const auto& ids = link.candidates.front().ids;
                mention.ids = ConceptIdList{ids, ids.size() > 1 ? IdJoin::Alternative : IdJoin::Single};
            }
            mention.idColumn = linkColumnFor(link);
        }
    }
    return out;
}

}  // namespace linkscope::curation
