#pragma once
// A corpus file as it is on disk, read-only, with line numbers and PubTator syntax
// highlighting: KDE's KSyntaxHighlighting with resources/syntax/pubtator.xml where CMake found
// KF6SyntaxHighlighting, PubTatorHighlighter otherwise. The file is read on a worker thread
// (through LineReader: .gz works, invalid UTF-8 is reported with its line), so a 2 MB training
// file does not freeze the window; goToLine() waits for the load when one is running.
#include <QFutureWatcher>
#include <QThreadPool>
#include <QPlainTextEdit>
#include <QString>

#include <cstdint>
#include <vector>

class QSyntaxHighlighter;

namespace linkscope::ui {

class RawFileView : public QPlainTextEdit {
    Q_OBJECT
public:
    explicit RawFileView(QWidget* parent = nullptr);
    ~RawFileView() override;

    /// Starts reading `path` (a load already running is abandoned).
    void loadFile(const QString& path);
    bool isLoading() const { return loading_; }
    /// The file shown (or being loaded).
    const QString& filePath() const { return path_; }

    /// Moves the cursor to the start of 1-based `line` (clamped) and centres it; while a load
    /// runs, the move happens once the file is shown.
    void goToLine(int line);
    /// 1-based line of the cursor.
    int currentLine() const;

    /// The highlighter in use (KSyntaxHighlighting's or the built-in one).
    QSyntaxHighlighter* highlighter() const { return highlighter_; }
    /// True when KDE's KSyntaxHighlighting does the highlighting.
    static bool usesKSyntaxHighlighting();

    /// How long one turn of the event loop may lay out lines of a file being shown; at least
    /// one piece of kLinesPerPiece lines goes in per turn (0: exactly one).
    static constexpr int kDefaultLayoutBudgetMs = 20;
    static constexpr int kLinesPerPiece = 256;
    void setLayoutBudgetMs(int milliseconds) { layoutBudgetMs_ = milliseconds; }

    /// Width of the line-number margin, for the margin widget.
    int lineNumberAreaWidth() const;
    void paintLineNumbers(QPaintEvent* event);

Q_SIGNALS:
    void fileLoaded(const QString& path, int lineCount);
    void loadFailed(const QString& path, const QString& message);

protected:
    void resizeEvent(QResizeEvent* event) override;

private:
    struct Loaded {
        QString text;
        QString error;
    };
    void onLoaded();
    /// Appends the next lines of pendingText_ (pieces of kLinesPerPiece for layoutBudgetMs_) and
    /// schedules the rest on the next turn of the event loop; finishes the load after the last ones.
    void appendChunk(std::uint64_t generation);
    void updateLineNumberArea(const QRect& rect, int dy);
    /// Highlights the blocks on screen (and a margin) not highlighted yet (built-in highlighter).
    void highlightVisible();

    /// Its own pool: on the global one a long job holds the threads that Qt's raster engine
    /// borrows for large fills, and painting then waits for the job (benchmarks/ui_stall).
    QThreadPool pool_;
    QFutureWatcher<Loaded> watcher_;
    QString path_;
    int pendingLine_ = 0;
    /// Set from loadFile() until its result is shown: the worker may be done (the watcher no
    /// longer running) before the result reaches this thread.
    bool loading_ = false;
    /// The loaded text not yet in the document, from pendingAt_: laid out a slice per turn,
    /// because a MedMentions-size corpus laid out at once blocked the GUI thread for 3.7 s
    /// (docs/benchmarks.md). A new loadFile() bumps generation_ and drops the rest.
    QString pendingText_;
    qsizetype pendingAt_ = 0;
    std::uint64_t generation_ = 0;
    int layoutBudgetMs_ = kDefaultLayoutBudgetMs;
    QSyntaxHighlighter* highlighter_ = nullptr;
    QWidget* lineNumbers_ = nullptr;
    std::vector<bool> highlighted_;  ///< per block, with the built-in highlighter's lazy mode
};

}  // namespace linkscope::ui
