#pragma once
// The review figures of one document, as the Documents dock shows them: what the decision log
// holds for its mentions against what the active ranker proposes and the gold ids.
#include <QString>

#include <string>

namespace linkscope {
class Document;
}

namespace linkscope::ui {

class DecisionLog;
class RankerHost;

struct DocumentReview {
    int mentions = 0;
    int reviewed = 0;       ///< mentions with a decision in effect
    int disagreements = 0;  ///< mentions whose link in effect differs from the gold ids
    int lowConfidence = 0;  ///< mentions without a decision whose proposal has low confidence
    /// Who made the decisions in effect, most decisions first: "ann (3), bob (1)" (the login on
    /// a server, decision_command.h's decidedBy); empty for none.
    QString decidedBy;
};

/// Mentions whose proposal is not known yet count as neither agreeing nor disagreeing.
DocumentReview reviewDocument(const DecisionLog& decisions, const RankerHost& rankers, const std::string& split,
                              const Document& document);

}  // namespace linkscope::ui
