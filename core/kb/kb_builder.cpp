#include "kb/kb_builder.h"

#include <string>

#include "corpus/concept_id.h"
#include "util/error.h"

namespace linkscope::kb {
namespace {

std::string canonicalOrThrow(std::string_view id) {
    auto canonical = canonicalConceptId(id);
    if (!canonical) throw Error("not a concept identifier: \"" + std::string(id) + "\"");
    return std::move(*canonical);
}

constexpr std::uint32_t kNobody = ~std::uint32_t{0};

}  // namespace

EntityIndex KnowledgeBaseBuilder::entity(std::string_view primaryId) {
    const std::string canonical = canonicalOrThrow(primaryId);
    return entity(canonical, canonical);
}

EntityIndex KnowledgeBaseBuilder::entity(std::string_view key, std::string_view primaryId) {
    if (const auto known = keys_.find(key)) return *known;
    // Validate before interning the key, so that a bad id leaves the builder unchanged.
    const std::string canonical = canonicalOrThrow(primaryId);
    const StringPool::Id id = keys_.intern(key);
    primaryIds_.push_back(strings_.intern(canonical));
    preferredNames_.push_back(kNoString);
    species_.push_back(kNoString);
    return id;
}

EntityIndex KnowledgeBaseBuilder::addEntity(std::string_view key, std::string_view primaryId) {
    const std::string canonical = canonicalOrThrow(primaryId);
    const std::size_t before = keys_.size();
    const StringPool::Id id = keys_.intern(key);  // an existing key is found, nothing added
    if (id < before) throw Error("the entity \"" + std::string(key) + "\" was added before");
    primaryIds_.push_back(strings_.intern(canonical));
    preferredNames_.push_back(kNoString);
    species_.push_back(kNoString);
    return id;
}

std::optional<EntityIndex> KnowledgeBaseBuilder::findEntity(std::string_view key) const { return keys_.find(key); }

void KnowledgeBaseBuilder::reserve(std::size_t entities, std::size_t names, std::size_t nameBytes) {
    // Every entity's key goes to keys_, its primary id to strings_ beside the names (ids such as
    // UMLS's CUIs are about 8 bytes).
    constexpr std::size_t kIdBytes = 8;
    keys_.reserve(entities, entities * kIdBytes);
    strings_.reserve(entities + names, entities * kIdBytes + nameBytes);
    primaryIds_.reserve(entities);
    preferredNames_.reserve(entities);
    species_.reserve(entities);
    names_.reserve(names);
}

void KnowledgeBaseBuilder::addAlternativeId(EntityIndex e, std::string_view id) {
    alternativeIds_.push_back({e, strings_.intern(canonicalOrThrow(id))});
}

void KnowledgeBaseBuilder::addName(EntityIndex e, std::string_view name) {
    names_.push_back({e, strings_.intern(name)});
}

void KnowledgeBaseBuilder::setPreferredName(EntityIndex e, std::string_view name) {
    const StringId id = strings_.intern(name);
    names_.push_back({e, id});
    preferredNames_[e] = id;
}

std::uint32_t KnowledgeBaseBuilder::semanticTypeIndex(std::string_view typeId, std::string_view typeName) {
    const StringId id = strings_.intern(typeId);
    const StringId name = strings_.intern(typeName);
    const auto [it, inserted] =
        semanticTypeIndex_.try_emplace({id, name}, static_cast<std::uint32_t>(semanticTypeTable_.size()));
    if (inserted) semanticTypeTable_.push_back({id, name});
    return it->second;
}

void KnowledgeBaseBuilder::addSemanticType(EntityIndex e, std::string_view typeId, std::string_view typeName) {
    semanticTypes_.push_back({e, semanticTypeIndex(typeId, typeName)});
}

void KnowledgeBaseBuilder::setSpecies(EntityIndex e, std::string_view species) {
    species_[e] = strings_.intern(species);
}

namespace {

// Regroups facts per entity, drops repeats within an entity (and `skip(e, value)`), and writes
// `first(e)` (when not kNoString) at the head of each row.
template <class First, class Skip>
Csr groupUnique(std::size_t entities, std::vector<RowValue>& facts, std::size_t valueRange, First first, Skip skip) {
    Csr grouped = groupByRow(entities, facts);
    facts.clear();
    facts.shrink_to_fit();
    std::vector<std::uint32_t> lastOwner(valueRange, kNobody);
    Csr out;
    out.offsets.reserve(entities + 1);
    out.values.reserve(grouped.values.size());
    for (std::uint32_t e = 0; e < entities; ++e) {
        const auto push = [&](std::uint32_t value) {
            if (lastOwner[value] == e || skip(e, value)) return;
            lastOwner[value] = e;
            out.values.push_back(value);
        };
        if (const std::uint32_t head = first(e); head != kNoString) push(head);
        for (const std::uint32_t value : grouped.row(e)) push(value);
        out.offsets.push_back(static_cast<std::uint32_t>(out.values.size()));
    }
    out.values.shrink_to_fit();
    return out;
}

}  // namespace

KnowledgeBase KnowledgeBaseBuilder::build() {
    KnowledgeBase kb;
    const std::size_t entities = entityCount();
    const std::size_t strings = strings_.size();
    const auto nothingFirst = [](std::uint32_t) { return kNoString; };
    const auto skipNothing = [](std::uint32_t, std::uint32_t) { return false; };

    kb.names_ = groupUnique(
        entities, names_, strings, [&](std::uint32_t e) { return preferredNames_[e]; }, skipNothing);
    // Without an explicit choice the first name given is the preferred one.
    for (EntityIndex e = 0; e < entities; ++e)
        if (preferredNames_[e] == kNoString && !kb.names_.row(e).empty()) preferredNames_[e] = kb.names_.row(e).front();

    kb.alternativeIds_ = groupUnique(entities, alternativeIds_, strings, nothingFirst,
                                     [&](std::uint32_t e, std::uint32_t id) { return id == primaryIds_[e]; });
    kb.semanticTypes_ = groupUnique(entities, semanticTypes_, semanticTypeTable_.size(), nothingFirst, skipNothing);

    kb.entitiesByName_ = transpose(kb.names_, strings);

    // Id index: every primary holder before any alternative holder, so that lookups by an id
    // that is both (MEDIC's OMIM:260350) find the entity it really names first.
    std::vector<RowValue> idFacts;
    idFacts.reserve(entities + kb.alternativeIds_.values.size());
    for (EntityIndex e = 0; e < entities; ++e) idFacts.push_back({primaryIds_[e], e});
    for (EntityIndex e = 0; e < entities; ++e)
        for (const StringId id : kb.alternativeIds_.row(e)) idFacts.push_back({id, e});
    kb.entitiesById_ = groupByRow(strings, idFacts);

    strings_.shrinkToFit();
    // A reserve (a loader's estimate) may have left room: the KB keeps what it holds.
    primaryIds_.shrink_to_fit();
    preferredNames_.shrink_to_fit();
    species_.shrink_to_fit();
    kb.strings_ = std::move(strings_);
    kb.primaryIds_ = std::move(primaryIds_);
    kb.preferredNames_ = std::move(preferredNames_);
    kb.species_ = std::move(species_);
    kb.semanticTypeTable_ = std::move(semanticTypeTable_);
    *this = KnowledgeBaseBuilder{};
    return kb;
}

}  // namespace linkscope::kb
