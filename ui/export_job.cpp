#include "export_job.h"

#include <memory>

#include "background_job.h"
#include "project/project_store.h"

namespace linkscope::ui {

ExportJob::ExportJob(QObject* parent) : QObject(parent), job_(new BackgroundJob(this)) {
    connect(job_, &BackgroundJob::failed, this, [this](const QString& message) {
        running_ = false;
        Q_EMIT failed(message);
    });
}

bool ExportJob::start(const project::ProjectStore& store, const curation::ExportOptions& options) {
    if (running_) return false;
    auto input = std::make_shared<const curation::ExportInput>(curation::exportInputOf(store));
    running_ = true;
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
            Q_EMIT finished(lines);
        });
    return true;
}

}  // namespace linkscope::ui
