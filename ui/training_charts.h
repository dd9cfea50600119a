#pragma once
// The training dock's two live curves, one above the other, each with its own "Save plot…"
// (plot_export.h): the training loss per optimizer step and the dev Acc@1 per epoch (for the
// masked-LM stage of a pretraining: the held-out masked-token accuracy). The axes grow with the
// run.
#include <QSplitter>

class QChartView;
class QLineSeries;
class QValueAxis;

namespace linkscope::ui {

struct TrainingUpdate;

class TrainingCharts : public QSplitter {
    Q_OBJECT
public:
    explicit TrainingCharts(QWidget* parent = nullptr);

    /// Empties both curves for a new run; `maskedLm`: the run is the masked-LM stage, whose
    /// validation measures the held-out masked-token accuracy; `kbHoldout`: the run has no dev
    /// split, and validates on names held out of the KB (train/kb_holdout.h).
    void reset(bool maskedLm, bool kbHoldout = false);
    /// Appends the update's losses; the step and epoch axes follow the run.
    void showUpdate(const TrainingUpdate& update);
    /// The validation after `epoch` (0: the untrained model).
    void addEpochPoint(int epoch, double devAccuracy);

    QLineSeries* lossSeries() const { return lossSeries_; }
    QChartView* lossChartView() const { return lossView_; }
    QChartView* accuracyChartView() const { return accuracyView_; }
    /// Its name is the validation's metric.
    QLineSeries* accuracySeries() const { return accuracySeries_; }

private:
    QChartView* lossView_ = nullptr;
    QChartView* accuracyView_ = nullptr;
    QLineSeries* lossSeries_ = nullptr;
    QLineSeries* accuracySeries_ = nullptr;
    QValueAxis* lossX_ = nullptr;
    QValueAxis* lossY_ = nullptr;
    QValueAxis* accuracyX_ = nullptr;
    double lossMax_ = 0;
};

}  // namespace linkscope::ui
