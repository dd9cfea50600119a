#include "entity_page.h"

#include <QLocale>

#include <algorithm>

#include <set>
#include <string_view>

#include "corpus/corpus.h"
#include "kb/homonyms.h"
#include "kb/knowledge_base.h"
#include "project/loaded_project.h"

namespace linkscope::ui {
namespace {

QString qs(std::string_view s) { return QString::fromUtf8(s.data(), static_cast<qsizetype>(s.size())); }
QString html(std::string_view s) { return qs(s).toHtmlEscaped(); }
QString encoded(const QString& s) { return QString::fromLatin1(QUrl::toPercentEncoding(s)); }
QString decoded(const QString& s) { return QUrl::fromPercentEncoding(s.toLatin1()); }

QUrl entityUrl(std::string_view id) { return QUrl(QStringLiteral("entity:") + encoded(qs(id))); }

QString link(const QUrl& url, const QString& text) {
    return QStringLiteral("<a href=\"%1\">%2</a>").arg(url.toString(QUrl::FullyEncoded).toHtmlEscaped(), text);
}

QString homonymCaseText(kb::HomonymCase homonymCase) {
    switch (homonymCase) {
        case kb::HomonymCase::NotHomonym:
            return {};
        case kb::HomonymCase::OtherName:
            return EntityPage::tr("synonym: expanded with the preferred name");
        case kb::HomonymCase::PreferredName:
            return EntityPage::tr("preferred name: expanded with another name");
        case kb::HomonymCase::Unexpandable:
            return EntityPage::tr("preferred name without other names: left as it is");
    }
    return {};
}

}  // namespace

EntityPage::EntityPage(QWidget* parent) : QTextBrowser(parent) {
    setObjectName(QStringLiteral("entityPage"));
    setOpenLinks(false);  // links are the page's own: entities and mentions, never files
    document()->setDefaultStyleSheet(
        QStringLiteral("table { border-collapse: collapse; } td, th { padding: 1px 6px; } th { text-align: left; }"
                       ".homonym { color: #8a4b00; } .muted { color: #777; }"));
    connect(this, &QTextBrowser::anchorClicked, this, &EntityPage::activateLink);
    showMessage(tr("Search the knowledge base and choose an entity to see it here."));
}

EntityPage::~EntityPage() = default;

void EntityPage::setProject(std::shared_ptr<const LoadedProject> project) {
    project_ = std::move(project);
    currentId_.clear();
    contents_ = {};
    showMessage(project_ ? tr("Search the knowledge base and choose an entity to see it here.")
                         : tr("No project loaded."));
}

void EntityPage::showMessage(const QString& text) {
    setHtml(QStringLiteral("<p class=\"muted\">%1</p>").arg(text.toHtmlEscaped()));
}

QUrl EntityPage::mentionUrl(const QString& split, const QString& pmid, int start, int end) {
    // Concatenated, not arg()'d: the percent escapes ("%2F") would read as placeholders.
    const QChar slash(QLatin1Char('/'));
    return QUrl(QStringLiteral("mention:") + encoded(split) + slash + encoded(pmid) + slash + QString::number(start) +
                slash + QString::number(end));
}

void EntityPage::activateLink(const QUrl& url) {
    if (url.scheme() == QLatin1String("entity")) {
        const QString id = decoded(url.path(QUrl::FullyEncoded));
        if (showEntity(id)) Q_EMIT entityActivated(currentId_);
        return;
    }
    if (url.scheme() == QLatin1String("mention")) {
        const QStringList parts = url.path(QUrl::FullyEncoded).split(QLatin1Char('/'));
        if (parts.size() != 4) return;
        bool startOk = false;
        bool endOk = false;
        const int start = parts[2].toInt(&startOk);
        const int end = parts[3].toInt(&endOk);
        if (startOk && endOk) Q_EMIT mentionActivated(decoded(parts[0]), decoded(parts[1]), start, end);
    }
}

bool EntityPage::showEntity(const QString& id) {
    contents_ = {};
    currentId_.clear();
    if (!project_ || !project_->kb) {
        showMessage(tr("No knowledge base loaded."));
        return false;
    }
    const kb::KnowledgeBase& kb = *project_->kb;
    const auto found = kb.findEntity(id.trimmed().toStdString());
    if (!found) {
        showMessage(tr("The knowledge base has no entity %1.").arg(id));
        return false;
    }
    const kb::EntityIndex e = *found;
    const QLocale locale;
    currentId_ = qs(kb.primaryId(e));
    contents_.id = currentId_;
    contents_.preferredName = qs(kb.preferredName(e));

    QString page;
    page += QStringLiteral("<h2>%1</h2>").arg(html(kb.preferredName(e)));
    page += QStringLiteral("<table>");
    page += tr("<tr><th>Id</th><td>%1</td></tr>").arg(html(kb.primaryId(e)));
    if (!kb.alternativeIds(e).empty()) {
        QStringList alternatives;
        for (const std::string_view alt : kb.alternativeIds(e)) {
            contents_.alternativeIds << qs(alt);
            alternatives << html(alt);
        }
        page += tr("<tr><th>Alternative ids</th><td>%1</td></tr>").arg(alternatives.join(QStringLiteral(", ")));
    }
    if (const auto species = kb.species(e)) page += tr("<tr><th>Species</th><td>%1</td></tr>").arg(html(*species));
    const auto types = kb.semanticTypes(e);
    if (!types.empty()) {
        QStringList shown;
        for (const kb::SemanticTypeView& type : types)
            shown << (type.id.empty() ? html(type.name) : QStringLiteral("%1 %2").arg(html(type.id), html(type.name)));
        page += tr("<tr><th>Semantic types</th><td>%1</td></tr>").arg(shown.join(QStringLiteral("; ")));
    }
    page += QStringLiteral("</table>");

    for (const std::string_view synonym : kb.synonyms(e)) contents_.synonyms << qs(synonym);

    // Names with their homonym expansion: the pairs of this entity, preferred name first.
    const kb::HomonymExpansion* expansion = project_->homonyms.get();
    page += tr("<h3>Names (%1)</h3>").arg(locale.toString(static_cast<qulonglong>(kb.nameIds(e).size())));
    page += tr("<table><tr><th>Name</th><th>Homonym-expanded name</th><th>Homonym</th></tr>");
    for (std::size_t i = 0; i < kb.nameIds(e).size(); ++i) {
        const std::size_t pair = kb.firstPair(e) + i;
        const std::string_view name = kb.strings().view(kb.pairName(pair));
        const std::string_view expanded = expansion ? expansion->expandedName(pair) : name;
        contents_.expandedNames << qs(expanded);
        QString mark;
        if (expansion && expansion->isHomonym(pair)) {
            contents_.homonymNames << qs(name);
            QStringList others;
            for (const kb::EntityIndex other : kb.findByName(name))
                if (other != e) others << link(entityUrl(kb.primaryId(other)), html(kb.primaryId(other)));
            mark = QStringLiteral("<span class=\"homonym\">%1</span>")
                       .arg(homonymCaseText(expansion->homonymCase(pair)).toHtmlEscaped());
            if (expansion->crossSpecies(pair)) mark += tr(", cross-species");
            if (expansion->stillDuplicate(pair)) mark += tr(", <b>still shared after expansion</b>");
            if (!others.isEmpty()) mark += tr("; also a name of %1").arg(others.join(QStringLiteral(", ")));
        }
        const QString nameCell = i == 0 ? QStringLiteral("<b>%1</b>").arg(html(name)) : html(name);
        const QString expandedCell = expanded == name
                                         ? QStringLiteral("<span class=\"muted\">=</span>")
                                         : QStringLiteral("<span class=\"homonym\">%1</span>").arg(html(expanded));
        page += QStringLiteral("<tr><td>%1</td><td>%2</td><td>%3</td></tr>").arg(nameCell, expandedCell, mark);
    }
    page += QStringLiteral("</table>");

    // Mentions whose gold ids name this entity by its primary or an alternative id (a
    // composite mention is linked to each of its parts).
    std::set<std::string_view> ids{kb.primaryId(e)};
    for (const std::string_view alt : kb.alternativeIds(e)) ids.insert(alt);
    QString mentions;
    for (const SplitCorpus& split : project_->splits) {
        QString rows;
        int inSplit = 0;
        const QString splitName = qs(split.split);
        for (const Document& document : split.corpus.documents()) {
            for (const Mention& mention : document.mentions) {
                const bool linked = std::any_of(mention.ids.ids.begin(), mention.ids.ids.end(),
                                                [&](const std::string& mentionId) { return ids.count(mentionId) > 0; });
                if (!linked) continue;
                ++inSplit;
                if (++contents_.linkedMentions > kMaxListedMentions) continue;
                const QUrl url = mentionUrl(splitName, qs(document.pmid()), static_cast<int>(mention.start),
                                            static_cast<int>(mention.end));
                contents_.mentionLinks << url.toString(QUrl::FullyEncoded);
                rows +=
                    QStringLiteral("<tr><td>%1</td><td>%2</td><td align=right>%3–%4</td><td>%5</td><td>%6</td></tr>")
                        // one arg() call: a second one would read "%2F" in the link as a placeholder
                        .arg(html(document.pmid()), link(url, html(mention.text)), QString::number(mention.start),
                             QString::number(mention.end), html(mention.type),
                             mention.ids.join == IdJoin::Single ? QString()
                                                                : tr("composite: %1").arg(html(mention.idColumn)));
            }
        }
        if (inSplit == 0) continue;
        mentions += tr("<h4>%1 (%2)</h4>").arg(splitName.toHtmlEscaped(), locale.toString(inSplit));
        mentions +=
            tr("<table><tr><th>PMID</th><th>Mention</th><th>Characters</th><th>Type</th><th></th></tr>%1</table>")
                .arg(rows);
    }
    page += tr("<h3>Linked mentions (%1)</h3>").arg(locale.toString(contents_.linkedMentions));
    if (contents_.linkedMentions == 0)
        page += tr("<p class=\"muted\">No mention of the project's corpora is linked to this entity.</p>");
    page += mentions;
    if (contents_.linkedMentions > kMaxListedMentions)
        page += tr("<p class=\"muted\">The first %1 are listed.</p>").arg(locale.toString(kMaxListedMentions));
    setHtml(page);
    return true;
}

}  // namespace linkscope::ui
