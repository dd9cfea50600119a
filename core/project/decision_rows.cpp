#include "project/decision_rows.h"

#include "corpus/split_name.h"
#include "project/decision_checksum.h"
#include "util/error.h"

namespace linkscope::project {

std::string describeMention(const MentionKey& mention) {
    return mention.split + "/" + mention.document + " [" + std::to_string(mention.start) + ", " +
           std::to_string(mention.end) + ")";
}

bool hasLineBreakOrTab(std::string_view text) { return text.find_first_of("\t\r\n") != std::string_view::npos; }

void validateDecision(Decision& decision, const std::string& store) {
    const auto refuse = [&](const std::string& why) {
        return Error(store + ": cannot record the decision on " + describeMention(decision.mention) + ": " + why);
    };
    const MentionKey& mention = decision.mention;
    if (mention.split.empty()) throw refuse("the split is empty");
    if (mention.document.empty()) throw refuse("the document is empty");
    if (mention.end <= mention.start) throw refuse("the mention ends before it starts (end <= start)");
    if (mention.end > kMaxStoredOffset) throw refuse("the offsets are out of range");
    if (hasLineBreakOrTab(mention.document)) throw refuse("the document id holds a tab or a line break");
    if (hasLineBreakOrTab(decision.newLink)) throw refuse("the new link holds a tab or a line break");
    if (hasLineBreakOrTab(decision.previousLink)) throw refuse("the previous link holds a tab or a line break");
    const std::string kind(decisionKindName(decision.kind));
    switch (decision.kind) {
        case DecisionKind::Accept:
        case DecisionKind::Correct:
            if (decision.newLink.empty()) throw refuse("an " + kind + " decision needs the new link");
            break;
        case DecisionKind::Nil:
            if (decision.newLink.empty()) decision.newLink = "-1";
            if (decision.newLink != "-1")
                throw refuse("a nil decision links to \"-1\", not to \"" + decision.newLink + "\"");
            break;
        case DecisionKind::Reject:
        case DecisionKind::Skip:
            // The header's contract: reject and skip give no link; one given is a caller's mix-up.
            if (!decision.newLink.empty())
                throw refuse("a " + kind + " decision gives no new link, but \"" + decision.newLink + "\" was given");
            break;
        default:
            throw refuse("unknown decision kind " + std::to_string(static_cast<int>(decision.kind)));
    }
}

Decision checkedDecision(const StoredDecisionRow& row, const std::string& store, bool withChecksum) {
    Decision decision;
    decision.id = row.id;
    const auto damaged = [&](const std::string& why) {
        return ParseError(store, 0, "damaged project: decision " + std::to_string(decision.id) + " " + why);
    };
    decision.mention.split = row.split;
    if (const auto problem = splitNameProblem(decision.mention.split)) throw damaged("names a bad split: " + *problem);
    decision.mention.document = row.document;
    if (hasLineBreakOrTab(decision.mention.document)) throw damaged("has a document id with a tab or a line break");
    if (row.start < 0 || row.end <= row.start)
        throw damaged("has the offsets " + std::to_string(row.start) + "-" + std::to_string(row.end));
    decision.mention.start = static_cast<std::size_t>(row.start);
    decision.mention.end = static_cast<std::size_t>(row.end);
    decision.mentionText = row.mentionText;
    const auto parsedKind = parseDecisionKind(row.kind);
    if (!parsedKind) throw damaged("has the unknown kind \"" + row.kind + "\"");
    decision.kind = *parsedKind;
    decision.previousLink = row.previousLink;
    decision.newLink = row.newLink;
    if (hasLineBreakOrTab(decision.previousLink) || hasLineBreakOrTab(decision.newLink))
        throw damaged("has a link with a tab or a line break");
    decision.curator = row.curator;
    decision.timestamp = row.timestamp;
    const auto parsedState = parseDecisionState(row.state);
    if (!parsedState) throw damaged("has the unknown state \"" + row.state + "\"");
    decision.state = *parsedState;
    if (withChecksum) {
        // Last, so that a field that cannot be read at all is named as such.
        const std::string where =
            "decision " + std::to_string(decision.id) + " (" + describeMention(decision.mention) + ")";
        if (!row.checksum) throw ParseError(store, 0, "damaged project: " + where + " has no checksum");
        if (const std::int64_t expected = decisionChecksum(decision); *row.checksum != expected)
            throw ParseError(store, 0,
                             "damaged project: " + where + " does not match its checksum (stored " +
                                 std::to_string(*row.checksum) + ", its fields give " + std::to_string(expected) +
                                 "): a byte of the row changed in storage; restore the project from a copy");
    }
    return decision;
}

}  // namespace linkscope::project
