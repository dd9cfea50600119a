#include "training_worker.h"

#include <functional>
#include <utility>

#include "dense_engine.h"
#include "dense_engine_loader.h"
#include "util/error.h"

namespace linkscope::ui {

TrainingWorker::TrainingWorker(QObject* parent) : QObject(parent) {
    connect(&job_, &BackgroundJob::failed, this, [this](const QString& message) {
        running_ = false;
        Q_EMIT failed(message);
    });
    connect(&job_, &BackgroundJob::cancelled, this, [this] {
        running_ = false;
        Q_EMIT cancelled();
    });
}

bool TrainingWorker::isAvailable() noexcept { return DenseEngineLoader::installed(); }

void TrainingWorker::cancel() { job_.cancel(); }

bool TrainingWorker::start(std::shared_ptr<const LoadedProject> project, const TrainingRequest& request) {
    if (running_) return false;
    running_ = true;
    request_ = request;

    const auto work = [this, project = std::move(project), request](const JobContext& context) -> QString {
        // Everything the training tells the GUI goes through here, to this object's thread; the
        // job drops it once the training is cancelled. (The job's thread never outlives this
        // object: the job waits for it.)
        const auto post = [this, &context](std::function<void(TrainingWorker*)> emitter) {
            context.post([this, emitter = std::move(emitter)] { emitter(this); });
        };
        if (!DenseEngineLoader::installed())
            throw Error(QObject::tr("Training needs the dense engine (LibTorch): this build of Linkscope has none")
                            .toStdString());
        // The first training of the process loads LibTorch here, off the GUI thread: say so.
        TrainingUpdate loading;
        loading.stage = QStringLiteral("Loading the dense engine (LibTorch)");
        post([loading](TrainingWorker* self) { Q_EMIT self->progress(loading); });
        DenseEngine& engine = DenseEngineLoader::load();
        context.checkCancelled();

        TrainingReport report;
        report.progress = [post](const TrainingUpdate& update) {
            post([update](TrainingWorker* self) { Q_EMIT self->progress(update); });
        };
        report.epochEnded = [post](int epoch, double loss, double devAccuracy) {
            post([epoch, loss, devAccuracy](TrainingWorker* self) {
                Q_EMIT self->epochEnded(epoch, loss, devAccuracy);
            });
        };
        report.collapseWarning = [post](int epoch, const QString& warning) {
            post([epoch, warning](TrainingWorker* self) { Q_EMIT self->collapseWarning(epoch, warning); });
        };
        report.cancelled = [&context] { return context.isCancelled(); };
        engine.train(project, request, report);
        return request.runDirectory;
    };
    job_.start(work, [this](const QString& runDirectory) {
        running_ = false;
        Q_EMIT finished(runDirectory);
    });
    return true;
}

}  // namespace linkscope::ui
