#include "raw_file_view.h"

#include <QElapsedTimer>

#include <QScrollBar>
#include <QTextCursor>

#include <QFontDatabase>
#include <QPainter>
#include <QTextBlock>

#include <algorithm>
#include <limits>
#include <stdexcept>
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
    connect(this, &QPlainTextEdit::blockCountChanged, this,
            [this] { setViewportMargins(lineNumberAreaWidth(), 0, 0, 0); });
    connect(this, &QPlainTextEdit::updateRequest, this, &RawFileView::updateLineNumberArea);
    // Scrolling brings new lines on screen: highlight them (a check per visible line otherwise).
    connect(this, &QPlainTextEdit::updateRequest, this, [this] { highlightVisible(); });
    setViewportMargins(lineNumberAreaWidth(), 0, 0, 0);
    connect(&loader_, &BackgroundJob::failed, this, &RawFileView::onLoadFailed);
    connect(verticalScrollBar(), &QScrollBar::valueChanged, this, &RawFileView::followScrolling);
}

void RawFileView::loadFile(const QString& path) {
    path_ = path;
    file_.reset();
    firstLine_ = 1;
    lastLine_ = 0;
    pendingLine_ = 0;
    pendingTopLine_ = 0;
    announced_ = false;
    loading_ = true;
    layout_.cancel();  // a chunked insertion of the previous file stops
    pendingText_.clear();
    pendingAt_ = 0;
    // The placeholder, not the text: the highlighter would mark a message as a malformed line.
    clear();
    setPlaceholderText(tr("Loading %1…").arg(path));
    const std::string file = path.toStdString();
    // A load under way is replaced: its lines are dropped.
    loader_.start(
        [file](const JobContext& context) {
            LineReader reader(file);
            auto lines = std::make_shared<FileLines>();
            std::string line;
            while (reader.next(line)) {
                if (reader.lineNumber() > 1) lines->text.push_back('\n');
                lines->starts.push_back(lines->text.size());
                lines->text += line;
                if ((reader.lineNumber() & 0x3FF) == 0) context.checkCancelled();
            }
            if (lines->starts.size() > static_cast<std::size_t>(std::numeric_limits<int>::max()))
                throw std::runtime_error(file + ": too many lines to show");
            return std::shared_ptr<const FileLines>(std::move(lines));
        },
        [this](std::shared_ptr<const FileLines> lines) { onLoaded(std::move(lines)); });
}

int RawFileView::fileLineCount() const { return file_ ? file_->count() : 0; }

void RawFileView::onLoadFailed(const QString& error) {
    loading_ = false;
    clear();
    setPlaceholderText(tr("Cannot show %1:\n%2").arg(path_, error));
    Q_EMIT loadFailed(path_, error);
}

void RawFileView::onLoaded(std::shared_ptr<const FileLines> file) {
    file_ = std::move(file);
    setPlaceholderText({});
    showWindowAround(pendingLine_ > 0 ? pendingLine_ : 1);
}

void RawFileView::showWindowAround(int line, int topLine) {
    if (!file_) return;
    const int count = file_->count();
    line = std::clamp(line, 1, std::max(count, 1));
    int first = 1, last = count;
    if (count > kWindowLines) {
        first = std::clamp(line - kWindowLines / 2, 1, count - kWindowLines + 1);
        last = first + kWindowLines - 1;
    }
    // The built-in highlighter formats only the lines on screen: a full pass over the window's
    // lines as they go in would cost more than the layout.
    if (auto* lazy = qobject_cast<PubTatorHighlighter*>(highlighter_)) lazy->setLineWindow(0, -1);
    loading_ = true;
    firstLine_ = first;
    lastLine_ = 0;  // until the window is in
    if (pendingLine_ <= 0) pendingLine_ = line;
    pendingTopLine_ = topLine;
    clear();
    if (count == 0) {
        pendingText_.clear();
    } else {
        const std::uint64_t begin = file_->starts[static_cast<std::size_t>(first - 1)];
        const std::uint64_t end = last < count ? file_->starts[static_cast<std::size_t>(last)] - 1 : file_->text.size();
        pendingText_ = QString::fromUtf8(file_->text.data() + begin, static_cast<qsizetype>(end - begin));
    }
    pendingAt_ = 0;
    // Starting drops the rest of a window still being laid out (another file or window asked for).
    layout_.start([this] { return appendChunk(); });
}

