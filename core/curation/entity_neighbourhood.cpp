#include "curation/entity_neighbourhood.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <unordered_map>

#include "curation/sparse_candidates.h"
#include "eval/dictionary.h"
#include "kb/knowledge_base.h"
#include "project/loaded_project.h"
#include "retrieval/tfidf.h"
#include "text/normalizer.h"

namespace linkscope::curation {

namespace {

struct MentionAt {
    std::size_t split = 0;
    std::size_t document = 0;
    std::size_t mention = 0;
};

struct EntityGroup {
    kb::EntityIndex index = 0;
    std::set<std::string, std::less<>> ids;  // primary and alternative ids
    std::vector<MentionAt> mentions;
};

EntityGroup groupOf(const kb::KnowledgeBase& kb, kb::EntityIndex e) {
    EntityGroup group;
    group.index = e;
    group.ids.emplace(kb.primaryId(e));
    for (const std::string_view alt : kb.alternativeIds(e)) group.ids.emplace(alt);
    return group;
}

bool names(const EntityGroup& group, const Mention& mention) {
    return std::any_of(mention.ids.ids.begin(), mention.ids.ids.end(),
                       [&](const std::string& id) { return group.ids.count(id) > 0; });
}

// Water-filling: each count gets the same share of `budget`, those that need less give their
// rest to the others, and what cannot be split evenly goes to the first (the focus entity).
std::vector<std::size_t> fairQuotas(const std::vector<std::size_t>& counts, std::size_t budget) {
    std::vector<std::size_t> quotas(counts.size(), 0);
    std::size_t remaining = budget;
    while (remaining > 0) {
        std::vector<std::size_t> open;
        for (std::size_t i = 0; i < counts.size(); ++i)
            if (quotas[i] < counts[i]) open.push_back(i);
        if (open.empty()) break;
        const std::size_t share = remaining / open.size();
        if (share == 0) {
            for (std::size_t k = 0; k < remaining; ++k) ++quotas[open[k]];
            break;
        }
        for (const std::size_t i : open) {
            const std::size_t give = std::min(counts[i] - quotas[i], share);
            quotas[i] += give;
            remaining -= give;
        }
    }
    return quotas;
}

// `quota` of `items`, evenly spaced, in their order.
template <class T>
std::vector<T> thinned(const std::vector<T>& items, std::size_t quota) {
    if (quota >= items.size()) return items;
    std::vector<T> kept;
    kept.reserve(quota);
    for (std::size_t k = 0; k < quota; ++k) kept.push_back(items[k * items.size() / quota]);
    return kept;
}

std::vector<double> cosineDistancesOf(std::size_t n, const std::function<double(std::size_t, std::size_t)>& cosine) {
    std::vector<double> distances(n * n, 0.0);
    for (std::size_t i = 0; i < n; ++i)
        for (std::size_t j = i + 1; j < n; ++j)
            distances[i * n + j] = distances[j * n + i] = 1.0 - std::clamp(cosine(i, j), -1.0, 1.0);
    return distances;
}

}  // namespace

std::vector<double> tfidfCosineDistances(std::span<const std::string> texts) {
    const std::shared_ptr<const text::Normalizer> normalizer = eval::bioSynDictionaryNormalizer();
    std::vector<std::string> normalized;
    normalized.reserve(texts.size());
    for (const std::string& text : texts) normalized.push_back(normalizer->normalize(text));
    const std::vector<std::string_view> views(normalized.begin(), normalized.end());
    retrieval::TfidfVectorizer vectorizer(retrieval::TfidfSettings::bioSyn());
    const retrieval::SparseRows rows = vectorizer.fitTransform(views);
    // Rows are l2-normalized, so the cosine is the dot product of two sorted sparse rows.
    return cosineDistancesOf(texts.size(), [&rows](std::size_t i, std::size_t j) {
        const auto ti = rows.rowTerms(i), tj = rows.rowTerms(j);
        const auto wi = rows.rowWeights(i), wj = rows.rowWeights(j);
        double dot = 0.0;
        std::size_t a = 0, b = 0;
        while (a < ti.size() && b < tj.size()) {
            if (ti[a] < tj[b]) {
                ++a;
            } else if (tj[b] < ti[a]) {
                ++b;
            } else {
                dot += static_cast<double>(wi[a++]) * static_cast<double>(wj[b++]);
            }
        }
        return dot;
    });
}

std::vector<double> denseCosineDistances(std::span<const std::string> texts, const TextEmbedding& embed) {
    if (texts.empty()) return {};
    const std::vector<float> vectors = embed(texts);
    const std::size_t n = texts.size();
    if (vectors.empty() || vectors.size() % n != 0)
        throw Error("embedding plot: the text embedding returned " + std::to_string(vectors.size()) + " values for " +
                    std::to_string(n) + " texts");
    const std::size_t dim = vectors.size() / n;
    std::vector<double> norms(n, 0.0);
    for (std::size_t i = 0; i < n; ++i) {
        double sum = 0.0;
        for (std::size_t k = 0; k < dim; ++k) sum += static_cast<double>(vectors[i * dim + k]) * vectors[i * dim + k];
        if (!std::isfinite(sum))
            throw Error("embedding plot: the vector of text " + std::to_string(i) + " is not finite");
        norms[i] = std::sqrt(sum);
    }
    return cosineDistancesOf(n, [&](std::size_t i, std::size_t j) {
        if (norms[i] == 0.0 || norms[j] == 0.0) return 0.0;  // no direction: unrelated to all
        double dot = 0.0;
        for (std::size_t k = 0; k < dim; ++k) dot += static_cast<double>(vectors[i * dim + k]) * vectors[j * dim + k];
        return dot / (norms[i] * norms[j]);
    });
}

EntityNeighbourhood gatherEntityNeighbourhood(const kb::KnowledgeBase& kb, std::span<const SplitCorpus> splits,
                                              const SparseCandidates& candidates, std::string_view entityId,
                                              const NeighbourhoodOptions& options, const ProgressSink& progress) {
    const std::optional<kb::EntityIndex> focusIndex = kb.findEntity(entityId);
    if (!focusIndex) throw Error("embedding plot: the knowledge base has no entity " + std::string(entityId));
    progress("Collecting the entity's mentions", 0.0);
    std::vector<EntityGroup> groups{groupOf(kb, *focusIndex)};
    const std::string focusId(kb.primaryId(*focusIndex));

    // 1. The focus entity's mention texts (with their counts) are the queries.
    std::map<std::string, std::size_t, std::less<>> queryCounts;
    for (const SplitCorpus& split : splits)
        for (const Document& document : split.corpus.documents())
            for (const Mention& mention : document.mentions)
                if (names(groups.front(), mention)) ++queryCounts[mention.text];
    if (queryCounts.empty())
        for (const std::string_view name : kb.names(*focusIndex)) ++queryCounts[std::string(name)];
    std::vector<std::pair<std::string, std::size_t>> queries(queryCounts.begin(), queryCounts.end());
    std::stable_sort(queries.begin(), queries.end(), [](const auto& a, const auto& b) { return a.second > b.second; });
    if (queries.size() > options.maxQueries) queries.resize(options.maxQueries);

    // 2. Competitors: the entities the sparse ranking puts beside the focus for those texts.
    std::unordered_map<std::string, double> competition;
    for (std::size_t q = 0; q < queries.size(); ++q) {
        if (q % 16 == 0) {
            progress.checkCancelled();
            progress("Ranking competing entities",
                     0.1 + 0.5 * static_cast<double>(q) / static_cast<double>(queries.size()));
        }
        for (const CandidateRow& row : candidates.rank(queries[q].first, options.candidatesPerQuery))
            if (row.entity != focusId) competition[row.entity] += static_cast<double>(queries[q].second) * row.score;
    }
    std::vector<std::pair<std::string, double>> ranked(competition.begin(), competition.end());
    std::sort(ranked.begin(), ranked.end(), [](const auto& a, const auto& b) {
        return a.second != b.second ? a.second > b.second : a.first < b.first;
    });

    EntityNeighbourhood result;
    result.entities.push_back({focusId, std::string(kb.preferredName(*focusIndex)), 0.0, 0, 0, 0});
    for (const auto& [id, score] : ranked) {
        if (result.entities.size() > options.competitors) break;
        const std::optional<kb::EntityIndex> e = kb.findEntity(id);
        if (!e || *e == *focusIndex) continue;
        groups.push_back(groupOf(kb, *e));
        result.entities.push_back({std::string(kb.primaryId(*e)), std::string(kb.preferredName(*e)), score, 0, 0, 0});
    }
    progress.checkCancelled();

    // 3. Every plotted entity's mentions; a mention naming several goes to the first.
    progress("Collecting the competitors' mentions", 0.6);
    for (std::size_t s = 0; s < splits.size(); ++s) {
        const auto documents = splits[s].corpus.documents();
        for (std::size_t d = 0; d < documents.size(); ++d)
            for (std::size_t m = 0; m < documents[d].mentions.size(); ++m)
                for (EntityGroup& group : groups)
                    if (names(group, documents[d].mentions[m])) {
                        group.mentions.push_back({s, d, m});
                        break;
                    }
    }

    // 4. Room: names first, then mentions, both shared fairly among the entities.
    std::vector<std::size_t> nameCounts, mentionCounts;
    for (const EntityGroup& group : groups) {
        nameCounts.push_back(kb.names(group.index).size());
        mentionCounts.push_back(group.mentions.size());
    }
    const std::vector<std::size_t> nameQuotas = fairQuotas(nameCounts, options.maxPoints);
    std::size_t namesKept = 0;
    for (const std::size_t q : nameQuotas) namesKept += q;
    const std::vector<std::size_t> mentionQuotas = fairQuotas(mentionCounts, options.maxPoints - namesKept);

    for (std::size_t g = 0; g < groups.size(); ++g) {
        NeighbourhoodEntity& entity = result.entities[g];
        const kb::StringRange entityNames = kb.names(groups[g].index);
        for (std::size_t k = 0; k < nameQuotas[g]; ++k) {  // preferred name first
            NeighbourhoodPoint point;
            point.label = std::string(entityNames[k]);
            point.entity = entity.id;
            point.kind = PointKind::Name;
            result.points.push_back(std::move(point));
        }
        entity.namePoints = nameQuotas[g];
        entity.mentionsInProject = groups[g].mentions.size();
        for (const MentionAt& at : thinned(groups[g].mentions, mentionQuotas[g])) {
            const Document& document = splits[at.split].corpus.documents()[at.document];
            const Mention& mention = document.mentions[at.mention];
            NeighbourhoodPoint point;
            point.label = mention.text;
            point.entity = entity.id;
            point.kind = PointKind::Mention;
            point.split = splits[at.split].split;
            point.pmid = document.pmid();
            point.start = mention.start;
            point.end = mention.end;
            result.points.push_back(std::move(point));
        }
        entity.mentionPoints = mentionQuotas[g];
        result.sampledOutMentions += groups[g].mentions.size() - mentionQuotas[g];
    }
    progress.checkCancelled();

    // 5. Distances between all the texts.
    progress("Measuring distances", 0.8);
    std::vector<std::string> labels;
    labels.reserve(result.points.size());
    for (const NeighbourhoodPoint& point : result.points) labels.push_back(point.label);
    result.distances = options.embed ? denseCosineDistances(labels, options.embed) : tfidfCosineDistances(labels);
    progress("Neighbourhood gathered", 1.0);
    return result;
}

}  // namespace linkscope::curation
