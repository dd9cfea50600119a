#include "raw_file_view.h"

#include <QElapsedTimer>

#include <QTextCursor>
#include <QTimer>

#include <QFontDatabase>
#include <QPainter>
#include <QPromise>
#include <QTextBlock>
#include <QtConcurrent/QtConcurrent>

#include <string>

#include "pubtator_highlighter.h"
#include "util/line_reader.h"

#if LINKSCOPE_HAVE_KF6_SYNTAX
#include <KSyntaxHighlighting/Definition>
#include <KSyntaxHighlighting/Repository>
#include <KSyntaxHighlighting/SyntaxHighlighter>
#include <KSyntaxHighlighting/Theme>
#endif

namespace linkscope::ui {
namespace {

// The margin left of the text that shows line numbers (Qt's "code editor" example).
class LineNumberArea : public QWidget {
public:
    explicit LineNumberArea(RawFileView* view) : QWidget(view), view_(view) {}
    QSize sizeHint() const override { return {view_->lineNumberAreaWidth(), 0}; }

protected:
    void paintEvent(QPaintEvent* event) override { view_->paintLineNumbers(event); }

private:
    RawFileView* view_;
};

QSyntaxHighlighter* makeHighlighter(QPlainTextEdit* view) {
#if LINKSCOPE_HAVE_KF6_SYNTAX
    // The definition is compiled into the library as a resource under
    // ":/org.kde.syntax-highlighting/syntax-addons" (see ui/kb_sources.cmake), where every
    // Repository looks for third-party definitions. The repository is a QObject owned by the
    // view: definitions refer to it, so it must live as long as the highlighter.
    auto* repository = new KSyntaxHighlighting::Repository();
    repository->setParent(view);
    const KSyntaxHighlighting::Definition definition = repository->definitionForName(QStringLiteral("PubTator"));
    if (definition.isValid()) {
        auto* highlighter = new KSyntaxHighlighting::SyntaxHighlighter(view->document());
        highlighter->setTheme(repository->themeForPalette(view->palette()));
        highlighter->setDefinition(definition);
        return highlighter;
    }
#endif
    return new PubTatorHighlighter(view->document());
}

}  // namespace

bool RawFileView::usesKSyntaxHighlighting() {
#if LINKSCOPE_HAVE_KF6_SYNTAX
    return true;
#else
    return false;
#endif
}

RawFileView::RawFileView(QWidget* parent) : QPlainTextEdit(parent) {
    setObjectName(QStringLiteral("rawFileView"));
    setReadOnly(true);
    setTextInteractionFlags(Qt::TextSelectableByMouse | Qt::TextSelectableByKeyboard);
    setLineWrapMode(QPlainTextEdit::NoWrap);  // PubTator lines are records: keep one per row
    setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
    setUndoRedoEnabled(false);
    highlighter_ = makeHighlighter(this);
    lineNumbers_ = new LineNumberArea(this);
    connect(this, &QPlainTextEdit::blockCountChanged, this, [this] { setViewportMargins(lineNumberAreaWidth(), 0, 0, 0); });
    connect(this, &QPlainTextEdit::updateRequest, this, &RawFileView::updateLineNumberArea);
    // Scrolling brings new lines on screen: highlight them (a check per visible line otherwise).
    connect(this, &QPlainTextEdit::updateRequest, this, [this] { highlightVisible(); });
    setViewportMargins(lineNumberAreaWidth(), 0, 0, 0);
    connect(&watcher_, &QFutureWatcher<Loaded>::finished, this, &RawFileView::onLoaded);
}

RawFileView::~RawFileView() {
    watcher_.cancel();
    watcher_.waitForFinished();
}

void RawFileView::loadFile(const QString& path) {
    if (watcher_.isRunning()) {
        watcher_.cancel();
        watcher_.waitForFinished();
    }
    path_ = path;
    pendingLine_ = 0;
    loading_ = true;
    ++generation_;  // a chunked insertion of the previous file stops
    pendingText_.clear();
    pendingAt_ = 0;
    // The placeholder, not the text: the highlighter would mark a message as a malformed line.
    clear();
    setPlaceholderText(tr("Loading %1…").arg(path));
    const std::string file = path.toStdString();
    watcher_.setFuture(QtConcurrent::run(&pool_, [file](QPromise<Loaded>& promise) {
        try {
            LineReader reader(file);
            std::string text;
            std::string line;
            while (reader.next(line)) {
                if (reader.lineNumber() > 1) text.push_back('\n');
                text += line;
                if ((reader.lineNumber() & 0x3FF) == 0 && promise.isCanceled()) return;
            }
            promise.addResult(Loaded{QString::fromStdString(text), {}});
        } catch (const std::exception& e) {
            promise.addResult(Loaded{{}, QString::fromUtf8(e.what())});
        }
    }));
}

void RawFileView::onLoaded() {
    const QFuture<Loaded> future = watcher_.future();
    if (future.isCanceled() || future.resultCount() == 0) return;
    const Loaded loaded = future.result();
    loading_ = false;
    if (!loaded.error.isEmpty()) {
        clear();
        setPlaceholderText(tr("Cannot show %1:\n%2").arg(path_, loaded.error));
        Q_EMIT loadFailed(path_, loaded.error);
        return;
    }
    // The built-in highlighter formats only the lines on screen: a full pass over a 2 MB file
    // blocks the GUI thread for longer than the 100 ms the issue allows.
    auto* lazy = qobject_cast<PubTatorHighlighter*>(highlighter_);
    if (lazy) lazy->setLineWindow(0, -1);
    clear();
    setPlaceholderText({});
    pendingText_ = loaded.text;
    pendingAt_ = 0;
    loading_ = true;  // until the last chunk is in
    appendChunk(generation_);
}

void RawFileView::appendChunk(std::uint64_t generation) {
    if (generation != generation_) return;  // another file was asked for meanwhile
    // A MedMentions-size file (hundreds of thousands of lines) took 3.7 s laid out at once, and a
    // fixed 2,048 lines a turn took 50 to 80 ms each on the 2-core machine (ui_stall's event
    // timing), too close to the 100 ms the GUI thread may stall once the workers compete for
    // the cores. So lines go in by pieces of kLinesPerPiece until layoutBudgetMs_ have passed.
    QElapsedTimer turn;
    turn.start();
    QTextCursor cursor(document());
    cursor.movePosition(QTextCursor::End);
    do {
        qsizetype end = pendingAt_;
        for (int lines = 0; lines < kLinesPerPiece && end < pendingText_.size(); ++lines) {
            const qsizetype newline = pendingText_.indexOf(QLatin1Char('\n'), end);
            end = newline < 0 ? pendingText_.size() : newline + 1;
        }
        cursor.insertText(QStringView(pendingText_).mid(pendingAt_, end - pendingAt_).toString());
        pendingAt_ = end;
    } while (pendingAt_ < pendingText_.size() && turn.elapsed() < layoutBudgetMs_);
    if (pendingAt_ < pendingText_.size()) {
        QTimer::singleShot(0, this, [this, generation] { appendChunk(generation); });
        return;
    }
    pendingText_.clear();
    pendingAt_ = 0;
    loading_ = false;
    highlighted_.assign(static_cast<std::size_t>(blockCount()), false);
    const int line = pendingLine_;
    pendingLine_ = 0;
    goToLine(line > 0 ? line : 1);
    highlightVisible();
    Q_EMIT fileLoaded(path_, blockCount());
}

void RawFileView::highlightVisible() {
    auto* lazy = qobject_cast<PubTatorHighlighter*>(highlighter_);
    if (!lazy || loading_ || highlighted_.empty()) return;
    const int lineHeight = std::max(1, fontMetrics().height());
    const int first = std::max(0, firstVisibleBlock().blockNumber() - 50);
    const int last = std::min(blockCount() - 1, firstVisibleBlock().blockNumber() + viewport()->height() / lineHeight + 50);
    for (int number = first; number <= last; ++number) {
        if (highlighted_[static_cast<std::size_t>(number)]) continue;
        highlighted_[static_cast<std::size_t>(number)] = true;
        lazy->setLineWindow(number, number);
        lazy->rehighlightBlock(document()->findBlockByNumber(number));
    }
    lazy->setLineWindow(0, -1);
}

void RawFileView::goToLine(int line) {
    if (loading_) {
        pendingLine_ = line;
        return;
    }
    const QTextBlock block = document()->findBlockByNumber(std::clamp(line, 1, blockCount()) - 1);
    QTextCursor cursor(block);
    setTextCursor(cursor);
    centerCursor();
}

int RawFileView::currentLine() const { return textCursor().blockNumber() + 1; }

int RawFileView::lineNumberAreaWidth() const {
    int digits = 1;
    for (int max = std::max(1, blockCount()); max >= 10; max /= 10) ++digits;
    return 8 + fontMetrics().horizontalAdvance(QLatin1Char('9')) * digits;
}

void RawFileView::updateLineNumberArea(const QRect& rect, int dy) {
    if (dy != 0) lineNumbers_->scroll(0, dy);
    else lineNumbers_->update(0, rect.y(), lineNumbers_->width(), rect.height());
}

void RawFileView::resizeEvent(QResizeEvent* event) {
    QPlainTextEdit::resizeEvent(event);
    const QRect area = contentsRect();
    lineNumbers_->setGeometry(QRect(area.left(), area.top(), lineNumberAreaWidth(), area.height()));
}

void RawFileView::paintLineNumbers(QPaintEvent* event) {
    QPainter painter(lineNumbers_);
    painter.fillRect(event->rect(), palette().color(QPalette::AlternateBase));
    painter.setPen(palette().color(QPalette::PlaceholderText));
    QTextBlock block = firstVisibleBlock();
    int top = qRound(blockBoundingGeometry(block).translated(contentOffset()).top());
    int bottom = top + qRound(blockBoundingRect(block).height());
    const int width = lineNumbers_->width() - 4;
    while (block.isValid() && top <= event->rect().bottom()) {
        if (block.isVisible() && bottom >= event->rect().top())
            painter.drawText(0, top, width, fontMetrics().height(), Qt::AlignRight, QString::number(block.blockNumber() + 1));
        block = block.next();
        top = bottom;
        bottom = top + qRound(blockBoundingRect(block).height());
    }
}

}  // namespace linkscope::ui
