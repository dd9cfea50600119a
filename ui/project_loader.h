#pragma once
// Loads a project (manifest, knowledge base, corpora) on a worker thread with progress and
// cancellation, and hands the result to the GUI thread through signals.
#include <QFutureWatcher>
#include <QObject>
#include <QString>
#include <QThreadPool>

#include <memory>

namespace linkscope {
struct LoadedProject;
}

namespace linkscope::ui {

using ProjectPtr = std::shared_ptr<const LoadedProject>;

class ProjectLoader : public QObject {
    Q_OBJECT
public:
    explicit ProjectLoader(QObject* parent = nullptr);
    ~ProjectLoader() override;

    /// Starts loading a manifest (.json) or a project file (.linkscope); a load already running
    /// is cancelled first.
    void load(const QString& manifestPath);
    void cancel();
    bool isRunning() const;
    /// The path of the last load() (a manifest or a project file).
    QString path() const { return path_; }

Q_SIGNALS:
    void progress(const QString& stage, int percent);
    void loaded(linkscope::ui::ProjectPtr project);
    void failed(const QString& message);
    void cancelled();

private:
    /// What the worker hands back: exactly one of project / error is set, or neither when the
    /// load was cancelled. Errors are caught on the worker so no exception crosses threads.
    struct Outcome {
        ProjectPtr project;
        QString error;
    };
    void onFinished();

    /// Its own pool: on the global one a long job holds the threads that Qt's raster engine
    /// borrows for large fills, and painting then waits for the job (benchmarks/ui_stall).
    QThreadPool pool_;
    QFutureWatcher<Outcome> watcher_;
    QString path_;
};

}  // namespace linkscope::ui
