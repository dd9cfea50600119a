#include "train/training_data.h"

#include <algorithm>
#include <numeric>
#include <unordered_map>

#include "corpus/corpus.h"
#include "eval/dictionary.h"
#include "kb/knowledge_base.h"
#include "train/method_inputs.h"
#include "util/error.h"

namespace linkscope::train {

bool TrainingData::isPositive(std::uint32_t entry, const std::vector<std::uint32_t>& gold) const noexcept {
    for (const auto entity : entryEntities[entry])
        if (std::find(gold.begin(), gold.end(), entity) != gold.end()) return true;
    return false;
}

namespace {

// The gold ids of part `part`: its own id when a composite was split one part per id, else all.
std::vector<std::string> partGold(const eval::EvalQuery& query, std::size_t part) {
    if (query.parts.size() > 1 && query.parts.size() == query.goldIds.size()) return {query.goldIds[part]};
    return query.goldIds;
}

}  // namespace

std::vector<std::size_t> sampleByDocument(std::span<const TrainingMention> mentions, std::size_t cap,
                                          std::uint64_t seed) {
    std::vector<std::size_t> kept;
    if (cap == 0 || mentions.size() <= cap) {
        kept.resize(mentions.size());
        std::iota(kept.begin(), kept.end(), std::size_t{0});
        return kept;
    }
    // The documents in order of first appearance, each with its mentions.
    std::vector<std::uint32_t> documents;
    std::unordered_map<std::uint32_t, std::vector<std::size_t>> mentionsOf;
    for (std::size_t m = 0; m < mentions.size(); ++m) {
        auto [it, added] = mentionsOf.try_emplace(mentions[m].document);
        if (added) documents.push_back(mentions[m].document);
        it->second.push_back(m);
    }
    // A Fisher-Yates shuffle with our own uniform draw: std::shuffle differs between libraries.
    std::mt19937_64 rng(seed);
    for (std::size_t i = documents.size(); i > 1; --i) {
        const std::uint64_t limit = UINT64_MAX - UINT64_MAX % i;
        std::uint64_t value = rng();
        while (value >= limit) value = rng();
        std::swap(documents[i - 1], documents[value % i]);
    }
    for (const auto document : documents) {
        const auto& own = mentionsOf.at(document);
        if (kept.size() + own.size() > cap) continue;
        kept.insert(kept.end(), own.begin(), own.end());
        if (kept.size() == cap) break;
    }
    if (kept.empty()) {
        const auto& first = mentionsOf.at(documents.front());
        kept.assign(first.begin(), first.end());
    }
    std::sort(kept.begin(), kept.end());
    return kept;
}

TrainingData buildTrainingData(const TrainingPreset& preset, const Schedule& schedule, const kb::KnowledgeBase& kb,
                               const Corpus* trainCorpus, const Corpus* dev, const eval::QueryOptions& queryOptions,
                               const TokenCounter& count, bool holdOut) {
    TrainingData data;
    eval::DictionaryOptions dictionaryOptions;
    dictionaryOptions.homonymExpansion = preset.homonymExpansion;
    eval::EvalDictionaryBuilder builder(dictionaryOptions);
    builder.addKnowledgeBase(kb);
    data.dictionary = builder.build().entries;
    if (holdOut && !dev) {
        // Drawn from the KB's plain names (a homonym-expanded dictionary renames shared names).
        if (preset.homonymExpansion) {
            eval::EvalDictionaryBuilder plain;
            plain.addKnowledgeBase(kb);
            data.holdout = holdOutConcepts(plain.build().entries, preset.seed, schedule.maxDevMentions);
        } else {
            data.holdout = holdOutConcepts(data.dictionary, preset.seed, schedule.maxDevMentions);
        }
        data.dictionary = withoutQueryNames(std::move(data.dictionary), data.holdout);
        data.devQueries = holdoutQueries(data.holdout);
    }

    std::unordered_map<std::string, std::uint32_t> entityOf;
    data.entryEntities.resize(data.dictionary.size());
    for (std::uint32_t entry = 0; entry < data.dictionary.size(); ++entry) {
        for (const auto& id : data.dictionary[entry].ids) {
            auto [it, added] = entityOf.try_emplace(id, static_cast<std::uint32_t>(data.entityIds.size()));
            if (added) {
                data.entityIds.push_back(id);
                data.entityEntries.emplace_back();
            }
            data.entryEntities[entry].push_back(it->second);
            data.entityEntries[it->second].push_back(entry);
        }
        data.nameInputs.push_back(
            fittedNameInput(data.dictionary[entry].name, preset.nameMarkers(), preset.entityMaxLength, count));
    }
    if (preset.method == Method::PrototypeSrn) {
        data.entityInputs.reserve(data.entityIds.size());
        for (const auto& id : data.entityIds) {
            const auto entity = kb.findEntity(id);
            data.entityInputs.push_back(entity ? entityInput(kb, *entity, preset.prototype.maxSynonyms) : id);
        }
    }

    if (dev) {
        data.devQueries = eval::buildQueries(*dev, kb, queryOptions);
        if (schedule.maxDevMentions != 0 && data.devQueries.queries.size() > schedule.maxDevMentions)
            data.devQueries.queries.resize(schedule.maxDevMentions);
    }
    if (!trainCorpus) {
        if (linksMentions(preset.method))
            throw Error("training: method " + std::string(methodName(preset.method)) + " needs a training corpus");
        return data;  // the self-alignment learns from the KB's names alone
    }
    const Corpus& train = *trainCorpus;

    // Training mentions: one per query part, with its gold entities and its document.
    const eval::QuerySet trainQueries = eval::buildQueries(train, kb, queryOptions);
    std::unordered_map<std::string, std::uint32_t> documentIndex;
    for (const auto& document : train.documents())
        documentIndex.emplace(document.pmid(), static_cast<std::uint32_t>(documentIndex.size()));
    for (const auto& query : trainQueries.queries) {
        const Document* document = train.find(query.document);
        for (std::size_t part = 0; part < query.parts.size(); ++part) {
            TrainingMention mention;
            mention.part = query.parts[part];
            const auto gold = partGold(query, part);
            if (std::any_of(gold.begin(), gold.end(), [&](const auto& id) { return data.holdout.holdsConcept(id); })) {
                ++data.trainPartsHeldOut;
                continue;
            }
            for (const auto& id : gold)
                if (const auto it = entityOf.find(id); it != entityOf.end()) mention.gold.push_back(it->second);
            if (mention.gold.empty()) {
                ++data.trainPartsWithoutEntity;
                continue;
            }
            mention.input = document ? fittedMentionInput(*document, query.start, query.end, mention.part,
                                                          preset.markers, preset.maxLength, count)
                                     : nameInput(mention.part, preset.markers);
            mention.document = document ? documentIndex.at(query.document) : 0;
            data.train.push_back(std::move(mention));
        }
    }
    data.trainMentionsAvailable = data.train.size();
    if (data.train.empty())
        throw Error("training: no training mention is left after preprocessing (are the ids in the KB?)");
    if (schedule.maxTrainMentions != 0 && data.train.size() > schedule.maxTrainMentions) {
        // Whole documents, not single mentions: a draw of mentions breaks the (document,
        // entity) groups of the prototype loss and BELHD's candidate sharing.
        const auto order = sampleByDocument(data.train, schedule.maxTrainMentions, preset.seed);
        std::vector<TrainingMention> kept;
        kept.reserve(order.size());
        for (const auto index : order) kept.push_back(std::move(data.train[index]));
        data.train = std::move(kept);
    }
    return data;
}

}  // namespace linkscope::train
