#pragma once
// Shows one document (title and abstract) with every mention highlighted by state, and lets the
// user move between mentions with the keyboard (Tab / Shift+Tab, or N / P).
#include <QTextEdit>
#include <QVector>

#include "mention_span.h"

namespace linkscope::ui {

class DocumentView : public QTextEdit {
    Q_OBJECT
public:
    explicit DocumentView(QWidget* parent = nullptr);

    /// Replaces the shown document. Spans use code-point offsets into title + " " + abstract.
    void showDocument(const QString& title, const QString& abstract, QVector<MentionSpan> spans);
    void clearDocument();
    /// New states and tooltips for the same mentions (after a decision); the selection stays.
    /// Ignored when the count differs from the shown document's.
    void updateSpans(QVector<MentionSpan> spans);
    /// The shown mention's spans, as given.
    const QVector<MentionSpan>& spans() const { return spans_; }

    int mentionCount() const { return static_cast<int>(spans_.size()); }
    int currentMention() const { return current_; }
    /// Selects mention `index` (clamped), scrolls to it and emits currentMentionChanged.
    void selectMention(int index);
    /// The text shown, as plain text (title, newline, abstract).
    QString plainDocumentText() const { return toPlainText(); }
    /// The characters of mention `index` as shown, for checks and accessibility.
    QString mentionText(int index) const;

Q_SIGNALS:
    void currentMentionChanged(int index);

protected:
    void keyPressEvent(QKeyEvent* event) override;
    void mouseReleaseEvent(QMouseEvent* event) override;
    bool focusNextPrevChild(bool next) override;
    bool event(QEvent* event) override;

private:
    void applyHighlights();
    int mentionAtPosition(int position) const;

    QVector<MentionSpan> spans_;
    QVector<int> utf16Start_;  ///< per span, position in the QTextDocument
    QVector<int> utf16End_;
    int current_ = -1;
};

}  // namespace linkscope::ui
