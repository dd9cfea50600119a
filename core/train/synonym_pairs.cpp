#include "train/synonym_pairs.h"

#include <algorithm>
#include <random>
#include <unordered_map>

#include "eval/dictionary.h"
#include "kb/knowledge_base.h"
#include "util/error.h"

namespace linkscope::train {

SynonymPairs buildSynonymPairs(std::span<const kb::KnowledgeBase* const> kbs, const SelfAlignmentSettings& settings,
                               std::uint64_t seed, const KbHoldout* heldOut) {
    if (kbs.empty()) throw Error("self-alignment: no vocabulary to pair synonyms from");
    // One dictionary over all vocabularies: one entry per distinct normalized name, with every
    // concept that has it (the builder merges the ids of a name met again).
    eval::EvalDictionaryBuilder builder;
    for (const kb::KnowledgeBase* kb : kbs) {
        if (!kb) throw Error("self-alignment: a vocabulary is missing");
        builder.addKnowledgeBase(*kb);
    }
    const retrieval::NameDictionary dictionary = builder.build().entries;

    SynonymPairs out;
    std::unordered_map<std::string, std::uint32_t> conceptOf;
    std::vector<std::vector<std::uint32_t>> conceptNames;
    out.names.reserve(dictionary.size());
    for (const auto& entry : dictionary) {
        const auto name = static_cast<std::uint32_t>(out.names.size());
        out.names.push_back(entry.name);
        const bool queried = heldOut && heldOut->holdsName(entry.name);
        for (const auto& id : entry.ids) {
            auto [it, added] = conceptOf.try_emplace(id, static_cast<std::uint32_t>(out.conceptIds.size()));
            if (added) {
                out.conceptIds.push_back(id);
                conceptNames.emplace_back();
            }
            if (!queried) conceptNames[it->second].push_back(name);
        }
    }

    std::mt19937_64 rng(seed);
    for (std::uint32_t conceptIndex = 0; conceptIndex < conceptNames.size(); ++conceptIndex) {
        const auto& names = conceptNames[conceptIndex];
        if (heldOut && heldOut->holdsConcept(out.conceptIds[conceptIndex])) {
            ++out.conceptsHeldOut;
            continue;
        }
        if (names.empty()) continue;  // its one name is a validation query
        if (names.size() == 1) {
            if (settings.singleNamePairs) {
                out.pairs.push_back({names[0], names[0]});
                out.pairConcept.push_back(conceptIndex);
            }
            continue;
        }
        ++out.conceptsWithSynonyms;
        // All unordered pairs (SapBERT's training file lists each pair of a concept's names once).
        std::vector<std::array<std::uint32_t, 2>> all;
        for (std::size_t i = 0; i < names.size(); ++i)
            for (std::size_t j = i + 1; j < names.size(); ++j) all.push_back({names[i], names[j]});
        out.pairsAvailable += all.size();
        if (settings.maxPairsPerConcept != 0 && all.size() > settings.maxPairsPerConcept) {
            // Partial Fisher-Yates with our own draw (std::shuffle differs between libraries).
            for (std::size_t i = 0; i < settings.maxPairsPerConcept; ++i) {
                const std::size_t left = all.size() - i;
                const std::uint64_t limit = UINT64_MAX - UINT64_MAX % left;
                std::uint64_t value = rng();
                while (value >= limit) value = rng();
                std::swap(all[i], all[i + value % left]);
            }
            all.resize(settings.maxPairsPerConcept);
        }
        for (const auto& pair : all) {
            out.pairs.push_back(pair);
            out.pairConcept.push_back(conceptIndex);
        }
    }
    if (out.pairs.empty())
        throw Error(
            "self-alignment: the vocabularies give no pair of names (no concept has two names, and "
            "single-name pairs are off)");
    return out;
}

}  // namespace linkscope::train
