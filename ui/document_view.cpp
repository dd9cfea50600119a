#include "document_view.h"

#include <QHelpEvent>
#include <QKeyEvent>
#include <QTextBlock>
#include <QTextCursor>
#include <QToolTip>

#include "mention_palette.h"

namespace linkscope::ui {
namespace {

// QTextDocument positions count UTF-16 units; core offsets count code points. position[i] is the
// UTF-16 index of code point i (plus one entry for the end).
QVector<int> utf16PositionsOfCodePoints(const QString& text) {
    QVector<int> positions;
    positions.reserve(text.size() + 1);
    for (int i = 0; i < text.size(); ++i) {
        positions.push_back(i);
        if (text.at(i).isHighSurrogate() && i + 1 < text.size() && text.at(i + 1).isLowSurrogate()) ++i;
    }
    positions.push_back(static_cast<int>(text.size()));
    return positions;
}

}  // namespace

DocumentView::DocumentView(QWidget* parent) : QTextEdit(parent) {
    setReadOnly(true);
    setTextInteractionFlags(Qt::TextSelectableByMouse | Qt::TextSelectableByKeyboard);
    setObjectName(QStringLiteral("documentView"));
    setMouseTracking(true);
}

void DocumentView::clearDocument() {
    spans_.clear();
    utf16Start_.clear();
    utf16End_.clear();
    current_ = -1;
    clear();
}

void DocumentView::showDocument(const QString& title, const QString& abstract, QVector<MentionSpan> spans) {
    clearDocument();
    spans_ = std::move(spans);
    // The title keeps its own line but the offsets stay those of "title abstract": the separator
    // character is shown as a paragraph break, which QTextDocument also counts as one position.
    const QString combined = title + QLatin1Char(' ') + abstract;
    const QVector<int> positions = utf16PositionsOfCodePoints(combined);
    QTextCursor cursor(document());
    QTextCharFormat titleFormat;
    titleFormat.setFontWeight(QFont::Bold);
    titleFormat.setFontPointSize(font().pointSizeF() * 1.15);
    cursor.insertText(title, titleFormat);
    cursor.insertBlock();
    cursor.insertText(abstract, QTextCharFormat());
    for (const MentionSpan& span : spans_) {
        const int s = positions.value(std::clamp(span.start, 0, static_cast<int>(positions.size()) - 1));
        const int e = positions.value(std::clamp(span.end, 0, static_cast<int>(positions.size()) - 1));
        utf16Start_.push_back(s);
        utf16End_.push_back(e);
    }
    applyHighlights();
    moveCursor(QTextCursor::Start);
    if (!spans_.isEmpty()) selectMention(0);
}

void DocumentView::updateSpans(QVector<MentionSpan> spans) {
    if (spans.size() != spans_.size()) return;
    for (int i = 0; i < spans.size(); ++i) {
        spans_[i].state = spans[i].state;
        spans_[i].tooltip = std::move(spans[i].tooltip);
    }
    applyHighlights();
}

QString DocumentView::mentionText(int index) const {
    if (index < 0 || index >= spans_.size()) return {};
    QTextCursor cursor(document());
    cursor.setPosition(utf16Start_[index]);
    cursor.setPosition(utf16End_[index], QTextCursor::KeepAnchor);
    return cursor.selectedText();
}

void DocumentView::applyHighlights() {
    QList<QTextEdit::ExtraSelection> selections;
    for (int i = 0; i < spans_.size(); ++i) {
        QTextEdit::ExtraSelection selection;
        selection.cursor = QTextCursor(document());
        selection.cursor.setPosition(utf16Start_[i]);
        selection.cursor.setPosition(utf16End_[i], QTextCursor::KeepAnchor);
        selection.format.setBackground(mentionColor(spans_[i].state));
        if (spans_[i].composite) selection.format.setFontUnderline(true);
        // An abbreviation (its expansion in the tooltip) is dotted; composite keeps the line.
        else if (!spans_[i].expansion.isEmpty())
            selection.format.setUnderlineStyle(QTextCharFormat::DotLine);
        if (i == current_) {
            selection.format.setFontWeight(QFont::Bold);
            selection.format.setProperty(QTextFormat::OutlinePen, QPen(palette().highlight().color(), 1));
            selection.format.setUnderlineStyle(QTextCharFormat::SingleUnderline);
            selection.format.setUnderlineColor(palette().highlight().color());
        }
        selections.push_back(selection);
    }
    setExtraSelections(selections);
}

void DocumentView::selectMention(int index) {
    if (spans_.isEmpty()) return;
    index = std::clamp(index, 0, static_cast<int>(spans_.size()) - 1);
    current_ = index;
    applyHighlights();
    QTextCursor cursor(document());
    cursor.setPosition(utf16Start_[index]);
    setTextCursor(cursor);
    ensureCursorVisible();
    Q_EMIT currentMentionChanged(index);
}

int DocumentView::mentionAtPosition(int position) const {
    for (int i = 0; i < spans_.size(); ++i)
        if (position >= utf16Start_[i] && position < utf16End_[i]) return i;
    return -1;
}

bool DocumentView::event(QEvent* event) {
    if (event->type() == QEvent::ToolTip) {
        auto* help = static_cast<QHelpEvent*>(event);
        const int index = mentionAtPosition(cursorForPosition(viewport()->mapFromGlobal(help->globalPos())).position());
        if (index >= 0 && !spans_[index].tooltip.isEmpty())
            QToolTip::showText(help->globalPos(), spans_[index].tooltip, this);
        else
            QToolTip::hideText();
        return true;
    }
    if (event->type() == QEvent::ShortcutOverride) {
        // The view is read-only and takes no typing, but QTextEdit still claims printable keys
        // (as it would for typing): leave plain letters and digits other than its own
        // navigation keys to the window's shortcuts, the curation keys.
        auto* key = static_cast<QKeyEvent*>(event);
        const bool plain = (key->modifiers() & ~Qt::KeypadModifier) == Qt::NoModifier;
        if (plain && !key->text().isEmpty() && key->text().front().isLetterOrNumber() && key->key() != Qt::Key_N &&
            key->key() != Qt::Key_P) {
            event->ignore();
            return true;
        }
    }
    return QTextEdit::event(event);
}

bool DocumentView::focusNextPrevChild(bool next) {
    // Tab moves between mentions while the document has any; otherwise focus moves on as usual.
    if (spans_.isEmpty()) return QTextEdit::focusNextPrevChild(next);
    selectMention(current_ + (next ? 1 : -1));
    return true;
}

void DocumentView::keyPressEvent(QKeyEvent* event) {
    switch (event->key()) {
        case Qt::Key_N:
        case Qt::Key_Down:
            if (!spans_.isEmpty()) {
                selectMention(current_ + 1);
                return;
            }
            break;
        case Qt::Key_P:
        case Qt::Key_Up:
            if (!spans_.isEmpty()) {
                selectMention(current_ - 1);
                return;
            }
            break;
        case Qt::Key_Home:
            if (!spans_.isEmpty()) {
                selectMention(0);
                return;
            }
            break;
        case Qt::Key_End:
            if (!spans_.isEmpty()) {
                selectMention(static_cast<int>(spans_.size()) - 1);
                return;
            }
            break;
        default:
            break;
    }
    QTextEdit::keyPressEvent(event);
}

void DocumentView::mouseReleaseEvent(QMouseEvent* event) {
    QTextEdit::mouseReleaseEvent(event);
    const int index = mentionAtPosition(cursorForPosition(event->position().toPoint()).position());
    if (index >= 0) selectMention(index);
}

}  // namespace linkscope::ui
