#pragma once
// One colour per mention state, shared by the document view and its legend.
#include <QColor>
#include <QString>

#include "mention_span.h"

namespace linkscope::ui {

QColor mentionColor(MentionState state);
QString mentionStateName(MentionState state);

}  // namespace linkscope::ui
