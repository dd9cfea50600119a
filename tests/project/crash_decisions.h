#pragma once
// The decisions project_store_crash_writer records, one per index, so that the crash test can
// tell what every decision reported as saved must hold, field by field. Varied on purpose: every
// kind, multi-byte text, links of several ids, offsets that repeat on some mentions.
#include <cstddef>
#include <string>

#include "project/curation_decision.h"

namespace linkscope::test {

inline project::Decision crashDecision(std::size_t index) {
    using project::DecisionKind;
    project::Decision decision;
    decision.mention.split = index % 3 == 0 ? "dev" : "train";
    decision.mention.document = std::to_string(10000000 + index % 97);
    decision.mention.start = (index % 13) * 10;
    decision.mention.end = decision.mention.start + 3 + index % 7;
    decision.mentionText = "mention " + std::to_string(index) +
                           " \xC3\xA9\xE2\x80\x93 d\xC3\xA9"
                           "ficit";
    decision.previousLink = "MESH:D" + std::to_string(900000 + index);
    decision.curator = "crash-writer";
    decision.timestamp = "2026-11-22T07:30:12." + std::to_string(100 + index % 900) + "Z";
    switch (index % 5) {
        case 0:
            decision.kind = DecisionKind::Accept;
            decision.newLink = decision.previousLink;
            break;
        case 1:
            decision.kind = DecisionKind::Correct;
            decision.newLink = "MESH:D" + std::to_string(index) + "|OMIM:1";
            break;
        case 2:
            decision.kind = DecisionKind::Reject;
            break;
        case 3:
            decision.kind = DecisionKind::Nil;
            decision.newLink = "-1";
            break;
        default:
            decision.kind = DecisionKind::Skip;
            break;
    }
    return decision;
}

}  // namespace linkscope::test
