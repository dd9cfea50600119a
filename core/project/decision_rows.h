#pragma once
// PRIVATE to the project store: what every backend checks of a decision, the same way. Before
// writing: the fields a caller gives (validateDecision). After reading: a stored row's fields and
// its checksum (checkedDecision), so that a byte changed in storage is refused, naming the store
// and the row, whichever backend holds it.
#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <string_view>

#include "project/curation_decision.h"

namespace linkscope::project {

/// The largest offset a store keeps (a signed 64-bit column).
inline constexpr auto kMaxStoredOffset = static_cast<std::size_t>(std::numeric_limits<std::int64_t>::max());

/// "split/document [start, end)": how messages name a mention.
std::string describeMention(const MentionKey& mention);

/// Whether a text holds a tab or a line break: ids and links end up as fields of PubTator, BioC
/// and brat lines, where one would split a line into fields or lines it does not have.
bool hasLineBreakOrTab(std::string_view text);

/// Throws Error naming `store` and saying what is wrong with a decision before anything is
/// written; fills in the nil link ("-1", the CUI-less id) when it was left empty.
void validateDecision(Decision& decision, const std::string& store);

/// One decision row as a backend read it, the kind and state still as their stored names.
struct StoredDecisionRow {
    std::int64_t id = 0;
    std::string split;
    std::string document;
    std::int64_t start = 0;
    std::int64_t end = 0;
    std::string mentionText;
    std::string kind;
    std::string previousLink;
    std::string newLink;
    std::string curator;
    std::string timestamp;
    std::string state;
    /// The stored checksum; nullopt when the row has none (a row of an old file).
    std::optional<std::int64_t> checksum;
};

/// The decision a row holds, its fields checked; with `withChecksum`, its checksum too. Throws
/// ParseError naming `store` and the row at the first damage.
Decision checkedDecision(const StoredDecisionRow& row, const std::string& store, bool withChecksum);

}  // namespace linkscope::project
