#pragma once
// One training run of core's trainer (train/trainer.h) off the GUI thread: the project's train
// split and KB, an optional dev split, a method preset and schedule, the compact encoder trained
// from scratch or a model folder to fine-tune, into a new run directory.
//
// The trainer runs as a BackgroundJob (background_job.h); everything it reports is turned into
// plain values and posted to this object's thread, so every signal below is emitted on the GUI
// thread (receivers may use direct connections). Progress is thinned to about 20 updates a second:
// a compact encoder steps far faster than a person can read, and an event per step would flood
// the event loop. Cancellation is cooperative: cancel() sets the flag the trainer polls between
// steps, the trainer writes its checkpoint and cancelled() follows.
//
// No torch here: the trainer is in the dense module (dense_engine.h), loaded on the job's thread
// when the first training starts. Where it is not installed, isAvailable() is false and start()
// fails at once.
#include <QObject>
#include <QString>

#include <memory>

#include "background_job.h"
#include "training_request.h"

namespace linkscope {
struct LoadedProject;
}

namespace linkscope::ui {

class TrainingWorker : public QObject {
    Q_OBJECT
public:
    /// Destroying the worker cancels a running training and waits for its checkpoint (a step
    /// at most).
    explicit TrainingWorker(QObject* parent = nullptr);

    /// False where the dense module is not installed (a build without LibTorch): no trainer.
    static bool isAvailable() noexcept;

    /// Starts a training; false (and nothing emitted) while one is running. Every other outcome,
    /// bad requests included, ends with exactly one of finished / failed / cancelled.
    bool start(std::shared_ptr<const LoadedProject> project, const TrainingRequest& request);
    bool isRunning() const { return running_; }
    /// The request of the last start().
    const TrainingRequest& request() const { return request_; }

public Q_SLOTS:
    /// Asks the trainer to stop at its next step (it writes a checkpoint); cancelled() follows.
    void cancel();

Q_SIGNALS:
    void progress(const linkscope::ui::TrainingUpdate& update);
    /// After each epoch: the mean training loss of its steps (NaN when it made none) and the dev
    /// Acc@1 of the model after it (-1 without a dev split). Epoch 0 is the untrained model's
    /// validation (loss NaN); it comes only with a dev split.
    void epochEnded(int epoch, double trainLoss, double devAccuracy);
    /// After a validation (epoch 0: the untrained model) whose model has collapsed: it answers
    /// (nearly) one entity for every mention, or gives every mention the same vector. `warning`
    /// says which, with its figures (train/collapse_check.h), in plain words.
    void collapseWarning(int epoch, const QString& warning);
    void finished(const QString& runDirectory);
    void failed(const QString& message);
    void cancelled();

private:
    BackgroundJob job_;
    TrainingRequest request_;
    bool running_ = false;  ///< from start() until its outcome was emitted
};

}  // namespace linkscope::ui
