#pragma once
// Turns a core Document's mentions into what the DocumentView shows (spans with tooltips that
// name each gold id's preferred name in the project's knowledge base).
#include <QVector>

#include <functional>

#include "mention_span.h"

namespace linkscope {
class Document;
struct Mention;
struct LoadedProject;
}  // namespace linkscope

namespace linkscope::ui {

/// The state of a mention in the curation (decisions, predictions); every mention is unreviewed
/// without one. `note` adds a line to the tooltip (the decision in effect), may be empty.
struct MentionStatus {
    MentionState state = MentionState::Unreviewed;
    QString note;
};
using MentionStatusFn = std::function<MentionStatus(const Mention&)>;

QVector<MentionSpan> mentionSpans(const Document& document, const LoadedProject& project,
                                  const MentionStatusFn& status = {});

}  // namespace linkscope::ui
