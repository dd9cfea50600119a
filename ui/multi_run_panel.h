#pragma once
// The evaluation dock's "All runs" page: one action evaluates the sparse linker, every
// trained run the project lists (the runs provider) and any number of per-mention files on one
// split, on a worker thread with progress and cancel, and shows
//   - a table of the runs: Acc@k (or strict) with its 95 % percentile bootstrap interval;
//   - the matrix of McNemar p-values, Holm-adjusted over the N(N-1)/2 pairs (core's
//     eval/multi_compare.h); cells below alpha = 0.05 are marked (bold, '*', tinted);
//   - per-group rows (seen / unseen, homonym-affected, composite, abbreviation expanded, per type:
//     eval/mention_groups.h) with every run's accuracy, and per run the count of errors of each
//     of BioSyn's error kinds (eval/error_categories.h).
// A run that cannot be evaluated (no LibTorch, a deleted run folder) is left out and named in the
// status line; the others are still compared. Changing k or strict recomputes the comparison
// (on a worker) without ranking again.
#include <QStringList>
#include <QWidget>

#include <functional>
#include <memory>
#include <optional>
#include <vector>

#include "background_job.h"
#include "eval/multi_compare.h"

class QCheckBox;
class QComboBox;
class QLabel;
class QProgressBar;
class QPushButton;
class QTableWidget;

namespace linkscope {
struct LoadedProject;
}

namespace linkscope::ui {

struct EvaluationRun;

class MultiRunPanel : public QWidget {
    Q_OBJECT
public:
    explicit MultiRunPanel(QWidget* parent = nullptr);

    /// A new project (null: none): cancels a running job and forgets the results.
    void setProject(std::shared_ptr<const LoadedProject> project);
    /// The trained runs to evaluate (the project's registered run directories).
    void setRunsProvider(std::function<QStringList()> provider) { runsProvider_ = std::move(provider); }
    /// The per-mention files evaluated beside the runs.
    void setFiles(const QStringList& files);
    QStringList files() const { return files_; }

    /// Evaluates sparse, every provided run and every file on `split`; false when there is no
    /// project, a job runs, or the split is unknown.
    bool startEvaluatingAll(const QString& split);
    void cancel();
    bool isRunning() const { return evaluation_.isRunning() || comparisonJob_.isRunning(); }

    /// The evaluated runs, in table order, and their comparison (once computed).
    const std::vector<std::shared_ptr<const EvaluationRun>>& runs() const { return runs_; }
    const std::optional<eval::MultiComparison>& comparison() const { return comparison_; }
    /// Runs left out, "name: reason".
    const QStringList& skipped() const { return skipped_; }

    QTableWidget* runsTable() const { return runsTable_; }
    QTableWidget* matrixTable() const { return matrix_; }
    QTableWidget* groupsTable() const { return groups_; }
    QComboBox* splitCombo() const { return splitCombo_; }
    QComboBox* cutoffCombo() const { return cutoff_; }
    QCheckBox* strictCheck() const { return strict_; }
    QLabel* statusLabel() const { return status_; }

Q_SIGNALS:
    /// The comparison of the evaluated runs is shown.
    void comparisonReady();
    void failed(const QString& message);

private:
    struct Outcome {
        std::vector<std::shared_ptr<const EvaluationRun>> runs;
        QStringList skipped;
    };
    /// No outcome: the evaluation was cancelled.
    void onEvaluated(std::optional<Outcome> outcome);
    void startComparison();
    /// No comparison: `error` says why the runs cannot be paired.
    void onCompared(std::optional<eval::MultiComparison> comparison, const QString& error);
    void refreshSplits();
    void refreshTables();
    void updateButtons();
    void chooseFiles();

    std::shared_ptr<const LoadedProject> project_;
    std::function<QStringList()> runsProvider_;
    QStringList files_;
    std::vector<std::shared_ptr<const EvaluationRun>> runs_;
    QStringList skipped_;
    std::optional<eval::MultiComparison> comparison_;
    int generation_ = 0;
    int jobGeneration_ = 0;
    BackgroundJob evaluation_;
    BackgroundJob comparisonJob_;

    QComboBox* splitCombo_ = nullptr;
    QPushButton* evaluateButton_ = nullptr;
    QPushButton* filesButton_ = nullptr;
    QPushButton* clearFilesButton_ = nullptr;
    QPushButton* cancelButton_ = nullptr;
    QProgressBar* progress_ = nullptr;
    QComboBox* cutoff_ = nullptr;
    QCheckBox* strict_ = nullptr;
    QLabel* filesLabel_ = nullptr;
    QLabel* status_ = nullptr;
    QTableWidget* runsTable_ = nullptr;
    QTableWidget* matrix_ = nullptr;
    QTableWidget* groups_ = nullptr;
};

}  // namespace linkscope::ui
