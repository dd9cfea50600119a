#pragma once
// The training dock's content: choose a method preset (models/*.json), its schedule, the dev
// split and the encoder to start from (the compact one from scratch, an encoder pretrained on
// the KB's synonyms, or any checkpoint), start, watch the progress bar and two live Qt Charts
// curves (training loss per optimizer step, dev Acc@1 per epoch: training_charts.h), cancel. "Pretrain encoder"
// runs SapBERT's self-alignment (models/sapbert.json) on the project's KB the same way; the
// encoder it makes is offered as the start of every method, the newest first. A validation that
// finds a collapsed model (one answer for every mention) is shown as a warning. The run itself is a TrainingWorker's
// (off the GUI thread). A finished run is registered in the project file (when a store is set)
// and announced with runFinished().
//
// Built without LibTorch, the panel says "Training needs LibTorch" and Start stays disabled.
#include <QString>
#include <QWidget>

#include <memory>
#include <optional>

#include "training_charts.h"

class QCheckBox;
class QComboBox;
class QLabel;
class QLineEdit;
class QProgressBar;
class QPushButton;

namespace linkscope {
struct LoadedProject;
namespace project {
class ProjectStore;
}
namespace train {
struct TrainingPreset;
enum class StartKind;  // training_preset.h
}  // namespace train
}  // namespace linkscope

namespace linkscope::ui {

class CheckpointCheckView;
class TrainingWorker;
struct TrainingUpdate;

class TrainingPanel : public QWidget {
    Q_OBJECT
public:
    explicit TrainingPanel(QWidget* parent = nullptr);
    ~TrainingPanel() override;

    /// Where the presets are, as `linkscope-cli train` looks: $LINKSCOPE_MODELS_DIR, the source
    /// tree's models/, <prefix>/share/linkscope/models beside the executable, the install
    /// prefix's. Empty when none holds a preset.
    static QString defaultModelsDirectory();

    /// The project trained on (its "train" split, its KB); null: none, Start is disabled.
    void setProject(std::shared_ptr<const LoadedProject> project);
    /// The project file finished runs are registered in (not owned; must outlive the panel or be
    /// reset first); null: runs are not registered. A run is registered in the store that was
    /// set when it started: changing the store meanwhile (another project opened) leaves it out.
    void setStore(project::ProjectStore* store);
    /// Lists the presets of this folder (the default one at construction).
    void setModelsDirectory(const QString& directory);
    QString modelsDirectory() const { return modelsDirectory_; }
    /// The folder new run directories are created in (<folder>/<preset>-<date>-<time>).
    void setRunsFolder(const QString& folder);

    bool isTraining() const;
    /// The run directory of the training running or last started.
    QString currentRunDirectory() const { return runDirectory_; }

    // The widgets, for the main window's keyboard shortcuts and for tests.
    QComboBox* presetCombo() const { return preset_; }
    QComboBox* scheduleCombo() const { return schedule_; }
    QComboBox* devSplitCombo() const { return devSplit_; }
    QComboBox* deviceCombo() const { return device_; }
    QLineEdit* modelEdit() const { return model_; }
    /// What the chosen start's folder holds (`linkscope-cli model check`), with its warnings.
    CheckpointCheckView* checkpointCheck() const { return checkpointCheck_; }
    /// Where the method starts: data "" the compact encoder from scratch, a folder (a
    /// pretrained encoder's run), or "custom": the folder in modelEdit().
    QComboBox* startFromCombo() const { return startFrom_; }
    /// The hint under the start (empty when the start suits the preset).
    QString startHint() const;
    QPushButton* pretrainButton() const { return pretrain_; }
    /// "Read the corpus first": the pretraining starts with the masked-LM stage
    /// (models/mlm.json) on the project's training and dev texts, then the self-alignment
    /// fine-tunes that stage's model. Disabled when the models folder has no masked-LM preset.
    QCheckBox* maskedLmCheck() const { return maskedLmFirst_; }
    QLabel* warningLabel() const { return warning_; }
    QLineEdit* runsFolderEdit() const { return runsFolder_; }
    QPushButton* startButton() const { return start_; }
    QPushButton* cancelButton() const { return cancel_; }
    QProgressBar* progressBar() const { return progress_; }
    QLabel* statusLabel() const { return status_; }
    QLineSeries* lossSeries() const { return charts_->lossSeries(); }
    QChartView* lossChartView() const { return charts_->lossChartView(); }
    QChartView* accuracyChartView() const { return charts_->accuracyChartView(); }
    QLineSeries* accuracySeries() const { return charts_->accuracySeries(); }
    TrainingWorker* worker() const { return worker_; }

public Q_SLOTS:
    /// Starts a training with the chosen settings; false when one runs or nothing can start.
    bool start();
    /// Starts the self-alignment pretraining of the compact encoder on the project's KB (the
    /// chosen schedule of models/sapbert.json, "short" when it has one); with maskedLmCheck(),
    /// the masked-LM stage runs first and the self-alignment starts when it finishes. False
    /// when one runs.
    bool startPretraining();
    /// Lists the pretrained encoders again: the project's runs of the sapbert preset and the
    /// finished sapbert-* runs of the output folder, newest first; the newest is chosen unless
    /// the user chose another start.
    void refreshStarts();
    void cancel();

Q_SIGNALS:
    /// A training finished; `directory` is its run directory (registered in the store, if any).
    void runFinished(const QString& directory);
    void trainingFailed(const QString& message);
    void trainingCancelled();

private:
    void fillSchedules();
    bool startRun(const QString& presetFile, const QString& schedule, const QString& modelDirectory);
    /// "short" when the pretraining preset has it, else "paper"; nullopt (and the status says
    /// why) when the file does not load.
    std::optional<QString> pretrainingSchedule(const QString& presetFile);
    void updateEnabled();
    void showUpdate(const TrainingUpdate& update);
    void addEpochPoint(int epoch, double trainLoss, double devAccuracy);
    void onFinished(const QString& directory);
    void onStopped(const QString& message);

