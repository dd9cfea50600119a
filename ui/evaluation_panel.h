#pragma once
// The evaluation dock's content: up to two loaded results A and B, each either the project's
// sparse linker run on a split (on a worker thread, with progress and cancel) or a per-mention
// file; their metrics (Acc@1/5/10/64 lenient and strict, seen / unseen, homonym-affected, per
// mention type); their recall@k curves (Qt Charts); McNemar's test and bootstrap intervals for A
// against B (also on a worker); and the error list of one of them, filterable by category.
// The "All runs" page (MultiRunPanel) evaluates every run of the project and any per-mention
// files on one split at once; the "Curation curve" page plots simulate-curation's CSV. Both
// charts have a "Save plot…" button (plot_export.h).
// Activating an error emits mentionActivated, which the main window routes to the document view.
#include <QStringList>
#include <QWidget>

#include <array>
#include <functional>
#include <memory>
#include <optional>

#include "background_job.h"
#include "eval/compare.h"
#include "util/progress.h"

class QCheckBox;
class QComboBox;
class QLabel;
class QLineEdit;
class QProgressBar;
class QPushButton;
class QTableView;
class QTableWidget;
class QChart;
class QChartView;

namespace linkscope {
struct LoadedProject;
}

namespace linkscope::ui {

struct EvaluationRun;
class ErrorFilterModel;
class ErrorTableModel;
class MultiRunPanel;
class CurationCurvePlot;

class EvaluationPanel : public QWidget {
    Q_OBJECT
public:
    enum Slot { SlotA = 0, SlotB = 1 };

    explicit EvaluationPanel(QWidget* parent = nullptr);

    /// A new project (null: none): cancels a running job (without waiting; a new job can start
    /// once it has stopped, see isRunning) and forgets both results.
    void setProject(std::shared_ptr<const LoadedProject> project);

    /// Runs the project's sparse linker on a split into a slot, on a worker thread. False when
    /// there is no project or a job is running.
    bool startSparseEvaluation(const QString& split, Slot slot, bool homonymExpansion = false);
    /// Evaluates a trained run (a training run directory) on a split into a slot, on a worker
    /// thread, alone or with kNN-BioEL's datastore; needs LibTorch (runFailed says so otherwise).
    /// False when there is no project or a job is running.
    bool startRunEvaluation(const QString& runDirectory, const QString& split, Slot slot, bool knn = false);
    /// The run directories the "Evaluate trained run" menu lists (the project's registered runs).
    /// The "All runs" page evaluates them all (MultiRunPanel).
    void setRunsProvider(std::function<QStringList()> provider);
    /// Reads a per-mention file into a slot, on a worker thread. False when a job is running.
    bool startLoadingFile(const QString& path, Slot slot);
    void cancel();
    bool isRunning() const { return job_.isRunning(); }

    std::shared_ptr<const EvaluationRun> run(Slot slot) const { return runs_[slot]; }
    /// The comparison of A and B once computed (both loaded, same mentions).
    const std::optional<eval::RunComparison>& comparison() const { return comparison_; }
    bool isComparing() const { return comparisonJob_.isRunning(); }

    ErrorTableModel* errorModel() const { return errorModel_; }
    ErrorFilterModel* errorFilter() const { return errorFilter_; }
    QTableView* errorView() const { return errorView_; }
    QComboBox* categoryFilter() const { return categoryCombo_; }
    QTableWidget* metricsTable() const { return metrics_; }
    QChart* recallChart() const { return chart_; }
    QChartView* recallChartView() const { return chartView_; }
    /// The "All runs" page: every run of the project on one split, compared at once.
    MultiRunPanel* multiRunPanel() const { return multiRun_; }
    /// The "Curation curve" page: simulate-curation's CSV as a chart.
    CurationCurvePlot* curationCurve() const { return curationCurve_; }
    QLabel* comparisonLabel() const { return comparisonLabel_; }

Q_SIGNALS:
    /// An error row was activated (offsets in characters of title + " " + abstract).
    void mentionActivated(const QString& split, const QString& pmid, int start, int end);
    void runReady(int slot);
    void runFailed(const QString& message);
    void comparisonReady();

private:
    using Job = std::function<EvaluationRun(const ProgressSink&)>;
    bool startJob(Job job, Slot slot, const QString& what);
    /// The job ended, whatever its outcome: the controls are usable again. False when it was
    /// started for a project since replaced (its outcome is dropped).
    bool endJob();
    void onRunEvaluated(std::shared_ptr<const EvaluationRun> run);
    /// No comparison: A and B are not results on the same mentions.
    void onComparisonFinished(std::optional<eval::RunComparison> comparison);
    void refreshSplits();
    void refreshResults();
    void refreshMetrics();
    void refreshChart();
    void refreshErrors();
    void startComparison();
    void chooseFile();
    void startTrainedFromControls(const QString& runDirectory);
    void activateError(const QModelIndex& proxyIndex);

    std::shared_ptr<const LoadedProject> project_;
    std::array<std::shared_ptr<const EvaluationRun>, 2> runs_;
    std::optional<eval::RunComparison> comparison_;
    BackgroundJob job_;
    BackgroundJob comparisonJob_;
    Slot pendingSlot_ = SlotA;
    int generation_ = 0;     ///< bumped by setProject
    int jobGeneration_ = 0;  ///< generation_ when the running job started

    QComboBox* splitCombo_ = nullptr;
    QCheckBox* homonymExpansion_ = nullptr;
    QComboBox* slotCombo_ = nullptr;
    QPushButton* runButton_ = nullptr;
    QPushButton* trainedButton_ = nullptr;
    QCheckBox* knnCheck_ = nullptr;
    std::function<QStringList()> runsProvider_;
    QPushButton* fileButton_ = nullptr;
    QPushButton* cancelButton_ = nullptr;
    QProgressBar* progress_ = nullptr;
    QLabel* status_ = nullptr;
    QTableWidget* metrics_ = nullptr;
    QChart* chart_ = nullptr;
    QChartView* chartView_ = nullptr;
    QComboBox* compareK_ = nullptr;
    QCheckBox* compareStrict_ = nullptr;
    QLabel* comparisonLabel_ = nullptr;
    QComboBox* errorsOf_ = nullptr;
    QComboBox* categoryCombo_ = nullptr;
    QCheckBox* showCorrect_ = nullptr;
    QLineEdit* errorSearch_ = nullptr;
    ErrorTableModel* errorModel_ = nullptr;
    ErrorFilterModel* errorFilter_ = nullptr;
    QTableView* errorView_ = nullptr;
    MultiRunPanel* multiRun_ = nullptr;
    CurationCurvePlot* curationCurve_ = nullptr;
};

}  // namespace linkscope::ui
