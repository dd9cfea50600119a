#pragma once
// What the training dock asks the trainer for, and what the trainer reports back, in plain
// values: shared by the training worker (training_worker.h) and the dense module that trains.
#include <QList>
#include <QPointF>
#include <QString>

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

}  // namespace linkscope::ui
