#include "kb/homonyms.h"

#include <algorithm>
#include <optional>
#include <utility>

#include "kb/csr.h"
#include "util/utf8.h"

namespace linkscope::kb {
namespace {

constexpr std::uint32_t kNone = ~std::uint32_t{0};
constexpr std::uint8_t kIntra = 0x1;
constexpr std::uint8_t kCross = 0x2;

// The key names are compared by: the KB's string id (exact), or the id of the normalized
// form in a pool of normalized names. Each distinct name is normalized once.
class NameKeys {
public:
    NameKeys(const KnowledgeBase& kb, const std::function<std::string(std::string_view)>& normalizer)
        : normalizer_(normalizer) {
        if (!normalizer_) return;
        ofString_.assign(kb.strings().size(), kNone);
        for (std::size_t pair = 0; pair < kb.pairCount(); ++pair) {
            const StringId name = kb.pairName(pair);
            if (ofString_[name] == kNone) ofString_[name] = normalized_.intern(normalizer_(kb.strings().view(name)));
        }
    }

    bool normalized() const noexcept { return static_cast<bool>(normalizer_); }
    std::uint32_t of(StringId name) const noexcept { return normalized() ? ofString_[name] : name; }
    /// Keys are below this (for sizing per-key tables).
    std::size_t space(const KnowledgeBase& kb) const noexcept {
        return normalized() ? normalized_.size() : kb.strings().size();
    }
    /// Key of a new string (an expanded name) in the normalized key space, added if new.
    std::uint32_t ofNewNormalized(std::string_view text) { return normalized_.intern(normalizer_(text)); }

private:
    const std::function<std::string(std::string_view)>& normalizer_;
    std::vector<std::uint32_t> ofString_;
    StringPool normalized_;
};

// key -> entities having a name with that key, ascending and each entity once.
Csr entitiesByKey(const KnowledgeBase& kb, const NameKeys& keys) {
    Csr byEntity;
    byEntity.offsets.resize(kb.entityCount() + 1);
    for (EntityIndex e = 0; e < kb.entityCount(); ++e)
        byEntity.offsets[e + 1] = static_cast<std::uint32_t>(kb.firstPair(e) + kb.nameIds(e).size());
    byEntity.values.resize(kb.pairCount());
    for (std::size_t pair = 0; pair < kb.pairCount(); ++pair) byEntity.values[pair] = keys.of(kb.pairName(pair));
    Csr grouped = transpose(byEntity, keys.space(kb));
    byEntity = Csr{};
    // Normalization can give two names of one entity the same key: keep the entity once.
    std::size_t write = 0;
    std::size_t rowStart = 0;
    for (std::size_t key = 0; key < grouped.rows(); ++key) {
        const std::size_t begin = rowStart;
        const std::size_t end = grouped.offsets[key + 1];
        rowStart = end;
        const std::size_t first = write;
        for (std::size_t i = begin; i < end; ++i)
            if (write == first || grouped.values[write - 1] != grouped.values[i])
                grouped.values[write++] = grouped.values[i];
        grouped.offsets[key + 1] = static_cast<std::uint32_t>(write);
    }
    grouped.values.resize(write);
    grouped.values.shrink_to_fit();
    return grouped;
}

// For every (key, entity) slot of `groups`: kIntra when another entity of the same species has
// a name with this key (Appendix C: GROUP BY name, species HAVING count(*) > 1), kCross when
// the key's entities belong to more than one species (COUNT(DISTINCT species) > 1). An entity
// without species counts as a species of its own.
std::vector<std::uint8_t> homonymSlots(const KnowledgeBase& kb, const Csr& groups) {
    std::vector<std::uint8_t> slots(groups.values.size(), 0);
    std::vector<std::pair<StringId, std::uint32_t>> bySpecies;  // (species, slot)
    for (std::size_t key = 0; key < groups.rows(); ++key) {
        const auto row = groups.row(key);
        if (row.size() < 2) continue;
        bySpecies.clear();
        for (std::size_t i = 0; i < row.size(); ++i)
            bySpecies.emplace_back(kb.speciesId(row[i]), static_cast<std::uint32_t>(groups.offsets[key] + i));
        std::sort(bySpecies.begin(), bySpecies.end());
        const bool cross = bySpecies.front().first != bySpecies.back().first;
        for (std::size_t runStart = 0; runStart < bySpecies.size();) {
            std::size_t runEnd = runStart + 1;
            while (runEnd < bySpecies.size() && bySpecies[runEnd].first == bySpecies[runStart].first) ++runEnd;
            const std::uint8_t flags =
                static_cast<std::uint8_t>((runEnd - runStart > 1 ? kIntra : 0) | (cross ? kCross : 0));
            for (std::size_t i = runStart; i < runEnd; ++i) slots[bySpecies[i].second] = flags;
            runStart = runEnd;
        }
    }
    return slots;
}

// Case (b): the entity's other name to append, or nullopt (case (c)). Names whose key equals
// the homonym's are no disambiguation ("tooth agenesis" for "Tooth Agenesis").
std::optional<StringId> otherName(const KnowledgeBase& kb, const NameKeys& keys, EntityIndex e,
                                  std::uint32_t homonymKey, DisambiguatorChoice choice) {
    std::optional<StringId> best;
    std::size_t bestLength = 0;
    for (const StringId name : kb.nameIds(e)) {
        if (keys.of(name) == homonymKey) continue;
        const std::string_view text = kb.strings().view(name);
        const std::size_t length = utf8::length(text);
        bool better = !best;
        if (best) {
            if (length != bestLength)
                better = choice == DisambiguatorChoice::Shortest ? length < bestLength : length > bestLength;
            else
                better = text < kb.strings().view(*best);  // deterministic tie-break
        }
        if (better) {
            best = name;
            bestLength = length;
        }
    }
    return best;
}

}  // namespace

std::string_view toString(HomonymCase value) noexcept {
    switch (value) {
        case HomonymCase::NotHomonym:
            return "not a homonym";
        case HomonymCase::OtherName:
            return "other name";
        case HomonymCase::PreferredName:
            return "preferred name";
        case HomonymCase::Unexpandable:
            return "unexpandable";
    }
    return "unknown";
}

ExpandedName HomonymExpansion::entry(std::size_t pair, EntityIndex entity) const noexcept {
    const std::uint8_t flags = flags_[pair];
    return {entity,
            expandedName(pair),
            kb_->strings().view(kb_->pairName(pair)),
            static_cast<HomonymCase>(flags & kCaseMask),
            (flags & kCrossSpecies) != 0,
            (flags & kStillDuplicate) != 0};
}

ExpandedName HomonymExpansion::at(std::size_t pair) const noexcept { return entry(pair, kb_->pairEntity(pair)); }

std::string_view HomonymExpansion::expandedName(std::size_t pair) const noexcept {
    const StringId id = expanded_[pair];
    return id == kNoString ? kb_->strings().view(kb_->pairName(pair)) : added_.view(id);
}

std::size_t HomonymExpansion::memoryBytes() const noexcept {
    return added_.memoryBytes() + expanded_.capacity() * sizeof(StringId) + flags_.capacity();
}

HomonymExpansion expandHomonyms(const KnowledgeBase& kb, const HomonymOptions& options) {
    HomonymExpansion result(kb);
    HomonymStatistics& stats = result.statistics_;
    NameKeys keys(kb, options.normalizer);
    stats.normalized = keys.normalized();
    stats.entities = kb.entityCount();
    stats.pairs = kb.pairCount();

    const Csr groups = entitiesByKey(kb, keys);
    const std::vector<std::uint8_t> slots = homonymSlots(kb, groups);
    for (std::size_t key = 0; key < groups.rows(); ++key) {
        const auto row = groups.row(key);
        if (row.empty()) continue;
        ++stats.distinctNames;
        const std::uint8_t flags = slots[groups.offsets[key]];
        if (row.size() > 1) ++stats.homonymNames;
        if (flags & kCross) ++stats.crossSpeciesNames;
    }

    result.expanded_.assign(kb.pairCount(), kNoString);
    result.flags_.assign(kb.pairCount(), 0);
    // Key of every pair's final string, for counting what is still shared afterwards. In
    // exact mode an expanded string that already is a KB string takes that string's id, so
    // that "A (B)" made here collides with a KB name "A (B)"; other new strings are numbered
    // after the KB's.
    std::vector<std::uint32_t> finalKeys(kb.pairCount());
    const std::size_t kbStrings = kb.strings().size();
    std::string text;
    for (EntityIndex e = 0; e < kb.entityCount(); ++e) {
        const StringId preferred = kb.preferredNameId(e);
        const std::uint32_t preferredKey = preferred == kNoString ? kNone : keys.of(preferred);
        const auto species = kb.species(e);
        for (std::size_t pair = kb.firstPair(e), end = pair + kb.nameIds(e).size(); pair < end; ++pair) {
            const StringId name = kb.pairName(pair);
            const std::uint32_t key = keys.of(name);
            finalKeys[pair] = key;
            const auto row = groups.row(key);
            const auto slot = groups.offsets[key] + (std::lower_bound(row.begin(), row.end(), e) - row.begin());
            const bool intra = (slots[slot] & kIntra) != 0;
            const bool cross = (slots[slot] & kCross) != 0;
            if (!intra && !cross) continue;
            ++stats.homonymPairs;

            HomonymCase homonymCase = HomonymCase::NotHomonym;
            std::optional<StringId> disambiguator;
            if (intra) {
                if (key != preferredKey) {
                    homonymCase = HomonymCase::OtherName;
                    disambiguator = preferred;
                    ++stats.otherNamePairs;
                } else {
                    disambiguator = otherName(kb, keys, e, key, options.choice);
                    homonymCase = disambiguator ? HomonymCase::PreferredName : HomonymCase::Unexpandable;
                    ++stats.preferredNamePairs;
                    if (!disambiguator) ++stats.unexpandablePairs;
                }
            }
            if (cross) ++stats.crossSpeciesPairs;
            result.flags_[pair] = static_cast<std::uint8_t>(static_cast<std::uint8_t>(homonymCase) |
                                                            (cross ? HomonymExpansion::kCrossSpecies : 0));

            const bool addSpecies = cross && species.has_value();
            if (!disambiguator && !addSpecies) continue;  // case (c) stays as it is
            text.assign(kb.strings().view(name));
            text += " (";
            if (disambiguator) text += kb.strings().view(*disambiguator);
            if (disambiguator && addSpecies) text += ", ";
            if (addSpecies) text += *species;
            text += ')';
            const StringId added = result.added_.intern(text);
            result.expanded_[pair] = added;
            ++stats.expandedPairs;
            if (keys.normalized())
                finalKeys[pair] = keys.ofNewNormalized(text);
            else if (const auto existing = kb.strings().find(text))
                finalKeys[pair] = *existing;
            else
                finalKeys[pair] = static_cast<std::uint32_t>(kbStrings + added);
        }
    }

    // Count distinct entities per final key; pairs come entity by entity, so comparing with the
    // last entity seen under a key is enough to count each entity once.
    const std::size_t finalSpace = keys.normalized() ? keys.space(kb) : kbStrings + result.added_.size();
    std::vector<std::uint32_t> lastEntity(finalSpace, kNone);
    std::vector<std::uint32_t> holders(finalSpace, 0);
    for (EntityIndex e = 0; e < kb.entityCount(); ++e)
        for (std::size_t pair = kb.firstPair(e), end = pair + kb.nameIds(e).size(); pair < end; ++pair) {
            const std::uint32_t key = finalKeys[pair];
            if (lastEntity[key] != e) {
                lastEntity[key] = e;
                ++holders[key];
            }
        }
    for (const std::uint32_t count : holders)
        if (count > 1) ++stats.remainingDuplicateNames;
    for (std::size_t pair = 0; pair < kb.pairCount(); ++pair) {
        if (holders[finalKeys[pair]] < 2) continue;
        ++stats.remainingDuplicatePairs;
        result.flags_[pair] |= HomonymExpansion::kStillDuplicate;
        if (result.isHomonym(pair)) ++stats.failedPairs;
    }
    result.added_.shrinkToFit();
    return result;
}

}  // namespace linkscope::kb
