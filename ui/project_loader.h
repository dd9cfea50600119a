#pragma once
// Loads a project (manifest, knowledge base, corpora) on a worker thread with progress and
// cancellation, and hands the result to the GUI thread through signals.
#include <QObject>
#include <QString>

#include <memory>
#include <utility>

#include "background_job.h"
#include "team_project_open.h"

namespace linkscope {
struct LoadedProject;
}

namespace linkscope::ui {

using ProjectPtr = std::shared_ptr<const LoadedProject>;

class ProjectLoader : public QObject {
    Q_OBJECT
public:
    explicit ProjectLoader(QObject* parent = nullptr);

    /// Starts loading a manifest (.json), a project file (.linkscope) or a project on a server
    /// (its postgresql:// address); a load already running is cancelled and reports nothing.
    void load(const QString& manifestPath);
    /// Stops the load. cancelled() follows once the work has stopped, except while it connects
    /// to a server: libpq's attempt cannot be interrupted, so cancelled() comes at once and the
    /// attempt's end is dropped (it ends by the address's connect_timeout, team_project_open.h).
    void cancel();
    bool isRunning() const;
    /// The path of the last load() (a manifest, a project file or a server address).
    QString path() const { return path_; }
    /// For a project on a server: the store the load connected on its worker and the decisions
    /// it read, for DecisionLog::open (empty for a file, and once taken).
    OpenedTeamStore takeOpenedTeamStore() { return std::exchange(opened_, {}); }

Q_SIGNALS:
    void progress(const QString& stage, int percent);
    void loaded(linkscope::ui::ProjectPtr project);
    void failed(const QString& message);
    void cancelled();

private:
    BackgroundJob job_;
    QString path_;
    OpenedTeamStore opened_;
    bool connecting_ = false;      ///< the worker is connecting to a server
    bool cancelledEarly_ = false;  ///< cancelled() said already for the run under way
};

}  // namespace linkscope::ui
