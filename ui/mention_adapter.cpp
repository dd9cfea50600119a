#include "mention_adapter.h"

#include <QObject>

#include "abbreviation_expansion.h"
#include "corpus/document.h"
#include "kb/knowledge_base.h"
#include "project/loaded_project.h"

namespace linkscope::ui {
namespace {

QString qs(std::string_view s) { return QString::fromUtf8(s.data(), static_cast<qsizetype>(s.size())); }

QString tooltipFor(const Mention& mention, const kb::KnowledgeBase& kb) {
    QString html =
        QStringLiteral("<b>%1</b> <i>%2</i>").arg(qs(mention.text).toHtmlEscaped(), qs(mention.type).toHtmlEscaped());
    if (mention.ids.cuiLess) return html + QObject::tr("<br>no concept (CUI-less)");
    for (const std::string& id : mention.ids.ids) {
        html += QStringLiteral("<br>%1 ").arg(qs(id).toHtmlEscaped());
        if (const auto entity = kb.findEntity(id))
            html += QStringLiteral("— %1").arg(qs(kb.preferredName(*entity)).toHtmlEscaped());
        else
            html += QObject::tr("<span style='color:#a00'>not in the knowledge base</span>");
    }
    if (mention.ids.join == IdJoin::Alternative) html += QObject::tr("<br><i>composite mention</i>");
    if (!mention.offsetsValid) html += QObject::tr("<br><span style='color:#a00'>offsets do not match the text</span>");
    return html;
}

}  // namespace

QVector<MentionSpan> mentionSpans(const Document& document, const LoadedProject& project,
                                  const MentionStatusFn& status) {
    QVector<MentionSpan> spans;
    spans.reserve(static_cast<qsizetype>(document.mentions.size()));
    const auto definitions = abbreviationsOf(document);
    for (const Mention& mention : document.mentions) {
        MentionSpan span;
        span.start = static_cast<int>(mention.start);
        span.end = static_cast<int>(mention.end);
        span.composite = mention.ids.join != IdJoin::Single;
        span.tooltip = tooltipFor(mention, *project.kb);
        if (const auto expanded = expandedMention(mention, definitions)) {
            span.expansion = qs(expanded->text);
            QStringList forms;
            for (const std::size_t index : expanded->applied)
                forms << QObject::tr("%1 = %2").arg(qs(definitions[index].shortForm).toHtmlEscaped(),
                                                    qs(definitions[index].longForm).toHtmlEscaped());
            span.tooltip += QObject::tr("<br>abbreviation: %1<br>linked as “%2”")
                                .arg(forms.join(QStringLiteral("; ")), span.expansion.toHtmlEscaped());
        }
        if (status) {
            const MentionStatus current = status(mention);
            span.state = current.state;
            if (!current.note.isEmpty()) span.tooltip += QStringLiteral("<hr>") + current.note;
        }
        spans.push_back(std::move(span));
    }
    return spans;
}

}  // namespace linkscope::ui
