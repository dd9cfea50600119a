#include "train/training_data.h"

#include <algorithm>
#include <numeric>

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

TrainingData buildTrainingData(const TrainingPreset& preset, const Schedule& schedule, const kb::KnowledgeBase& kb,
                               const Corpus& train, const Corpus* dev, const eval::QueryOptions& queryOptions,
                               const TokenCounter& count) {
    TrainingData data;
    eval::DictionaryOptions dictionaryOptions;
    dictionaryOptions.homonymExpansion = preset.homonymExpansion;
    eval::EvalDictionaryBuilder builder(dictionaryOptions);
    builder.addKnowledgeBase(kb);
    data.dictionary = builder.build().entries;

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
        data.nameInputs.push_back(fittedNameInput(data.dictionary[entry].name, preset.markers, preset.entityMaxLength, count));
    }
    if (preset.method == Method::PrototypeSrn) {
        data.entityInputs.reserve(data.entityIds.size());
        for (const auto& id : data.entityIds) {
            const auto entity = kb.findEntity(id);
            data.entityInputs.push_back(entity ? entityInput(kb, *entity, preset.prototype.maxSynonyms) : id);
        }
    }

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
            for (const auto& id : partGold(query, part))
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
    if (data.train.empty()) throw Error("training: no training mention is left after preprocessing (are the ids in the KB?)");
    if (schedule.maxTrainMentions != 0 && data.train.size() > schedule.maxTrainMentions) {
        // A seeded draw, kept in corpus order so that the mentions of a document stay together.
        std::vector<std::size_t> order(data.train.size());
        std::iota(order.begin(), order.end(), std::size_t{0});
        std::mt19937_64 rng(preset.seed);
        std::shuffle(order.begin(), order.end(), rng);
        order.resize(schedule.maxTrainMentions);
        std::sort(order.begin(), order.end());
        std::vector<TrainingMention> kept;
        kept.reserve(order.size());
        for (const auto index : order) kept.push_back(std::move(data.train[index]));
        data.train = std::move(kept);
    }

    if (dev) {
        data.devQueries = eval::buildQueries(*dev, kb, queryOptions);
        if (schedule.maxDevMentions != 0 && data.devQueries.queries.size() > schedule.maxDevMentions)
            data.devQueries.queries.resize(schedule.maxDevMentions);
    }
    return data;
}

}  // namespace linkscope::train
