#include "export_job.h"

#include <memory>

#include "background_job.h"
#include "message_log.h"
#include "project/project_store.h"

namespace linkscope::ui {

ExportJob::ExportJob(MessageLog* log, QObject* parent) : QObject(parent), log_(log), job_(new BackgroundJob(this)) {
    connect(job_, &BackgroundJob::failed, this, [this](const QString& message) {
        running_ = false;
        log_->error(tr("Export"), tr("Export failed: %1").arg(message));
        Q_EMIT failed(message);
    });
}

bool ExportJob::start(const project::ProjectStore& store, const curation::ExportOptions& options) {
    if (running_) return false;
    auto input = std::make_shared<const curation::ExportInput>(curation::exportInputOf(store));
    running_ = true;
    log_->progress(tr("Export"), tr("Exporting…"));
    job_->start(
        [input, options](const JobContext&) {
            const curation::ExportReport report = curation::exportProject(*input, options);
            QStringList lines;
            for (const auto& note : report.notes) lines << QStringLiteral("note: ") + QString::fromStdString(note);
            for (const auto& line : report.lines) lines << QString::fromStdString(line);
            return lines;
        },
        [this](QStringList lines) {
            running_ = false;
            for (const QString& line : lines) log_->note(tr("Export"), line);
            Q_EMIT finished(lines);
        });
    return true;
}

}  // namespace linkscope::ui
