#include "knowledge_base_summary.h"

#include <QHeaderView>
#include <QLabel>
#include <QLocale>
#include <QTreeWidget>
#include <QVBoxLayout>

#include <map>

#include "kb/homonyms.h"
#include "kb/knowledge_base.h"
#include "project/loaded_project.h"

namespace linkscope::ui {
namespace {

QString qs(std::string_view s) { return QString::fromUtf8(s.data(), static_cast<qsizetype>(s.size())); }
QString number(std::size_t n) { return QLocale().toString(static_cast<qulonglong>(n)); }

}  // namespace

KnowledgeBaseSummary::KnowledgeBaseSummary(QWidget* parent) : QWidget(parent) {
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(4, 4, 4, 4);
    figures_ = new QLabel(tr("No knowledge base loaded"), this);
    figures_->setTextFormat(Qt::RichText);
    figures_->setWordWrap(true);
    homonyms_ = new QTreeWidget(this);
    homonyms_->setColumnCount(3);
    homonyms_->setHeaderLabels({tr("Homonym / entity"), tr("Expanded name"), tr("Case")});
    homonyms_->header()->setSectionResizeMode(0, QHeaderView::ResizeToContents);
    homonyms_->setUniformRowHeights(true);
    layout->addWidget(figures_);
    layout->addWidget(new QLabel(tr("<b>Homonyms</b> (names of several entities, BELHD §4.1)"), this));
    layout->addWidget(homonyms_, 1);
}

void KnowledgeBaseSummary::setProject(const std::shared_ptr<const LoadedProject>& project) {
    homonyms_->clear();
    if (!project || !project->kb) {
        figures_->setText(tr("No knowledge base loaded"));
        return;
    }
    const kb::KnowledgeBase& kb = *project->kb;
    const kb::KbStatistics stats = kb.statistics();
    const kb::HomonymStatistics& h = project->homonyms->statistics();
    figures_->setText(tr("<b>%1</b> (%2)<table>"
                         "<tr><td>Entities</td><td align=right>%3</td></tr>"
                         "<tr><td>Names (entity, name pairs)</td><td align=right>%4</td></tr>"
                         "<tr><td>Distinct names</td><td align=right>%5</td></tr>"
                         "<tr><td>Alternative ids</td><td align=right>%6</td></tr>"
                         "<tr><td>Homonym names / pairs</td><td align=right>%7 / %8</td></tr>"
                         "<tr><td>&nbsp;&nbsp;preferred name / other</td><td align=right>%9 / %10</td></tr>"
                         "<tr><td>Success rate (remaining duplicates)</td><td align=right>%11% (%12)</td></tr>"
                         "</table>")
                          .arg(QString::fromStdString(project->manifest.knowledgeBase.path.filename().string()),
                               QString::fromLatin1(kbFormatName(project->manifest.knowledgeBase.format)),
                               number(stats.entities), number(stats.namePairs), number(stats.distinctNames),
                               number(stats.alternativeIds), number(h.homonymNames), number(h.homonymPairs),
                               number(h.preferredNamePairs))
                          .arg(number(h.otherNamePairs), QLocale().toString(h.successRate() * 100.0, 'f', 1),
                               number(h.remainingDuplicateNames)));

    // Group the expanded pairs by their original name; std::map keeps the list sorted.
    std::map<std::string_view, std::vector<kb::ExpandedName>> byName;
    project->homonyms->forEach([&](const kb::ExpandedName& entry) {
        if (entry.homonym()) byName[entry.original].push_back(entry);
    });
    homonyms_->setUpdatesEnabled(false);
    for (const auto& [name, entries] : byName) {
        auto* top = new QTreeWidgetItem(homonyms_, {qs(name), QString(), tr("%n entities", nullptr, static_cast<int>(entries.size()))});
        for (const kb::ExpandedName& entry : entries) {
            new QTreeWidgetItem(top, {QStringLiteral("%1 %2").arg(qs(kb.primaryId(entry.entity)), qs(kb.preferredName(entry.entity))),
                                      qs(entry.expanded), qs(kb::toString(entry.homonymCase))});
        }
    }
    homonyms_->expandAll();
    homonyms_->resizeColumnToContents(1);
    homonyms_->setUpdatesEnabled(true);
}

QStringList KnowledgeBaseSummary::homonymNames() const {
    QStringList names;
    for (int i = 0; i < homonyms_->topLevelItemCount(); ++i) names << homonyms_->topLevelItem(i)->text(0);
    return names;
}

}  // namespace linkscope::ui
