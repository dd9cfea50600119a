#include "project_loader.h"

#include <QPromise>
#include <QtConcurrent/QtConcurrent>

#include "project/loaded_project.h"
#include "project/project_manifest.h"
#include "project/project_store.h"
#include "util/error.h"
#include "util/progress.h"
#include "worker_priority.h"

namespace linkscope::ui {
namespace {

// A project file (.linkscope) carries its manifest; anything else is read as a JSON manifest.
ProjectManifest manifestAt(const std::filesystem::path& path) {
    if (path.extension() == ".linkscope") return project::ProjectStore::open(path).manifest();
    return readProjectManifest(path);
}

}  // namespace

ProjectLoader::ProjectLoader(QObject* parent) : QObject(parent) {
    connect(&watcher_, &QFutureWatcher<Outcome>::finished, this, &ProjectLoader::onFinished);
    connect(&watcher_, &QFutureWatcher<Outcome>::progressTextChanged, this,
            [this](const QString& text) { Q_EMIT progress(text, watcher_.progressValue()); });
    connect(&watcher_, &QFutureWatcher<Outcome>::progressValueChanged, this,
            [this](int value) { Q_EMIT progress(watcher_.progressText(), value); });
}

ProjectLoader::~ProjectLoader() {
    watcher_.cancel();
    watcher_.waitForFinished();
}

bool ProjectLoader::isRunning() const { return watcher_.isRunning(); }

void ProjectLoader::cancel() { watcher_.cancel(); }

void ProjectLoader::load(const QString& manifestPath) {
    if (watcher_.isRunning()) {
        watcher_.cancel();
        watcher_.waitForFinished();
    }
    path_ = manifestPath;
    const std::string path = manifestPath.toStdString();
    watcher_.setFuture(QtConcurrent::run(&pool_, [path](QPromise<Outcome>& promise) {
        lowerWorkerPriority();
        promise.setProgressRange(0, 100);
        ProgressSink sink;
        sink.report = [&promise](std::string_view stage, double fraction) {
            promise.setProgressValueAndText(static_cast<int>(fraction * 100.0),
                                            QString::fromUtf8(stage.data(), static_cast<qsizetype>(stage.size())));
        };
        sink.cancelled = [&promise] { return promise.isCanceled(); };
        try {
            promise.addResult(Outcome{std::make_shared<const LoadedProject>(loadProject(manifestAt(path), sink)), {}});
        } catch (const Cancelled&) {
            // no result: onFinished() reports the cancellation
        } catch (const std::exception& e) {
            promise.addResult(Outcome{nullptr, QString::fromUtf8(e.what())});
        }
    }));
}

void ProjectLoader::onFinished() {
    const QFuture<Outcome> future = watcher_.future();
    if (future.resultCount() == 0) {
        Q_EMIT cancelled();
        return;
    }
    const Outcome outcome = future.result();
    if (outcome.project)
        Q_EMIT loaded(outcome.project);
    else
        Q_EMIT failed(outcome.error);
}

}  // namespace linkscope::ui
