#include "pubtator_highlighter.h"

#include <QColor>
#include <QFont>
#include <QVarLengthArray>

namespace linkscope::ui {
namespace {

bool isNumber(QStringView text) {
    if (text.isEmpty()) return false;
    for (const QChar c : text)
        if (c < QLatin1Char('0') || c > QLatin1Char('9')) return false;
    return true;
}

QTextCharFormat coloured(const QColor& colour, bool bold = false, bool italic = false) {
    QTextCharFormat format;
    format.setForeground(colour);
    if (bold) format.setFontWeight(QFont::Bold);
    if (italic) format.setFontItalic(true);
    return format;
}

}  // namespace

PubTatorHighlighter::PubTatorHighlighter(QTextDocument* document) : QSyntaxHighlighter(document) {
    // Dark, saturated colours that read on the light background of a text view; the same roles
    // as the KSyntaxHighlighting definition's styles (resources/syntax/pubtator.xml).
    const auto set = [this](Token token, QTextCharFormat format) {
        formats_[static_cast<std::size_t>(token)] = std::move(format);
    };
    set(Token::Pmid, coloured(QColor(0x1F, 0x4E, 0x99)));
    set(Token::Marker, coloured(QColor(0x8E, 0x24, 0xAA), true));
    set(Token::Title, coloured(QColor(0x20, 0x20, 0x20), true));
    set(Token::Abstract, QTextCharFormat());
    set(Token::Offset, coloured(QColor(0x00, 0x7A, 0x7A)));
    set(Token::MentionText, coloured(QColor(0x9A, 0x4A, 0x00), true));
    set(Token::MentionType, coloured(QColor(0x2E, 0x7D, 0x32), false, true));
    set(Token::ConceptId, coloured(QColor(0x15, 0x65, 0xC0)));
    set(Token::RelationType, coloured(QColor(0xAD, 0x14, 0x57), true));
    QTextCharFormat error;
    error.setUnderlineStyle(QTextCharFormat::WaveUnderline);
    error.setUnderlineColor(Qt::red);
    error.setForeground(QColor(0xB7, 0x1C, 0x1C));
    set(Token::Error, error);
}

void PubTatorHighlighter::highlightBlock(const QString& text) {
    if (const int block = currentBlock().blockNumber(); block < first_ || block > last_) return;
    if (text.trimmed().isEmpty()) return;  // the blank lines between documents
    const auto size = static_cast<int>(text.size());
    const int tab = static_cast<int>(text.indexOf(QLatin1Char('\t')));
    const int bar = static_cast<int>(text.indexOf(QLatin1Char('|')));

    // PMID|t|title and PMID|a|abstract
    if (bar > 0 && (tab < 0 || bar < tab) && bar + 2 < size && text[bar + 2] == QLatin1Char('|') &&
        (text[bar + 1] == QLatin1Char('t') || text[bar + 1] == QLatin1Char('a'))) {
        apply(0, bar, Token::Pmid);
        apply(bar, 3, Token::Marker);
        apply(bar + 3, size - bar - 3, text[bar + 1] == QLatin1Char('t') ? Token::Title : Token::Abstract);
        return;
    }
    if (tab <= 0) {
        apply(0, size, Token::Error);
        return;
    }

    struct Column {
        int start;
        int length;
    };
    QVarLengthArray<Column, 8> columns;
    for (int start = 0;;) {
        const int end = static_cast<int>(text.indexOf(QLatin1Char('\t'), start));
        columns.push_back({start, (end < 0 ? size : end) - start});
        if (end < 0) break;
        start = end + 1;
    }
    const auto view = [&](const Column& c) { return QStringView(text).mid(c.start, c.length); };
    const auto paint = [&](int column, Token token) { apply(columns[column].start, columns[column].length, token); };

    if (columns.size() >= 6) {
        // A mention: PMID, start, end, text, type, ids[, individual mentions (BC5CDR)]
        paint(0, Token::Pmid);
        paint(1, isNumber(view(columns[1])) ? Token::Offset : Token::Error);
        paint(2, isNumber(view(columns[2])) ? Token::Offset : Token::Error);
        paint(3, Token::MentionText);
        paint(4, Token::MentionType);
        paint(5, Token::ConceptId);
        for (int c = 6; c < columns.size(); ++c) paint(c, c == 6 ? Token::MentionText : Token::Error);
        return;
    }
    if (columns.size() >= 3 && !isNumber(view(columns[1]))) {
        // A relation: PMID, type, arguments
        paint(0, Token::Pmid);
        paint(1, Token::RelationType);
        for (int c = 2; c < columns.size(); ++c) paint(c, Token::ConceptId);
        return;
    }
    apply(0, size, Token::Error);
}

}  // namespace linkscope::ui
