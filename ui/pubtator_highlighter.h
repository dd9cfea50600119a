#pragma once
#include <limits>
// Syntax highlighting of PubTator files for the raw file view, used when KDE's
// KSyntaxHighlighting (with resources/syntax/pubtator.xml) is not available:
//   PMID|t|title            PMID, the |t| / |a| marker, the text
//   PMID|a|abstract
//   PMID<TAB>start<TAB>end<TAB>mention<TAB>type<TAB>ids[<TAB>individual mentions]
//   PMID<TAB>relation<TAB>id<TAB>id          (BC5CDR's CID lines)
// A line that is none of these is marked as an error, as are offsets that are not numbers.
// Lines are split by hand rather than with regular expressions. A view of a large file can
// restrict highlighting to a window of lines (setLineWindow): QSyntaxHighlighter otherwise
// formats every line of NCBI's training file on the GUI thread when it is shown, longer than the
// 100 ms the GUI thread may stall.
#include <QSyntaxHighlighter>
#include <QTextCharFormat>

#include <array>

namespace linkscope::ui {

class PubTatorHighlighter : public QSyntaxHighlighter {
    Q_OBJECT
public:
    enum class Token {
        Pmid,
        Marker,  ///< "|t|", "|a|"
        Title,
        Abstract,
        Offset,  ///< start and end of a mention
        MentionText,
        MentionType,
        ConceptId,     ///< the id column, relation arguments, individual mentions
        RelationType,  ///< "CID"
        Error,
    };
    static constexpr int kTokenCount = static_cast<int>(Token::Error) + 1;

    explicit PubTatorHighlighter(QTextDocument* document);

    /// Only blocks numbered [first, last] get formats; the others are left plain (the view
    /// highlights what is on screen with rehighlightBlock). Default: every block.
    void setLineWindow(int first, int last) {
        first_ = first;
        last_ = last;
    }

    /// The format given to a kind of token (tests compare block formats with these).
    const QTextCharFormat& format(Token token) const { return formats_[static_cast<std::size_t>(token)]; }

protected:
    void highlightBlock(const QString& text) override;

private:
    void apply(int start, int length, Token token) { setFormat(start, length, format(token)); }
    std::array<QTextCharFormat, kTokenCount> formats_;
    int first_ = 0;
    int last_ = std::numeric_limits<int>::max();
};

}  // namespace linkscope::ui
