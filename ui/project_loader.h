#pragma once
// Loads a project (manifest, knowledge base, corpora) on a worker thread with progress and
// cancellation, and hands the result to the GUI thread through signals.
#include <QObject>
#include <QString>

#include <memory>

#include "background_job.h"

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
    void cancel();
    bool isRunning() const;
    /// The path of the last load() (a manifest, a project file or a server address).
    QString path() const { return path_; }

Q_SIGNALS:
    void progress(const QString& stage, int percent);
    void loaded(linkscope::ui::ProjectPtr project);
    void failed(const QString& message);
    void cancelled();

private:
    BackgroundJob job_;
    QString path_;
};

}  // namespace linkscope::ui
