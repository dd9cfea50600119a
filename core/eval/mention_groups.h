#pragma once
// The mention groups a comparison of many runs reports rows for (multi_compare.h): properties of
// the mention itself, the same whichever run linked it, so that every run is scored on the same
// mentions in a row. From an evaluation's queries, or from a per-mention file (report.h), whose
// lines record the same properties:
//   seen / unseen        all gold ids occur in training / not (when the evaluation knew them);
//   homonym-affected / not homonym-affected   BELHD's flag (homonym_affected.h), when computed;
//   composite            several gold ids;
//   abbreviation expanded   the query preprocessing replaced a short form;
//   type T               one group per mention type, in name order.
// Groups no mention belongs to are left out. What depends on a run's predictions (BioSyn's
// error kinds) is not a group: the same mention is in it for one run and not for another.
#include <filesystem>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "eval/multi_compare.h"

namespace linkscope::eval {

struct EvalQuery;
struct EvalResult;

/// What the groups are made of, for one mention.
struct MentionFacts {
    std::string type;
    std::optional<bool> seen;
    std::optional<bool> homonymAffected;
    bool composite = false;
    bool abbreviationExpanded = false;
};

/// The facts of evaluated queries (`result` gives `seen`; same order and length as `queries`,
/// Error otherwise).
std::vector<MentionFacts> mentionFacts(std::span<const EvalQuery> queries, const EvalResult& result);

/// The facts of every line of a per-mention file, in file order (the lines readPerMention
/// reads). A field that is absent counts as unknown (seen, homonym_affected) or false; a field
/// of the wrong kind, a line that is not a JSON object, or an empty file throw ParseError
/// naming the file and line.
std::vector<MentionFacts> readMentionFacts(const std::filesystem::path& perMentionFile);

/// The groups of the header comment, in that order.
std::vector<MentionGroup> mentionGroups(std::span<const MentionFacts> facts);

}  // namespace linkscope::eval
