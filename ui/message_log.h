#pragma once
// The message log: every dock's errors, notes and progress lines in one list, each with its
// category and the dock (or job) it came from. The window's status bar shows the latest entry.
// Consecutive progress lines of one source share one row (the latest), so that a percentage
// counting up leaves one line, not a hundred.
#include <QString>
#include <QWidget>

#include <vector>

class QTreeWidget;

namespace linkscope::ui {

enum class MessageCategory { Error, Note, Progress };

/// The category's name as the log shows it ("error", "note", "progress").
QString messageCategoryName(MessageCategory category);

struct MessageEntry {
    MessageCategory category = MessageCategory::Note;
    QString source;  ///< the dock or job the message came from, e.g. "Documents", "Export"
    QString text;    ///< plain text
};

class MessageLog : public QWidget {
    Q_OBJECT
public:
    explicit MessageLog(QWidget* parent = nullptr);

    /// Adds a message (a progress line replaces the previous row when that is a progress line of
    /// the same source). `statusHtml`, when given, is what the status bar shows instead of the
    /// text (a message with a link).
    void add(MessageCategory category, const QString& source, const QString& text, const QString& statusHtml = {});
    void error(const QString& source, const QString& text) { add(MessageCategory::Error, source, text); }
    void note(const QString& source, const QString& text) { add(MessageCategory::Note, source, text); }
    void progress(const QString& source, const QString& text) { add(MessageCategory::Progress, source, text); }
    /// Forgets every entry (another project).
    void clear();

    const std::vector<MessageEntry>& entries() const { return entries_; }
    /// Every entry's text, one a line (what a test or a copy reads).
    QString plainText() const;

Q_SIGNALS:
    /// A message was added; `statusLine` is what the status bar shows for it (rich text when the
    /// message carries a link, plain text otherwise).
    void added(const linkscope::ui::MessageEntry& entry, const QString& statusLine);

private:
    QTreeWidget* list_;
    std::vector<MessageEntry> entries_;
};

}  // namespace linkscope::ui
