#pragma once
// The dictionary an evaluation ranks: every (entity, name) pair of the KB plus the gold-annotated
// mentions of the training data, as BioSyn builds train_dictionary / dev_dictionary /
// test_dictionary (dmis-lab/BioSyn, preprocess/dictionary_preprocess.py):
//   - names are normalized with BioSyn's dictionary normalization (lower case, ASCII
//     punctuation removed, no spelling map); empty results are skipped;
//   - one entry per distinct normalized name, in order of first appearance (KB pairs in the
//     KB's order, then the mentions in the order added). A name of several entities is ONE
//     entry listing all of their ids: an unresolved homonym, which the lenient metric accepts
//     when any id is gold and the strict metric rejects (see evaluate.h);
//   - ids are KB primary ids; a mention adds its gold ids (already mapped to primary ids by
//     buildQueries) to the entry of its name;
//   - a split composite training mention enters as BioSyn's does: its normalized parts joined
//     by a space ("breast cancer ovarian cancer") with all of its gold ids. A '+' conjunction
//     enters with its member ids; BioSyn keeps "D007153+D040181" as one id that its label
//     check (which splits on '|' only) can never match, so such an entry is never correct
//     there, and correct here when a member is gold.
// For evaluation on dev, add the training queries; on test, the training and dev queries.
// With homonymExpansion the KB names are BELHD's disambiguated ones ("cold (common cold)"),
// detected on the dictionary normalization; pairs still shared after expansion stay shared.
#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "retrieval/name_dictionary.h"

namespace linkscope::kb {
class KnowledgeBase;
}
namespace linkscope::text {
class Normalizer;
}

namespace linkscope::eval {

struct EvalQuery;

/// BioSyn's dictionary normalization: TextPreprocess without spelling map, '|' not kept.
std::shared_ptr<const text::Normalizer> bioSynDictionaryNormalizer();

struct DictionaryOptions {
    /// BELHD's homonym disambiguation of the KB names (kb/homonyms.h, shortest disambiguator).
    bool homonymExpansion = false;
    /// null: bioSynDictionaryNormalizer().
    std::shared_ptr<const text::Normalizer> normalizer;
};

struct DictionaryStatistics {
    std::size_t kbPairs = 0;            ///< (entity, name) pairs read from the KB
    std::size_t kbPairsExpanded = 0;    ///< pairs whose name BELHD's expansion changed
    std::size_t mentionsAdded = 0;      ///< queries passed to addMentions
    std::size_t mentionsNewNames = 0;   ///< of those, names that made a new entry
    std::size_t mentionsNewIds = 0;     ///< of those, names that were there but gained an id
    std::size_t emptyNamesSkipped = 0;  ///< names that normalize to nothing
    std::size_t entries = 0;
    std::size_t entriesWithSeveralIds = 0;
};

struct EvalDictionary {
    retrieval::NameDictionary entries;
    DictionaryStatistics statistics;
};

class EvalDictionaryBuilder {
public:
    explicit EvalDictionaryBuilder(DictionaryOptions options = {});
    ~EvalDictionaryBuilder();
    EvalDictionaryBuilder(const EvalDictionaryBuilder&) = delete;
    EvalDictionaryBuilder& operator=(const EvalDictionaryBuilder&) = delete;

    /// Adds every (entity, name) pair of the KB under the entity's primary id.
    void addKnowledgeBase(const kb::KnowledgeBase& kb);
    /// Adds the mentions (normalized parts joined by a space) with their gold ids.
    void addMentions(std::span<const EvalQuery> queries);
    /// Adds one name with its ids (normalized here); returns false for an empty result.
    bool add(std::string_view name, std::span<const std::string> ids);

    /// The dictionary so far; the builder is empty afterwards.
    EvalDictionary build();
    /// Entries so far (after addKnowledgeBase: the KB's names, which the sieve searches as O).
    std::size_t size() const noexcept { return dictionary_.entries.size(); }

private:
    /// Returns 0 for a new entry, 1 when an existing entry gained an id, 2 when nothing changed.
    int addNormalized(std::string name, std::span<const std::string> ids);
    /// The slot of `name` in slots_: the one holding its entry, or the free one it would take.
    std::size_t slotOf(std::string_view name) const noexcept;
    void growSlots();

    DictionaryOptions options_;
    std::shared_ptr<const text::Normalizer> normalizer_;
    EvalDictionary dictionary_;
    // Normalized name -> entry, as an open-addressing table of entry numbers keyed by the
    // entries' own names (linear probing, at most half full): no second copy of every name,
    // which for UMLS's 5.3 M names weighed on the peak while the dictionary was built
    // (benchmarks/sparse_scale reports it).
    static constexpr std::uint32_t kFreeSlot = 0xFFFFFFFFu;
    std::vector<std::uint32_t> slots_;
};

}  // namespace linkscope::eval
