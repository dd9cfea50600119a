#include "project_loader.h"

#include "project/loaded_project.h"
#include "project/project_manifest.h"
#include "project/project_store.h"
#include "util/error.h"

namespace linkscope::ui {
namespace {

// A project file (.linkscope) carries its manifest; anything else is read as a JSON manifest.
ProjectManifest manifestAt(const std::filesystem::path& path) {
    if (path.extension() == ".linkscope") return project::ProjectStore::open(path).manifest();
    return readProjectManifest(path);
}

}  // namespace

ProjectLoader::ProjectLoader(QObject* parent) : QObject(parent) {
    connect(&job_, &BackgroundJob::progressChanged, this, [this](int percent, const QString& stage) {
        if (percent > 1) connecting_ = false;  // past the connection (team_project_open.cpp reports 1)
        Q_EMIT progress(stage, percent);
    });
    connect(&job_, &BackgroundJob::failed, this, [this](const QString& message) {
        connecting_ = false;
        Q_EMIT failed(message);
    });
    connect(&job_, &BackgroundJob::cancelled, this, [this] {
        connecting_ = false;
        if (!std::exchange(cancelledEarly_, false)) Q_EMIT cancelled();
    });
}

bool ProjectLoader::isRunning() const { return job_.isRunning(); }

void ProjectLoader::cancel() {
    job_.cancel();
    if (connecting_ && job_.isRunning() && !cancelledEarly_) {
        cancelledEarly_ = true;
        Q_EMIT cancelled();
    }
}

void ProjectLoader::load(const QString& manifestPath) {
    path_ = manifestPath;
    opened_ = {};
    const std::string path = manifestPath.toStdString();
    connecting_ = project::ProjectStore::isServerAddress(path);
    cancelledEarly_ = false;  // a replaced run reports nothing
    struct Loaded {
        ProjectPtr project;
        std::shared_ptr<OpenedTeamStore> team;
    };
    job_.start(
        [path](const JobContext& context) {
            Loaded result;
            if (project::ProjectStore::isServerAddress(path)) {
                // Connected here, on the worker; the window takes this store (team_project_open.h).
                result.team = std::make_shared<OpenedTeamStore>(connectToTeamProject(path, context));
                result.project = std::make_shared<const LoadedProject>(
                    loadProject(result.team->store->manifest(), context.progressSink()));
                readTeamHistory(*result.team);
            } else {
                result.project =
                    std::make_shared<const LoadedProject>(loadProject(manifestAt(path), context.progressSink()));
            }
            return result;
        },
        [this](Loaded result) {
            connecting_ = false;
            if (result.team) opened_ = std::move(*result.team);
            Q_EMIT loaded(std::move(result.project));
        });
}

}  // namespace linkscope::ui
