#include "corpus/corpus_stats.h"

#include <set>
#include <unordered_set>

namespace linkscope {
namespace {
// "-1" inside a composite marks a CUI-less part (see parseConceptIdList), not a concept.
bool isConcept(std::string_view id) noexcept { return id != "-1"; }

template <typename Map>
void increment(Map& counts, std::string_view key) {
    auto it = counts.find(key);
    if (it == counts.end()) it = counts.emplace(std::string(key), 0).first;
    ++it->second;
}
}  // namespace

CorpusStats computeCorpusStats(const Corpus& corpus) {
    CorpusStats stats;
    stats.documents = corpus.size();
    stats.duplicateDocuments = corpus.duplicates.size();
    std::unordered_set<std::string_view> ids;  // views into the corpus: no copies
    for (const auto& document : corpus.documents()) {
        stats.mentions += document.mentions.size();
        for (const auto& mention : document.mentions) {
            increment(stats.mentionsByType, mention.type);
            if (mention.ids.join == IdJoin::Alternative) ++stats.alternativeMentions;
            if (mention.ids.join == IdJoin::Conjunction) ++stats.conjunctionMentions;
            if (mention.ids.cuiLess) ++stats.cuiLessMentions;
            bool cuiLessPart = false;
            for (const auto& id : mention.ids.ids) {
                if (isConcept(id))
                    ids.insert(id);
                else
                    cuiLessPart = true;
            }
            if (cuiLessPart) ++stats.mentionsWithCuiLessPart;
            if (!mention.individualMentions.empty()) ++stats.mentionsWithIndividualMentions;
            if (!mention.offsetsValid) ++stats.mentionsWithInvalidOffsets;
        }
        stats.relations += document.relations.size();
        for (const auto& relation : document.relations) increment(stats.relationsByType, relation.type);
    }
    stats.distinctIds = ids.size();
    return stats;
}

UnknownIdStats countUnknownIds(const Corpus& corpus, const std::function<bool(std::string_view canonicalId)>& isKnown) {
    UnknownIdStats stats;
    std::set<std::string_view> unknown;
    std::unordered_set<std::string_view> known;  // ask the KB once per id
    for (const auto& document : corpus.documents()) {
        for (const auto& mention : document.mentions) {
            bool mentionUnknown = false;
            for (const auto& id : mention.ids.ids) {
                if (!isConcept(id) || known.contains(id)) continue;
                if (unknown.contains(id) || !isKnown(id)) {
                    unknown.insert(id);
                    mentionUnknown = true;
                } else {
                    known.insert(id);
                }
            }
            if (mentionUnknown) ++stats.mentionsWithUnknownId;
        }
    }
    stats.unknownIds.assign(unknown.begin(), unknown.end());
    return stats;
}

}  // namespace linkscope
