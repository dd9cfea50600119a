#pragma once
// File > Export on a worker: the open project's corpora with its decisions in effect applied,
// written where ExportOptions says. The decisions are copied on the GUI thread when the export
// starts, so that later decisions do not reach a running export; reading and writing the corpora
// is a BackgroundJob's. One export runs at a time; its progress, report and failure go to the
// message log.
#include <QObject>
#include <QString>
#include <QStringList>

#include "curation/project_export.h"

namespace linkscope::project {
class ProjectStore;
}

namespace linkscope::ui {

class BackgroundJob;
class MessageLog;

class ExportJob : public QObject {
    Q_OBJECT
public:
    /// `log` must outlive the job.
    explicit ExportJob(MessageLog* log, QObject* parent = nullptr);

    /// Starts exporting `store`'s project; finished or failed follows. False while an export runs.
    bool start(const project::ProjectStore& store, const curation::ExportOptions& options);
    bool isRunning() const { return running_; }

Q_SIGNALS:
    /// The export's report: its notes ("note: ..."), then one line per file written.
    void finished(const QStringList& lines);
    void failed(const QString& message);

private:
    MessageLog* log_;
    bool running_ = false;  ///< from start() until finished or failed was emitted
    BackgroundJob* job_;
};

}  // namespace linkscope::ui
