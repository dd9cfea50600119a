#pragma once
// Homonym disambiguation as in BELHD (Garda & Leser 2024, §4.1, §4.1.1, Appendix C and D).
//
// A homonym is a name shared by several entities. Name-based linkers return names, so a
// homonym cannot be linked to one entity; BELHD therefore rewrites every (entity, homonym)
// pair of the KB into "homonym (disambiguator)":
//   (a) the homonym is not the entity's preferred name   -> "name (preferred name)"
//   (b) the homonym is the entity's preferred name       -> "name (another name of the entity)"
//   (c) like (b) but the entity has no other name        -> left as it is (the default meaning)
// With species (genes, cell lines), homonyms are grouped by name AND species (intra-species,
// Appendix C); a name whose entities belong to several species is a cross-species homonym and
// gets the species name as well: "A2M (alpha-2-macroglobulin, human)", "A2M (cattle)".
//
// Homonyms are detected on exact strings, or on normalized names (what a linker compares) when
// a normalizer is given; the expanded strings keep the original spelling either way.
#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "kb/knowledge_base.h"
#include "kb/string_pool.h"

namespace linkscope::kb {

/// How case (b) picks the other name. The paper disagrees with itself: the text (§4.1 and the
/// Aquacobalamin example of §5.2) says the SHORTEST other name, Algorithm 1 line 10 says
/// get_longest. The text is the default; ties are broken by byte order, the smaller first.
enum class DisambiguatorChoice { Shortest, Longest };

enum class HomonymCase : std::uint8_t {
    NotHomonym,     ///< no intra-species homonym (may still be a cross-species one)
    OtherName,      ///< (a) expanded with the preferred name
    PreferredName,  ///< (b) expanded with another name
    Unexpandable,   ///< (c) preferred name without other names: unchanged
};

std::string_view toString(HomonymCase value) noexcept;

struct HomonymOptions {
    DisambiguatorChoice choice = DisambiguatorChoice::Shortest;
    /// Maps a name to what the linker compares (e.g. BioSyn's lower-casing and punctuation
    /// removal). Empty: homonyms are exact string matches.
    std::function<std::string(std::string_view)> normalizer;
};

/// The figures of BELHD's Table 2, for one KB and one way of comparing names. "Pairs" are
/// (entity, name) occurrences, which is what Table 2 counts; "names" are distinct names (after
/// normalization when a normalizer was given).
struct HomonymStatistics {
    bool normalized = false;
    std::size_t entities = 0;
    std::size_t pairs = 0;  ///< all (entity, name) pairs ("Names" in Table 2)
    std::size_t distinctNames = 0;
    std::size_t homonymNames = 0;             ///< distinct names shared by >1 entity
    std::size_t homonymPairs = 0;             ///< pairs whose name is a homonym ("Homonyms" in Table 2)
    std::size_t preferredNamePairs = 0;       ///< (b)+(c): homonym is the preferred name ("pref. name")
    std::size_t otherNamePairs = 0;           ///< (a) ("other")
    std::size_t unexpandablePairs = 0;        ///< (c), also counted in preferredNamePairs
    std::size_t crossSpeciesPairs = 0;        ///< pairs of cross-species homonyms ("cross-species");
                                              ///< may also be counted as (a)/(b)/(c)
    std::size_t crossSpeciesNames = 0;        ///< distinct cross-species homonym names
    std::size_t expandedPairs = 0;            ///< pairs whose string changed
    std::size_t failedPairs = 0;              ///< homonym pairs still shared by >1 entity afterwards
    std::size_t remainingDuplicateNames = 0;  ///< distinct names (after expansion) of >1 entity
    std::size_t remainingDuplicatePairs = 0;  ///< pairs under those names (homonyms or not)

    /// Homonym pairs that are no longer homonyms after expansion, over all homonym pairs
    /// (1 when there are none), as Table 2's success rate.
    double successRate() const noexcept {
        return homonymPairs == 0 ? 1.0
                                 : static_cast<double>(homonymPairs - failedPairs) / static_cast<double>(homonymPairs);
    }
};

/// One (entity, name) pair after expansion.
struct ExpandedName {
    EntityIndex entity;
    std::string_view expanded;  ///< equal to original unless the pair was expanded
    std::string_view original;
    HomonymCase homonymCase;
    bool crossSpecies;    ///< a cross-species homonym (species name appended when known)
    bool stillDuplicate;  ///< the expanded name is still shared by another entity

    bool homonym() const noexcept { return homonymCase != HomonymCase::NotHomonym || crossSpecies; }
};

/// The homonym-expanded name list of a KB: one entry per (entity, name) pair of the KB, with
/// the KB's pair numbering (KnowledgeBase::firstPair). Only strings that changed are stored
/// (in their own pool); the rest are the KB's. Refers to the KB, which must outlive it and
/// stay where it is (moving the KnowledgeBase leaves this pointing at the moved-from object).
class HomonymExpansion {
public:
    std::size_t pairCount() const noexcept { return flags_.size(); }
    ExpandedName at(std::size_t pair) const noexcept;
    std::string_view expandedName(std::size_t pair) const noexcept;
    HomonymCase homonymCase(std::size_t pair) const noexcept {
        return static_cast<HomonymCase>(flags_[pair] & kCaseMask);
    }
    bool crossSpecies(std::size_t pair) const noexcept { return (flags_[pair] & kCrossSpecies) != 0; }
    bool isHomonym(std::size_t pair) const noexcept { return (flags_[pair] & (kCaseMask | kCrossSpecies)) != 0; }
    bool stillDuplicate(std::size_t pair) const noexcept { return (flags_[pair] & kStillDuplicate) != 0; }

    /// Calls f(const ExpandedName&) for every pair in order.
    template <class F>
    void forEach(F&& f) const {
        for (EntityIndex e = 0; e < kb_->entityCount(); ++e) {
            const std::size_t end = kb_->firstPair(e) + kb_->nameIds(e).size();
            for (std::size_t pair = kb_->firstPair(e); pair < end; ++pair) f(entry(pair, e));
        }
    }

    const HomonymStatistics& statistics() const noexcept { return statistics_; }
    const KnowledgeBase& knowledgeBase() const noexcept { return *kb_; }
    std::size_t memoryBytes() const noexcept;

private:
    friend HomonymExpansion expandHomonyms(const KnowledgeBase& kb, const HomonymOptions& options);
    explicit HomonymExpansion(const KnowledgeBase& kb) : kb_(&kb) {}
    ExpandedName entry(std::size_t pair, EntityIndex entity) const noexcept;

    static constexpr std::uint8_t kCaseMask = 0x3;
    static constexpr std::uint8_t kCrossSpecies = 0x4;
    static constexpr std::uint8_t kStillDuplicate = 0x8;

    const KnowledgeBase* kb_;
    StringPool added_;                 // expanded strings
    std::vector<StringId> expanded_;   // per pair: id in added_, or kNoString when unchanged
    std::vector<std::uint8_t> flags_;  // per pair: HomonymCase | kCrossSpecies | kStillDuplicate
    HomonymStatistics statistics_;
};

/// Runs the disambiguation over every (entity, name) pair of the KB.
HomonymExpansion expandHomonyms(const KnowledgeBase& kb, const HomonymOptions& options = {});

}  // namespace linkscope::kb
