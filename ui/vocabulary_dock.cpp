#include "vocabulary_dock.h"

#include <QHeaderView>
#include <QLabel>
#include <QLocale>
#include <QTreeWidget>
#include <QVBoxLayout>

#include "kb/homonyms.h"
#include "kb/knowledge_base.h"
#include "project/loaded_project.h"

namespace linkscope::ui {
namespace {

QString qs(std::string_view s) { return QString::fromUtf8(s.data(), static_cast<qsizetype>(s.size())); }
QString number(std::size_t n) { return QLocale().toString(static_cast<qulonglong>(n)); }
constexpr int kMaxListedHomonyms = 2000;

}  // namespace

VocabularyDock::VocabularyDock(QWidget* parent) : QWidget(parent) {
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(4, 4, 4, 4);
    figures_ = new QLabel(tr("No knowledge base loaded"), this);
    figures_->setTextFormat(Qt::RichText);
    figures_->setWordWrap(true);
    homonyms_ = new QTreeWidget(this);
    homonyms_->setColumnCount(3);
    homonyms_->setHeaderLabels({tr("Homonym / entity"), tr("Expanded name"), tr("Case")});
    homonyms_->header()->setSectionResizeMode(0, QHeaderView::ResizeToContents);
    // Sized from the first rows: measuring every listed homonym held the GUI thread after a
    // project opened (benchmarks/ui_stall).
    homonyms_->header()->setResizeContentsPrecision(64);
    homonyms_->setUniformRowHeights(true);
    layout->addWidget(figures_);
    layout->addWidget(new QLabel(tr("<b>Homonyms</b> (names of several entities, BELHD §4.1)"), this));
    layout->addWidget(homonyms_, 1);
}

void VocabularyDock::setProject(const std::shared_ptr<const LoadedProject>& project) {
    homonyms_->clear();
    listing_.cancel();  // a listing under way stops
    project_.reset();
    homonyms_->setUpdatesEnabled(true);
    if (!project || !project->kb) {
        figuresJob_.cancel();  // a pending count is not shown
        figures_->setText(tr("No knowledge base loaded"));
        return;
    }
    figures_->setText(tr("Counting the knowledge base's figures…"));
    // Only the worker reads the project here; it keeps it alive. A newer project's count
    // replaces this one, whose result is then not shown.
    figuresJob_.start(
        [project](const JobContext&) -> QString {
            const kb::KbStatistics stats = project->kb->statistics();
            const kb::HomonymStatistics& h = project->homonyms->statistics();
            return tr("<b>%1</b> (%2)<table>"
                      "<tr><td>Entities</td><td align=right>%3</td></tr>"
                      "<tr><td>Names (entity, name pairs)</td><td align=right>%4</td></tr>"
                      "<tr><td>Distinct names</td><td align=right>%5</td></tr>"
                      "<tr><td>Alternative ids</td><td align=right>%6</td></tr>"
                      "<tr><td>Homonym names / pairs</td><td align=right>%7 / %8</td></tr>"
                      "<tr><td>&nbsp;&nbsp;preferred name / other</td><td align=right>%9 / %10</td></tr>"
                      "<tr><td>Success rate (remaining duplicates)</td><td align=right>%11% (%12)</td></tr>"
                      "</table>")
                .arg(QString::fromStdString(project->manifest.knowledgeBase.path.filename().string()),
                     QString::fromLatin1(kbFormatName(project->manifest.knowledgeBase.format)), number(stats.entities),
                     number(stats.namePairs), number(stats.distinctNames), number(stats.alternativeIds),
                     number(h.homonymNames), number(h.homonymPairs), number(h.preferredNamePairs))
                .arg(number(h.otherNamePairs), QLocale().toString(h.successRate() * 100.0, 'f', 1),
                     number(h.remainingDuplicateNames));
        },
        [this](const QString& figures) { figures_->setText(figures); });
    // The loader sorted the homonym pairs by name on its worker thread; here they are only
    // listed. A UMLS-size KB has ~150,000 of them: the tree shows the first kMaxListedHomonyms
    // names (a searchable model view of all of them belongs to the knowledge-base browser).
    project_ = project;
    nextPair_ = 0;
    currentName_ = {};
    listedNames_ = 0;
    homonyms_->setUpdatesEnabled(false);
    listing_.start([this] { return listHomonyms(); });
}

bool VocabularyDock::listHomonyms() {
    if (!project_) return false;
    // A few hundred names a turn of the event loop: the names listed for a UMLS-size KB, all at
    // once, held the GUI thread too long (benchmarks/ui_stall).
    constexpr int kNamesPerTurn = 250;
    const kb::KnowledgeBase& kb = *project_->kb;
    const kb::HomonymStatistics& h = project_->homonyms->statistics();
    const auto& pairs = project_->homonymPairs;
    QTreeWidgetItem* top =
        homonyms_->topLevelItemCount() > 0 ? homonyms_->topLevelItem(homonyms_->topLevelItemCount() - 1) : nullptr;
    const int stopAt = listedNames_ + kNamesPerTurn;
    bool finished = true;
    for (; nextPair_ < pairs.size(); ++nextPair_) {
        const kb::ExpandedName entry = project_->homonyms->at(pairs[nextPair_]);
        if (!top || entry.original != currentName_) {
            if (listedNames_ == kMaxListedHomonyms) {
                new QTreeWidgetItem(homonyms_,
                                    {tr("… %1 more homonym names")
                                         .arg(number(h.homonymNames - static_cast<std::size_t>(listedNames_)))});
                nextPair_ = pairs.size();
                break;
            }
            if (listedNames_ == stopAt) {
                finished = false;
                break;
            }
            top = new QTreeWidgetItem(homonyms_, {qs(entry.original)});
            currentName_ = entry.original;
            ++listedNames_;
        }
        new QTreeWidgetItem(
            top, {QStringLiteral("%1 %2").arg(qs(kb.primaryId(entry.entity)), qs(kb.preferredName(entry.entity))),
                  qs(entry.expanded), qs(kb::toString(entry.homonymCase))});
    }
    if (!finished) return true;
    for (int t = 0; t < homonyms_->topLevelItemCount(); ++t) {
        QTreeWidgetItem* item = homonyms_->topLevelItem(t);
        if (item->childCount() > 0) item->setText(2, tr("%n entities", nullptr, item->childCount()));
    }
    homonyms_->expandAll();
    homonyms_->resizeColumnToContents(1);
    homonyms_->setUpdatesEnabled(true);
    project_.reset();  // listed: the summary keeps no project alive
    return false;
}

QString VocabularyDock::figuresText() const { return figures_->text(); }

QStringList VocabularyDock::homonymNames() const {
    QStringList names;
    for (int i = 0; i < homonyms_->topLevelItemCount(); ++i) names << homonyms_->topLevelItem(i)->text(0);
    return names;
}

}  // namespace linkscope::ui
