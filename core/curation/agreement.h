#pragma once
// Agreement between two curators: Cohen's kappa on the linked entity, overall, per
// split and per mention type, over the mentions both curators decided.
//
// The rules, which the CLI's `agreement`, the adjudication dialog and the tests share:
//  - A curator's link in effect on a mention is the link left by that curator's latest decision
//    in effect (state done) on it, as applyDecisions() leaves it: accept / correct give the chosen
//    entity set, nil gives the category "NIL", reject the category "rejected" (a decided outcome,
//    not an absence), and a skip changes nothing (the curator's earlier decision stays in effect;
//    a mention with skips only is not decided).
//  - Links compare as SETS of canonical ids (concept_id.h): "MESH:D1|MESH:D2", "D2|D1" and
//    "D1+D2" are one category, "D1" and "D1|D2" are two (no partial credit for a composite).
//    A category is the sorted ids joined by '|'.
//  - Kappa takes the categories as they occur: observed agreement p_o is the share of mentions
//    both decided on which their categories are equal; the expected agreement p_e is the sum over
//    categories of the product of the two curators' shares of that category (their marginal
//    distributions over the mentions both decided); kappa = (p_o - p_e) / (1 - p_e).
//  - Degenerate cases give no kappa (nullopt) and say why: no mention decided by both (p_o is
//    undefined too), or p_e = 1 (both curators gave one and the same category to every mention;
//    p_o is then 1). p_e = 1 is decided on whole counts, never on a rounded double.
//  - Mentions only one curator decided are counted per side (onlyA, onlyB), not in kappa.
#include <cstddef>
#include <filesystem>
#include <functional>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "project/curation_decision.h"

namespace linkscope {
struct SplitCorpus;
}

namespace linkscope::curation {

inline constexpr const char* kRejectedCategory = "rejected";
inline constexpr const char* kNilCategory = "NIL";

/// The agreement category of a decision's link (see above); nullopt for a skip. Throws Error
/// when an accept / correct link does not parse as ids.
std::optional<std::string> agreementCategory(const project::Decision& decision);

/// Throws Error naming `file` (the project file the decisions were read from) and the first
/// decision in effect whose link agreementCategory() cannot read. merge and agreement read two
/// files: this says which one holds the bad link.
void requireReadableLinks(const std::filesystem::path& file, std::span<const project::Decision> decisions);

/// A curator's (or a file's) link in effect per mention, as categories.
using MentionCategories = std::map<project::MentionKey, std::string>;

/// The categories in effect of `done` (decisions in effect, any order: they are taken in id
/// order), counting only the decisions `include` accepts (all when it is empty).
MentionCategories categoriesInEffect(std::span<const project::Decision> done,
                                     const std::function<bool(const project::Decision&)>& include = {});

/// The agreement figures of one scope (overall, one split, one type).
struct AgreementFigures {
    std::size_t both = 0;    ///< mentions both curators decided
    std::size_t agreed = 0;  ///< of those, with the same category
    std::size_t onlyA = 0;   ///< mentions only curator A decided
    std::size_t onlyB = 0;
    std::optional<double> observed;  ///< p_o; nullopt when both == 0
    std::optional<double> expected;  ///< p_e; nullopt when both == 0
    std::optional<double> kappa;     ///< nullopt in the degenerate cases
    std::string undefinedReason;     ///< why kappa is nullopt ("" when it is defined)
};

/// Cohen's kappa of the pairs (A's category, B's category) of the mentions both decided
/// (onlyA / onlyB stay 0).
AgreementFigures cohensKappa(std::span<const std::pair<std::string, std::string>> pairs);
/// The same from a contingency table: table[i][j] mentions A put in category i and B in j
/// (a square table; throws Error otherwise).
AgreementFigures cohensKappa(const std::vector<std::vector<std::size_t>>& table);

/// The type of a mention (its corpus type column); "" when unknown.
using MentionTypeFn = std::function<std::string(const project::MentionKey&)>;
/// Types looked up in the corpora of a project (the corpora stay owned by the caller and must
/// outlive the function).
MentionTypeFn mentionTypesOf(std::span<const SplitCorpus> corpora);
/// What a mention of unknown type is counted under.
inline constexpr const char* kUnknownType = "(unknown type)";

struct AgreementReport {
    AgreementFigures overall;
    std::map<std::string, AgreementFigures> perSplit;
    std::map<std::string, AgreementFigures> perType;  ///< kUnknownType for mentions typeOf does not know
};

/// Kappa of A against B overall, per split and per type (typeOf may be empty: every mention is
/// then of kUnknownType).
AgreementReport measureAgreement(const MentionCategories& a, const MentionCategories& b,
                                 const MentionTypeFn& typeOf = {});

}  // namespace linkscope::curation
