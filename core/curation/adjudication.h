#pragma once
// Several curators in one project file: who decided what, where they disagree, and
// the adjudicated decision that settles a disagreement.
//
// What "in effect" means with several curators:
//  - Per curator: a curator's link in effect on a mention is the one their latest decision in
//    effect leaves (agreement.h: skips change nothing). Each curator keeps their own link; a merge
//    (curator_merge.h) never overwrites one curator's decisions with another's.
//  - Adjudications: a decision whose curator name ends in kAdjudicatorSuffix (" (adjudicator)")
//    is an adjudication; adjudicatorName() makes such a name. The mark lives in the curator field
//    so that the project file's schema, the decisions log and every older Linkscope keep reading
//    the file as it is (an adjudication is an ordinary decision to them, recorded last).
//  - A disagreement: a mention on which two or more curators (adjudicators not counted) have
//    links in effect of different categories (agreement.h's comparison). It is settled when its
//    latest adjudication was recorded after every curator decision on it; a curator who decides
//    again afterwards reopens it.
//  - The project's result (the GUI's link in effect, every export): unchanged, the latest
//    decision in effect on the mention whoever made it. An adjudication, recorded after the
//    decisions it settles, therefore wins; on an open disagreement the later-recorded curator's
//    link stands, and the export says how many disagreements are still open.
#include <cstddef>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "project/curation_decision.h"

namespace linkscope::curation {

inline constexpr std::string_view kAdjudicatorSuffix = " (adjudicator)";

/// "ana" -> "ana (adjudicator)"; a name that already ends so is returned as it is.
std::string adjudicatorName(std::string_view curator);
bool isAdjudication(const project::Decision& decision) noexcept;

/// The curators (adjudicators not included) who made the decisions in effect, in the order of
/// their first decision.
std::vector<std::string> curatorsOf(std::span<const project::Decision> done);

/// One mention with the decisions in effect of its curators.
struct Disagreement {
    project::MentionKey mention;
    std::string mentionText;
    /// Each curator's latest decision in effect that decided the mention (skips not counted).
    std::map<std::string, project::Decision> byCurator;
    /// Their categories (agreement.h), per curator.
    std::map<std::string, std::string> categories;
    /// The latest adjudication in effect on the mention (skips not counted), if any.
    std::optional<project::Decision> adjudication;
    /// An adjudication recorded after every curator decision on the mention.
    bool settled() const noexcept;
};

/// The mentions on which curators disagree, settled or not, in mention order (split, document,
/// offsets). With `curatorA` and `curatorB` given, only the mentions on which these two decided
/// differently (others may have decided too); otherwise any two curators.
std::vector<Disagreement> findDisagreements(std::span<const project::Decision> done, const std::string& curatorA = {},
                                            const std::string& curatorB = {});

/// How many disagreements (any two curators) are not settled.
std::size_t openDisagreements(std::span<const project::Decision> done);

}  // namespace linkscope::curation