bool RawFileView::appendChunk() {
    // A MedMentions-size file (hundreds of thousands of lines) laid out at once holds the GUI
    // thread far too long, and a fixed count of lines a turn came too close to the 100 ms the
    // GUI thread may stall once the workers compete for the cores (benchmarks/ui_stall). So
    // lines go in by pieces of kLinesPerPiece until layoutBudgetMs_ have passed.
    QElapsedTimer turn;
    turn.start();
    QTextCursor cursor(document());
    cursor.movePosition(QTextCursor::End);
    while (pendingAt_ < pendingText_.size()) {
        qsizetype end = pendingAt_;
        for (int lines = 0; lines < kLinesPerPiece && end < pendingText_.size(); ++lines) {
            const qsizetype newline = pendingText_.indexOf(QLatin1Char('\n'), end);
            end = newline < 0 ? pendingText_.size() : newline + 1;
        }
        cursor.insertText(QStringView(pendingText_).mid(pendingAt_, end - pendingAt_).toString());
        pendingAt_ = end;
        if (turn.elapsed() >= layoutBudgetMs_) break;
    }
    if (pendingAt_ < pendingText_.size()) return true;
    pendingText_.clear();
    pendingAt_ = 0;
    loading_ = false;
    lastLine_ = firstLine_ + blockCount() - 1;
    highlighted_.assign(static_cast<std::size_t>(blockCount()), false);
    setViewportMargins(lineNumberAreaWidth(), 0, 0, 0);
    const int line = pendingLine_;
    const int top = pendingTopLine_;
    pendingLine_ = 0;
    pendingTopLine_ = 0;
    goToLine(line > 0 ? line : firstLine_);
    if (top > 0) verticalScrollBar()->setValue(top - firstLine_);
    highlightVisible();
    if (!announced_) {
        announced_ = true;
        Q_EMIT fileLoaded(path_, fileLineCount());
    }
    return false;
}

void RawFileView::followScrolling(int value) {
    if (loading_ || !file_ || lastLine_ == 0) return;
    const QScrollBar* bar = verticalScrollBar();
    const int top = firstLine_ + value;  // with no wrapping, one scroll step is one line
    const bool atEnd = value == bar->maximum() && lastLine_ < file_->count();
    const bool atStart = value == bar->minimum() && firstLine_ > 1;
    if (!atEnd && !atStart) return;
    // The new window is centred on the first visible line, which stays where it is: far from
    // both of the new window's edges, so the scrolling that restores it moves nothing again.
    pendingLine_ = top;
    showWindowAround(top, top);
}

void RawFileView::highlightVisible() {
    auto* lazy = qobject_cast<PubTatorHighlighter*>(highlighter_);
    if (!lazy || loading_ || highlighted_.empty()) return;
    const int lineHeight = std::max(1, fontMetrics().height());
    const int first = std::max(0, firstVisibleBlock().blockNumber() - 50);
    const int last =
        std::min(blockCount() - 1, firstVisibleBlock().blockNumber() + viewport()->height() / lineHeight + 50);
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
    if (!file_) return;
    line = std::clamp(line, 1, std::max(file_->count(), 1));
    if (line < firstLine_ || line > lastLine_) {
        pendingLine_ = line;
        showWindowAround(line);
        return;
    }
    const QTextBlock block = document()->findBlockByNumber(line - firstLine_);
    QTextCursor cursor(block);
    setTextCursor(cursor);
    centerCursor();
}

int RawFileView::currentLine() const { return firstLine_ + textCursor().blockNumber(); }

int RawFileView::lineNumberAreaWidth() const {
    int digits = 1;
    for (int max = std::max({1, blockCount(), fileLineCount()}); max >= 10; max /= 10) ++digits;
    return 8 + fontMetrics().horizontalAdvance(QLatin1Char('9')) * digits;
}

void RawFileView::updateLineNumberArea(const QRect& rect, int dy) {
    if (dy != 0)
        lineNumbers_->scroll(0, dy);
    else
        lineNumbers_->update(0, rect.y(), lineNumbers_->width(), rect.height());
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
            painter.drawText(0, top, width, fontMetrics().height(), Qt::AlignRight,
                             QString::number(block.blockNumber() + firstLine_));
        block = block.next();
        top = bottom;
        bottom = top + qRound(blockBoundingRect(block).height());
    }
}

}  // namespace linkscope::ui
