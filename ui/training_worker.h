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
// No torch here: built without LibTorch, isAvailable() is false and start() fails at once.
#include <QList>
#include <QObject>
#include <QPointF>
#include <QString>

#include <memory>

#include "background_job.h"

namespace linkscope {
struct LoadedProject;
}

namespace linkscope::ui {

/// What to train; paths are local files.
struct TrainingRequest {
    QString preset;                                ///< a preset name of modelsDirectory ("triplet") or a preset file
    QString modelsDirectory;                       ///< where preset names and compact-encoder.json are looked up
    QString schedule = QStringLiteral("short");    ///< a schedule of the preset ("paper", "short")
    QString trainSplit = QStringLiteral("train");  ///< the project's split trained on
    QString devSplit;                              ///< the project's split validated on after each epoch; empty: none
    QString modelDirectory;                        ///< a BERT checkpoint to fine-tune; empty: the compact encoder
    QString runDirectory;                          ///< created by the trainer; must not exist or be empty
    QString device = QStringLiteral("auto");       ///< "auto", "cpu" or "cuda"
};

/// The trainer's progress after a step or a stage change, in plain values.
struct TrainingUpdate {
    QString stage;             ///< "Training", "Validating", "Encoding the KB", ...
    double stageFraction = 0;  ///< 0..1 of the stage
    int epoch = 0;             ///< 1-based
    int epochs = 0;
    int step = 0;  ///< optimizer steps done in this epoch
    int stepsPerEpoch = 0;
    int globalStep = 0;  ///< optimizer steps done in the run
    double loss = 0;     ///< the last step's mean loss (valid when stage is "Training")
    double learningRate = 0;
    double examplesPerSecond = 0;
    double etaSeconds = 0;
    /// (global step, loss) of every optimizer step since the previous update: the loss curve
    /// stays complete although updates are thinned.
    QList<QPointF> losses;
};

class TrainingWorker : public QObject {
    Q_OBJECT
public:
    /// Destroying the worker cancels a running training and waits for its checkpoint (a step
    /// at most).
    explicit TrainingWorker(QObject* parent = nullptr);

    /// False in a build without LibTorch: the trainer is not there.
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
    struct EpochTracker;

    BackgroundJob job_;
    TrainingRequest request_;
    bool running_ = false;  ///< from start() until its outcome was emitted
};

}  // namespace linkscope::ui
