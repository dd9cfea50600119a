#include "mention_palette.h"

namespace linkscope::ui {

// Pale backgrounds that keep black text readable and stay distinguishable for the common forms
// of colour blindness (blue / orange / green / purple / grey rather than red against green).
QColor mentionColor(MentionState state) {
    switch (state) {
        case MentionState::Unreviewed:
            return QColor(0xFF, 0xE0, 0x99);
        case MentionState::Predicted:
            return QColor(0xB3, 0xD4, 0xFF);
        case MentionState::Accepted:
            return QColor(0xB8, 0xE6, 0xB0);
        case MentionState::Corrected:
            return QColor(0xD9, 0xC2, 0xF0);
        case MentionState::Rejected:
            return QColor(0xD0, 0xD0, 0xD0);
    }
    return Qt::white;
}

QString mentionStateName(MentionState state) {
    switch (state) {
        case MentionState::Unreviewed:
            return QStringLiteral("unreviewed");
        case MentionState::Predicted:
            return QStringLiteral("predicted");
        case MentionState::Accepted:
            return QStringLiteral("accepted");
        case MentionState::Corrected:
            return QStringLiteral("corrected");
        case MentionState::Rejected:
            return QStringLiteral("rejected");
    }
    return {};
}

}  // namespace linkscope::ui
