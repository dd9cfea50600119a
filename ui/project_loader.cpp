#include "project_loader.h"

#include "project/loaded_project.h"
#include "project/project_manifest.h"
#include "project/project_store.h"
#include "util/error.h"

namespace linkscope::ui {
namespace {

// A project file (.linkscope) and a project on a server (a postgresql:// URI) carry their
// manifest; anything else is read as a JSON manifest.
ProjectManifest manifestAt(const std::filesystem::path& path) {
    if (path.extension() == ".linkscope" || project::ProjectStore::isServerAddress(path.string()))
        return project::ProjectStore::open(path).manifest();
    return readProjectManifest(path);
}

}  // namespace

ProjectLoader::ProjectLoader(QObject* parent) : QObject(parent) {
    connect(&job_, &BackgroundJob::progressChanged, this,
            [this](int percent, const QString& stage) { Q_EMIT progress(stage, percent); });
    connect(&job_, &BackgroundJob::failed, this, &ProjectLoader::failed);
    connect(&job_, &BackgroundJob::cancelled, this, &ProjectLoader::cancelled);
}

bool ProjectLoader::isRunning() const { return job_.isRunning(); }

void ProjectLoader::cancel() { job_.cancel(); }

void ProjectLoader::load(const QString& manifestPath) {
    path_ = manifestPath;
    const std::string path = manifestPath.toStdString();
    job_.start(
        [path](const JobContext& context) {
            return std::make_shared<const LoadedProject>(loadProject(manifestAt(path), context.progressSink()));
        },
        [this](ProjectPtr project) { Q_EMIT loaded(std::move(project)); });
}

}  // namespace linkscope::ui
