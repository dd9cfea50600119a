#pragma once
// Turns a core Document's mentions into what the DocumentView shows (spans with tooltips that
// name each gold id's preferred name in the project's knowledge base).
#include <QVector>

#include "mention_span.h"

namespace linkscope {
class Document;
struct LoadedProject;
}

namespace linkscope::ui {

QVector<MentionSpan> mentionSpans(const Document& document, const LoadedProject& project);

}  // namespace linkscope::ui
