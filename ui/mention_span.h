#pragma once
// What the document view needs to know about one mention: where it is and how to show it.
// Offsets count Unicode code points of "title + ' ' + abstract", as PubTator (and core) do.
#include <QString>

namespace linkscope::ui {

enum class MentionState { Unreviewed, Predicted, Accepted, Corrected, Rejected };

struct MentionSpan {
    int start = 0;  ///< code points
    int end = 0;    ///< code points, exclusive
    MentionState state = MentionState::Unreviewed;
    bool composite = false;
    /// The mention with the abbreviations its document defines expanded ("HD" -> "Huntington
    /// disease"), as the linkers read it; empty when it holds no defined short form.
    QString expansion;
    QString tooltip;  ///< rich text
};

}  // namespace linkscope::ui
