#pragma once
// The in-memory knowledge base: entities with their identifiers, names and semantic types, in a
// read-only compact form (structure of arrays + compressed sparse rows over interned strings)
// that holds UMLS (3.5 M concepts, 8 M names) in well under a gigabyte. Built with
// KnowledgeBaseBuilder or one of the loaders; immutable afterwards, so views into it stay valid
// for its lifetime and it may be read from several threads at once.
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string_view>
#include <vector>

#include "kb/csr.h"
#include "kb/string_pool.h"

namespace linkscope::kb {

using EntityIndex = std::uint32_t;  ///< dense position of an entity, 0 .. entityCount()-1
using StringId = StringPool::Id;
inline constexpr StringId kNoString = ~StringId{0};

/// A semantic type as the KB gives it: UMLS "T047" / "Disease or Syndrome", or a CTD slim
/// mapping that has a name only (empty id).
struct SemanticTypeView {
    std::string_view id;
    std::string_view name;
};

/// Strings named by ids of the KB's pool, iterated as string_views.
class StringRange {
public:
    StringRange(const StringPool& pool, std::span<const StringId> ids) noexcept : pool_(&pool), ids_(ids) {}

    class iterator {
    public:
        using value_type = std::string_view;
        using difference_type = std::ptrdiff_t;
        iterator() = default;
        iterator(const StringPool* pool, const StringId* at) noexcept : pool_(pool), at_(at) {}
        std::string_view operator*() const noexcept { return pool_->view(*at_); }
        iterator& operator++() noexcept {
            ++at_;
            return *this;
        }
        iterator operator++(int) noexcept {
            auto copy = *this;
            ++at_;
            return copy;
        }
        bool operator==(const iterator& other) const noexcept { return at_ == other.at_; }

    private:
        const StringPool* pool_ = nullptr;
        const StringId* at_ = nullptr;
    };

    iterator begin() const noexcept { return {pool_, ids_.data()}; }
    iterator end() const noexcept { return {pool_, ids_.data() + ids_.size()}; }
    std::size_t size() const noexcept { return ids_.size(); }
    bool empty() const noexcept { return ids_.empty(); }
    std::string_view operator[](std::size_t i) const noexcept { return pool_->view(ids_[i]); }
    std::span<const StringId> ids() const noexcept { return ids_; }

private:
    const StringPool* pool_;
    std::span<const StringId> ids_;
};

struct KbStatistics {
    std::size_t entities = 0;
    std::size_t namePairs = 0;                    ///< (entity, name) pairs: a name of two entities counts twice
    std::size_t distinctNames = 0;                ///< distinct name strings
    std::size_t namesOfSeveralEntities = 0;       ///< distinct names shared by >1 entity (exact homonyms)
    std::size_t alternativeIds = 0;               ///< (entity, alternative id) pairs
    std::size_t distinctIds = 0;                  ///< distinct primary or alternative ids
    std::size_t idsOfSeveralEntities = 0;         ///< ids (primary or alternative) held by >1 entity
    std::size_t primaryIdsOfSeveralEntities = 0;  ///< primary ids held by >1 entity
    std::size_t entitiesWithoutNames = 0;
    std::size_t entitiesWithSpecies = 0;
    std::size_t semanticTypes = 0;        ///< distinct semantic types
    std::size_t entitySemanticTypes = 0;  ///< (entity, semantic type) pairs
    std::size_t stringBytes = 0;          ///< text bytes in the string pool
    std::size_t memoryBytes = 0;          ///< bytes held by all containers of the KB
};

class KnowledgeBase {
public:
    KnowledgeBase() = default;
    KnowledgeBase(KnowledgeBase&&) noexcept = default;
    KnowledgeBase& operator=(KnowledgeBase&&) noexcept = default;
    // Copies of a KB are gigabytes for UMLS: make them impossible to write by accident.
    KnowledgeBase(const KnowledgeBase&) = delete;
    KnowledgeBase& operator=(const KnowledgeBase&) = delete;

    std::size_t entityCount() const noexcept { return primaryIds_.size(); }

