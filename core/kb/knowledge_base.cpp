#include "kb/knowledge_base.h"

#include <algorithm>

#include "corpus/concept_id.h"

namespace linkscope::kb {

std::string_view KnowledgeBase::preferredName(EntityIndex e) const noexcept {
    const StringId id = preferredNames_[e];
    return id == kNoString ? std::string_view{} : strings_.view(id);
}

StringRange KnowledgeBase::synonyms(EntityIndex e) const noexcept {
    const auto all = names_.row(e);
    return {strings_, all.empty() ? all : all.subspan(1)};
}

std::optional<std::string_view> KnowledgeBase::species(EntityIndex e) const noexcept {
    const StringId id = species_[e];
    if (id == kNoString) return std::nullopt;
    return strings_.view(id);
}

std::vector<SemanticTypeView> KnowledgeBase::semanticTypes(EntityIndex e) const {
    std::vector<SemanticTypeView> result;
    for (const std::uint32_t index : semanticTypes_.row(e)) result.push_back(semanticType(index));
    return result;
}

SemanticTypeView KnowledgeBase::semanticType(std::uint32_t index) const noexcept {
    const SemanticTypeEntry& entry = semanticTypeTable_[index];
    return {strings_.view(entry.id), strings_.view(entry.name)};
}

std::span<const EntityIndex> KnowledgeBase::findById(std::string_view id) const {
    const auto canonical = canonicalConceptId(id);
    if (!canonical) return {};
    const auto found = strings_.find(*canonical);
    if (!found) return {};
    return entitiesById_.row(*found);
}

std::optional<EntityIndex> KnowledgeBase::findEntity(std::string_view id) const {
    const auto holders = findById(id);
    if (holders.empty()) return std::nullopt;
    return holders.front();
}

std::span<const EntityIndex> KnowledgeBase::findByName(std::string_view name) const noexcept {
    const auto found = strings_.find(name);
    if (!found) return {};
    return entitiesByName_.row(*found);
}

EntityIndex KnowledgeBase::pairEntity(std::size_t pair) const noexcept {
    // offsets[e] <= pair < offsets[e+1]: the last offset not greater than pair. Entities
    // without names share an offset with their successor, so take the last such entity.
    const auto& offsets = names_.offsets;
    const auto it = std::upper_bound(offsets.begin(), offsets.end(), static_cast<std::uint32_t>(pair));
    return static_cast<EntityIndex>(it - offsets.begin() - 1);
}

std::size_t KnowledgeBase::memoryBytes() const noexcept {
    const auto bytesOf = [](const auto& v) { return v.capacity() * sizeof(v[0]); };
    return strings_.memoryBytes() + bytesOf(primaryIds_) + bytesOf(preferredNames_) + bytesOf(species_) +
           names_.memoryBytes() + alternativeIds_.memoryBytes() + semanticTypes_.memoryBytes() +
           bytesOf(semanticTypeTable_) + entitiesByName_.memoryBytes() + entitiesById_.memoryBytes();
}

KbStatistics KnowledgeBase::statistics() const {
    KbStatistics s;
    s.entities = entityCount();
    s.namePairs = names_.values.size();
    s.alternativeIds = alternativeIds_.values.size();
    s.semanticTypes = semanticTypeTable_.size();
    s.entitySemanticTypes = semanticTypes_.values.size();
    s.stringBytes = strings_.textBytes();
    s.memoryBytes = memoryBytes();
    for (EntityIndex e = 0; e < entityCount(); ++e) {
        if (names_.row(e).empty()) ++s.entitiesWithoutNames;
        if (species_[e] != kNoString) ++s.entitiesWithSpecies;
    }
    for (std::size_t id = 0; id < entitiesByName_.rows(); ++id) {
        const std::size_t holders = entitiesByName_.row(id).size();
        if (holders > 0) ++s.distinctNames;
        if (holders > 1) ++s.namesOfSeveralEntities;
    }
    for (std::size_t id = 0; id < entitiesById_.rows(); ++id) {
        const auto holders = entitiesById_.row(id);
        if (holders.empty()) continue;
        ++s.distinctIds;
        if (holders.size() > 1) ++s.idsOfSeveralEntities;
        // Primary holders come first in the row.
        if (holders.size() > 1 && primaryIds_[holders[1]] == id) ++s.primaryIdsOfSeveralEntities;
    }
    return s;
}

}  // namespace linkscope::kb