    std::shared_ptr<const LoadedProject> project_;
    project::ProjectStore* store_ = nullptr;
    project::ProjectStore* runStore_ = nullptr;  ///< where the running training gets registered
    QString modelsDirectory_;
    /// Selects the start a new choice gets (previous: kept when the user picked it and it is
    /// still offered) and shows the start hint.
    void chooseDefaultStart(const QString& previous);
    /// What the chosen start is (from the Start from combo's item).
    train::StartKind startKind() const;
    /// The schedule the start takes (train/schedule_choice.h: "short" from scratch,
    /// "short-pretrained" or "short" from a pretrained run, the paper's from a checkpoint folder)
    /// in place of one the panel chose; any other schedule the user chose stays.
    void matchScheduleToStart();
    void updateStartHint();
    static constexpr int kContextStartRole = Qt::UserRole + 1;  ///< item data: a context-aligned encoder

    QString runDirectory_;
    TrainingWorker* worker_ = nullptr;

    QComboBox* preset_ = nullptr;
    QLabel* presetInfo_ = nullptr;
    QComboBox* schedule_ = nullptr;
    QComboBox* devSplit_ = nullptr;
    QComboBox* device_ = nullptr;
    QComboBox* startFrom_ = nullptr;
    /// Under the start: why a method that reads mentions in their sentences should start from a
    /// context-aligned encoder (empty otherwise).
    QLabel* startHint_ = nullptr;
    std::shared_ptr<const train::TrainingPreset> chosenPreset_;  ///< the chosen preset, for the start hint
    QLineEdit* model_ = nullptr;
    CheckpointCheckView* checkpointCheck_ = nullptr;
    /// Checks the folder the chosen start trains from (none for the compact encoder).
    void checkStartFolder();
    QPushButton* pretrain_ = nullptr;
    QLabel* warning_ = nullptr;
    QString pretrainPreset_;  ///< models/sapbert.json, when the models folder has it
    QString maskedLmPreset_;  ///< models/mlm.json, when the models folder has it
    QCheckBox* maskedLmFirst_ = nullptr;
    /// The running run is the masked-LM stage of a pretraining: the self-alignment follows it.
    bool maskedLmStage_ = false;
    bool pretraining_ = false;        ///< the running (or last) run is a pretraining
    bool startChosenByUser_ = false;  ///< the user picked the start: a new pretrained encoder does not replace it
    QString scheduleChosenByStart_;   ///< the schedule matchScheduleToStart() last chose (not the user)
    QLineEdit* runsFolder_ = nullptr;
    QPushButton* start_ = nullptr;
    QPushButton* cancel_ = nullptr;
    QProgressBar* progress_ = nullptr;
    QLabel* status_ = nullptr;
    QLabel* unavailable_ = nullptr;
    TrainingCharts* charts_ = nullptr;
};

}  // namespace linkscope::ui
