#pragma once
// Error analysis of one linked mention: which of a fixed set of categories apply, so that the
// evaluation dock can filter its error list by them. Two kinds of category:
//
// Properties of the mention, true whether or not it was linked correctly:
//   Unseen        no training mention has its gold entities (one gold id is not a training id);
//   Homonym       the top prediction names several entities (an unresolved homonym), or the
//                 mention itself is a name the KB gives to several entities;
//   Composite     several gold ids ("breast and ovarian cancer");
//   Abbreviation  the mention is a short form: defined in its document, expanded by the
//                 query preprocessing, or shaped like one (one token, mostly capitals: "SCA1").
//
// BioSyn's error kinds (Sung et al. 2020, Table 5), set only when the top prediction is wrong,
// and only those a program can tell from strings alone. Names are compared as lower-cased words
// (letters and digits; everything else separates), against every KB name of the gold entities:
//   ContextualEntity  the predicted name IS the mention, under another id ("colorectal
//                     adenomas" -> "colorectal adenomas" of another concept);
//   Hypernym          the mention is more general than the annotated entity: its words are a
//                     strict subset of a gold name's ("campomelia" / "campomelia cumming type");
//   Hyponym           the mention is more specific: a gold name's words are a strict subset of
//                     the mention's ("eye movement abnormalities" / "eye abnormalities");
//   OverlappedEntity  the mention and the predicted name share a word without being equal
//                     ("desmoid tumors" -> "desmoid tumor"; nested names included);
//   IncompleteSynset  the mention shares no word with any name of the gold entities: only
//                     outside knowledge links it ("hypomania" / "mood disorders").
// BioSyn's "Abbreviation" error is the Abbreviation category on a wrong prediction. BioSyn read
// hypernymy from the meaning; here it is lexical containment, the part that strings show. The
// KB holds no hierarchy (MEDIC's parent ids are not loaded), so "different specificity" between
// the PREDICTED and the gold concept (ancestor / descendant) cannot be told and is not offered.
// Hypernym, Hyponym and IncompleteSynset need the KB (the gold entities' names); without one
// they are never set.
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <unordered_set>
#include <vector>

namespace linkscope::kb {
class KnowledgeBase;
}

namespace linkscope::eval {

enum class ErrorCategory : std::uint8_t {
    Unseen,
    Homonym,
    Composite,
    Abbreviation,
    ContextualEntity,
    Hypernym,
    Hyponym,
    OverlappedEntity,
    IncompleteSynset,
};
inline constexpr std::size_t kErrorCategoryCount = 9;

/// A set of categories, one bit per ErrorCategory.
class ErrorCategories {
public:
    constexpr ErrorCategories() = default;
    static constexpr ErrorCategories fromBits(std::uint32_t bits) noexcept {
        ErrorCategories set;
        set.bits_ = bits & ((1u << kErrorCategoryCount) - 1);
        return set;
    }
    constexpr bool has(ErrorCategory c) const noexcept { return (bits_ & bit(c)) != 0; }
    constexpr void add(ErrorCategory c) noexcept { bits_ |= bit(c); }
    constexpr bool empty() const noexcept { return bits_ == 0; }
    constexpr std::uint32_t bits() const noexcept { return bits_; }
    /// True when the sets share a category.
    constexpr bool intersects(ErrorCategories other) const noexcept { return (bits_ & other.bits_) != 0; }
    /// The categories in enum order.
    std::vector<ErrorCategory> list() const;
    friend constexpr bool operator==(ErrorCategories, ErrorCategories) = default;

private:
    static constexpr std::uint32_t bit(ErrorCategory c) noexcept { return 1u << static_cast<unsigned>(c); }
    std::uint32_t bits_ = 0;
};

/// "unseen", "homonym", "composite", "abbreviation", "contextual entity", "hypernym",
/// "hyponym", "overlapped entity", "incomplete synset".
std::string_view errorCategoryName(ErrorCategory category) noexcept;
/// The names of the set, joined by ", " in enum order.
std::string describe(ErrorCategories categories);
/// True for BioSyn's Table 5 kinds (set on wrong predictions only).
bool isBioSynErrorKind(ErrorCategory category) noexcept;

/// What is known of one linked mention.
struct MentionOutcomeFacts {
    std::string_view mention;              ///< as written in the corpus
    std::span<const std::string> goldIds;  ///< canonical ids (KB primary ids when known)
    /// The top prediction: its (dictionary) name and the ids it names; no prediction when
    /// predictedIds is empty.
    std::string_view predictedName;
    std::span<const std::string> predictedIds;
    bool correct = false;  ///< the top prediction counts as correct (lenient)
    /// Short forms defined in the mention's document (text::findAbbreviations).
    std::span<const std::string> documentShortForms;
    bool abbreviationExpanded = false;  ///< the query preprocessing replaced a short form
    /// Gold ids of the training mentions; when null, `seen` is used (a per-mention file
    /// records it), and neither: Unseen is never set.
    const std::unordered_set<std::string>* trainingIds = nullptr;
    std::optional<bool> seen;
};

/// The categories that apply (see the header comment). `kb` may be null.
ErrorCategories categorizeMention(const MentionOutcomeFacts& facts, const kb::KnowledgeBase* kb);

/// Lower-cased words of letters and digits, in order ("Huntington's Disease" -> huntington, s,
/// disease). Throws Error for text that is not UTF-8.
std::vector<std::string> comparisonWords(std::string_view text);

/// True when the mention is shaped like a short form: one token of 2..10 characters holding a
/// letter, with at least as many capitals as lower-case letters ("HD", "SCA1", "BRCA1", "IgA").
bool looksLikeShortForm(std::string_view mention);

}  // namespace linkscope::eval
