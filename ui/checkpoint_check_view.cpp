#include "checkpoint_check_view.h"

#include <QLabel>
#include <QStringList>
#include <QVBoxLayout>

#include <string>

#include "background_job.h"
#include "encoder/checkpoint_report.h"

namespace linkscope::ui {
namespace {

/// The report's text split: the facts for the summary, warnings and errors for the red label.
struct ShownReport {
    QString summary;
    QString problems;
    bool loadable = false;
};

ShownReport showReport(const encoder::CheckpointReport& report) {
    ShownReport shown;
    shown.loadable = report.loadable();
    QStringList facts;
    for (const QString& line : QString::fromStdString(encoder::reportText(report)).split(u'\n', Qt::SkipEmptyParts))
        if (!line.startsWith(QLatin1String("warning: ")) && !line.startsWith(QLatin1String("error: "))) facts << line;
    shown.summary = facts.join(u'\n');
    QStringList problems;
    for (const std::string& warning : report.warnings)
        problems << CheckpointCheckView::tr("Warning: %1").arg(QString::fromStdString(warning));
    for (const std::string& error : report.errors)
        problems << CheckpointCheckView::tr("Error: %1").arg(QString::fromStdString(error));
    shown.problems = problems.join(u'\n');
    return shown;
}

}  // namespace

CheckpointCheckView::CheckpointCheckView(QWidget* parent) : QWidget(parent), job_(new BackgroundJob(this)) {
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    summary_ = new QLabel(this);
    summary_->setObjectName(QStringLiteral("checkpointSummary"));
    summary_->setWordWrap(true);
    summary_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    summary_->setTextFormat(Qt::PlainText);
    layout->addWidget(summary_);
    warnings_ = new QLabel(this);
    warnings_->setObjectName(QStringLiteral("checkpointWarnings"));
    warnings_->setWordWrap(true);
    warnings_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    warnings_->setTextFormat(Qt::PlainText);
    warnings_->setStyleSheet(QStringLiteral("QLabel { color: #b00020; }"));
    layout->addWidget(warnings_);
    setFolder(QString());
    connect(job_, &BackgroundJob::failed, this, [this](const QString& message) {
        warnings_->setText(tr("Error: %1").arg(message));
        warnings_->show();
        Q_EMIT checked(folder_, false);
    });
}

CheckpointCheckView::~CheckpointCheckView() = default;

bool CheckpointCheckView::isChecking() const { return job_->isRunning(); }

void CheckpointCheckView::setFolder(const QString& folder) {
    folder_ = folder;
    warnings_->clear();
    warnings_->hide();
    if (folder.isEmpty()) {
        job_->cancel();
        summary_->clear();
        hide();
        return;
    }
    summary_->setText(tr("Checking %1 …").arg(folder));
    show();
    const std::string path = folder.toStdString();
    job_->start([path](const JobContext&) { return showReport(encoder::checkCheckpoint(path)); },
                [this, folder](const ShownReport& shown) {
                    summary_->setText(shown.summary);
                    warnings_->setText(shown.problems);
                    warnings_->setVisible(!shown.problems.isEmpty());
                    Q_EMIT checked(folder, shown.loadable);
                });
}

}  // namespace linkscope::ui
