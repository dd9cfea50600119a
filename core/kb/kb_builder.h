#pragma once
// Collects entity records in any order (the rows of one UMLS concept need not be adjacent) and
// turns them into the compact KnowledgeBase. Records are kept as flat (entity, string id)
// facts, 8 bytes each, and grouped once by a counting sort in build().
#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <string_view>
#include <utility>
#include <vector>

#include "kb/csr.h"
#include "kb/knowledge_base.h"
#include "kb/string_pool.h"

namespace linkscope::kb {

class KnowledgeBaseBuilder {
public:
    KnowledgeBaseBuilder() = default;

    /// The entity whose primary id is `primaryId` (canonicalised with canonicalConceptId),
    /// created on first use. Throws Error for an empty id or the CUI-less marker "-1".
    EntityIndex entity(std::string_view primaryId);
    /// The entity grouped under `key`, created with `primaryId` on first use. For sources whose
    /// records are identified by something other than the primary id alone (the id set of a
    /// BioSyn dictionary line). Use one of the two forms per builder, not both.
    EntityIndex entity(std::string_view key, std::string_view primaryId);
    /// The entity of an earlier entity(key) call, without creating one.
    std::optional<EntityIndex> findEntity(std::string_view key) const;
    /// entity(key, primaryId) for a key the caller knows to be new (a loader that indexes its
    /// keys itself, as the UMLS loader does by CUI number): one look-up of the key instead of
    /// two. Throws Error, the builder unchanged, when the key was added before or the id is bad.
    EntityIndex addEntity(std::string_view key, std::string_view primaryId);
    std::size_t entityCount() const noexcept { return primaryIds_.size(); }

    /// Adds an alternative id (canonicalised; the primary id itself is ignored at build()).
    void addAlternativeId(EntityIndex e, std::string_view id);
    /// Adds a name (empty names are ignored by the loaders before they get here; a name given
    /// twice to one entity is stored once).
    void addName(EntityIndex e, std::string_view name);
    /// Makes `name` the preferred name (adding it as a name), replacing an earlier choice.
    /// Without one, the first name added becomes the preferred name.
    void setPreferredName(EntityIndex e, std::string_view name);
    bool hasPreferredName(EntityIndex e) const noexcept { return preferredNames_[e] != kNoString; }
    void addSemanticType(EntityIndex e, std::string_view typeId, std::string_view typeName);
    void setSpecies(EntityIndex e, std::string_view species);

    /// Prepares room for about `entities` entities and `names` (entity, name) facts whose text
    /// takes about `nameBytes` bytes, so that the string pools' tables are built once at their
    /// final size instead of re-hashing every string at each doubling (at UMLS size that growth
    /// was most of the interning time: benchmarks/string_pool_intern --reserve). An estimate:
    /// more is added as before, and an overestimate costs the untouched reserve plus a larger table.
    void reserve(std::size_t entities, std::size_t names, std::size_t nameBytes);

    /// Finalises: names deduplicated per entity with the preferred name first, alternative ids
    /// deduplicated, name and id indexes built. The builder is empty afterwards.
    KnowledgeBase build();

private:
    std::uint32_t semanticTypeIndex(std::string_view typeId, std::string_view typeName);

    StringPool strings_;  // becomes the KB's pool
    StringPool keys_;     // key id == entity index
    std::vector<StringId> primaryIds_;
    std::vector<StringId> preferredNames_;
    std::vector<StringId> species_;
    std::vector<RowValue> names_;
    std::vector<RowValue> alternativeIds_;
    std::vector<RowValue> semanticTypes_;
    std::vector<KnowledgeBase::SemanticTypeEntry> semanticTypeTable_;
    // A few hundred types at most (UMLS has 127), so an ordered map is fine here.
    std::map<std::pair<StringId, StringId>, std::uint32_t> semanticTypeIndex_;
};

}  // namespace linkscope::kb