    /// Canonical primary identifier ("MESH:D012878", "OMIM:101400", "UMLS:C0011849").
    std::string_view primaryId(EntityIndex e) const noexcept { return strings_.view(primaryIds_[e]); }
    /// Preferred name; empty for an entity without names.
    std::string_view preferredName(EntityIndex e) const noexcept;
    /// All names, the preferred name first, each distinct string once.
    StringRange names(EntityIndex e) const noexcept { return {strings_, names_.row(e)}; }
    /// Names other than the preferred one.
    StringRange synonyms(EntityIndex e) const noexcept;
    /// Alternative identifiers in canonical form (MEDIC's OMIM numbers, CTD's AltDiseaseIDs).
    StringRange alternativeIds(EntityIndex e) const noexcept { return {strings_, alternativeIds_.row(e)}; }
    std::optional<std::string_view> species(EntityIndex e) const noexcept;
    /// Semantic types of the entity, as indexes into semanticType().
    std::span<const std::uint32_t> semanticTypeIndexes(EntityIndex e) const noexcept { return semanticTypes_.row(e); }
    std::vector<SemanticTypeView> semanticTypes(EntityIndex e) const;
    std::size_t semanticTypeCount() const noexcept { return semanticTypeTable_.size(); }
    SemanticTypeView semanticType(std::uint32_t index) const noexcept;

    /// Entities holding `id` as primary or alternative identifier, those holding it as primary
    /// first. The id is canonicalised first ("D012878" finds "MESH:D012878"); an OMIM number
    /// must carry its prefix ("OMIM:613097"), since a bare number names no vocabulary.
    std::span<const EntityIndex> findById(std::string_view id) const;
    /// The entity whose primary id is `id`, else the first holding it as an alternative.
    std::optional<EntityIndex> findEntity(std::string_view id) const;
    /// Entities that have exactly this string as one of their names.
    std::span<const EntityIndex> findByName(std::string_view name) const noexcept;

    // (entity, name) pairs. Pair p is the p-th name in entity order: entity e owns pairs
    // [firstPair(e), firstPair(e+1)), its preferred name (if any) at firstPair(e).
    std::size_t pairCount() const noexcept { return names_.values.size(); }
    std::size_t firstPair(EntityIndex e) const noexcept { return names_.offsets[e]; }
    StringId pairName(std::size_t pair) const noexcept { return names_.values[pair]; }
    /// Entity owning a pair (binary search over the entity offsets).
    EntityIndex pairEntity(std::size_t pair) const noexcept;
    /// Calls f(EntityIndex, StringId name) for every pair, in pair order.
    template <class F>
    void forEachNamePair(F&& f) const {
        for (EntityIndex e = 0; e < entityCount(); ++e)
            for (const StringId name : names_.row(e)) f(e, name);
    }

    /// The pool holding every id, name, type and species string of the KB.
    const StringPool& strings() const noexcept { return strings_; }
    std::span<const StringId> nameIds(EntityIndex e) const noexcept { return names_.row(e); }
    StringId preferredNameId(EntityIndex e) const noexcept { return preferredNames_[e]; }
    StringId speciesId(EntityIndex e) const noexcept { return species_[e]; }
    /// Entities having the pool string `name` as a name (empty for strings that are no name).
    std::span<const EntityIndex> entitiesWithName(StringId name) const noexcept { return entitiesByName_.row(name); }

    KbStatistics statistics() const;
    std::size_t memoryBytes() const noexcept;

private:
    friend class KnowledgeBaseBuilder;

    struct SemanticTypeEntry {
        StringId id;
        StringId name;
    };

    StringPool strings_;
    std::vector<StringId> primaryIds_;      // per entity
    std::vector<StringId> preferredNames_;  // per entity, kNoString when it has no names
    std::vector<StringId> species_;         // per entity, kNoString when unknown
    Csr names_;                             // entity -> names, preferred first
    Csr alternativeIds_;                    // entity -> alternative ids
    Csr semanticTypes_;                     // entity -> semanticTypeTable_ index
    std::vector<SemanticTypeEntry> semanticTypeTable_;
    Csr entitiesByName_;  // pool string -> entities having it as a name
    Csr entitiesById_;    // pool string -> entities having it as id, primary holders first
};

}  // namespace linkscope::kb
