#pragma once
// A corpus file as it is on disk, read-only, with line numbers and PubTator syntax
// highlighting: KDE's KSyntaxHighlighting with resources/syntax/pubtator.xml where CMake found
// KF6SyntaxHighlighting, PubTatorHighlighter otherwise. The file is read on a worker thread
// (through LineReader: .gz works, invalid UTF-8 is reported with its line), so a large training
// file does not freeze the window; goToLine() waits for the load when one is running.
//
// A large file is shown as a window of its lines around the one asked for (kWindowLines; the
// line numbers are the file's), moved when another line outside it is asked for or when the view
// is scrolled to the window's first or last line. Why: a MedMentions-size corpus in a text
// document takes UTF-16 text plus a block per line, twice over while it is laid out, and its
// layout held the GUI thread for longer turns as the document's buffer grew
// (benchmarks/ui_stall). The file's bytes and line offsets are kept instead.
#include <QPlainTextEdit>
#include <QString>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "background_job.h"
#include "turn_scheduler.h"

class QSyntaxHighlighter;

namespace linkscope::ui {

class RawFileView : public QPlainTextEdit {
    Q_OBJECT
public:
    /// A file of at most this many lines is shown whole; a longer one this many lines at a time.
    static constexpr int kWindowLines = 3000;

    explicit RawFileView(QWidget* parent = nullptr);

    /// Starts reading `path` (a load already running is abandoned).
    void loadFile(const QString& path);
    /// True while the file is read or a window of it is being laid out.
    bool isLoading() const { return loading_; }
    /// The file shown (or being loaded).
    const QString& filePath() const { return path_; }
    /// Lines in the file (0 before it is read).
    int fileLineCount() const;
    /// The 1-based file lines the view holds now, first and last (0, 0 when none).
    int firstShownLine() const { return lastLine_ == 0 ? 0 : firstLine_; }
    int lastShownLine() const { return lastLine_; }

    /// Moves the cursor to the start of 1-based file `line` (clamped) and centres it, moving the
    /// window when the line is outside it; while a load runs, the move happens once it is shown.
    void goToLine(int line);
    /// 1-based file line of the cursor.
    int currentLine() const;

    /// The highlighter in use (KSyntaxHighlighting's or the built-in one).
    QSyntaxHighlighter* highlighter() const { return highlighter_; }
    /// True when KDE's KSyntaxHighlighting does the highlighting.
    static bool usesKSyntaxHighlighting();

    /// How long one turn of the event loop may lay out lines of a window being shown; at least
    /// one piece of kLinesPerPiece lines goes in per turn (0: exactly one).
    static constexpr int kDefaultLayoutBudgetMs = 20;
    static constexpr int kLinesPerPiece = 256;
    void setLayoutBudgetMs(int milliseconds) { layoutBudgetMs_ = milliseconds; }

    /// Width of the line-number margin, for the margin widget.
    int lineNumberAreaWidth() const;
    void paintLineNumbers(QPaintEvent* event);

Q_SIGNALS:
    /// The file was read and its first window is shown; lineCount is the file's.
    void fileLoaded(const QString& path, int lineCount);
    void loadFailed(const QString& path, const QString& message);

protected:
    void resizeEvent(QResizeEvent* event) override;

private:
    /// The file as read: its text (lines joined by '\n') and where each line starts.
    struct FileLines {
        std::string text;
        std::vector<std::uint64_t> starts;
        int count() const { return static_cast<int>(starts.size()); }
    };
    void onLoaded(std::shared_ptr<const FileLines> file);
    void onLoadFailed(const QString& error);
    /// Shows the window of the file's lines around `line` (laid out in turns); once it is in,
    /// the cursor goes to pendingLine_ and, when set, `topLine` becomes the first visible line.
    void showWindowAround(int line, int topLine = 0);
    /// One turn of layout_: appends the next lines of pendingText_ (pieces of kLinesPerPiece for
    /// layoutBudgetMs_); true while more remain; finishes the window after the last.
    bool appendChunk();
    /// Moves the window when the view is scrolled to its first or last line.
    void followScrolling(int value);
    void updateLineNumberArea(const QRect& rect, int dy);
    /// Highlights the blocks on screen (and a margin) not highlighted yet (built-in highlighter).
    void highlightVisible();

    BackgroundJob loader_;
    QString path_;
    std::shared_ptr<const FileLines> file_;
    int firstLine_ = 1;  // the file line of the document's first block
    int lastLine_ = 0;   // the file line of its last block (0: nothing shown)
    int pendingLine_ = 0;
    int pendingTopLine_ = 0;
    bool announced_ = false;  // fileLoaded emitted for this file
    /// Set from loadFile() until its first window is shown, and while a window is laid out: the
    /// worker may be done (the watcher no longer running) before the result reaches this thread.
    bool loading_ = false;
    /// The window's text not yet in the document, from pendingAt_: laid out a slice per turn.
    /// Showing another window or file starts layout_ again, which drops the rest.
    QString pendingText_;
    qsizetype pendingAt_ = 0;
    TurnScheduler layout_{this};
    int layoutBudgetMs_ = kDefaultLayoutBudgetMs;
    QSyntaxHighlighter* highlighter_ = nullptr;
    QWidget* lineNumbers_ = nullptr;
    std::vector<bool> highlighted_;  ///< per block, with the built-in highlighter's lazy mode
};

}  // namespace linkscope::ui
