#pragma once
// The curation curve in the GUI: the simulated curation of `linkscope-cli
// simulate-curation --csv` (a curator corrects every wrong link as the documents come, and the
// corrections feed the kNN datastore at once) drawn as Acc@1 of the documents still to come
// against the documents curated, with and without the feedback -- the CLI's SVG plot
// (app/cli/curation_plot.cpp), here as a Qt Chart with the dock's "Save plot…". The file is read
// on the GUI thread: it holds one short row per document (a few hundred).
#include <QString>
#include <QWidget>

#include <vector>

#include "curation/simulated_curation.h"

class QChart;
class QChartView;
class QLabel;
class QLineSeries;

namespace linkscope::ui {

class CurationCurvePlot : public QWidget {
    Q_OBJECT
public:
    explicit CurationCurvePlot(QWidget* parent = nullptr);

    /// Reads and plots a simulate-curation CSV; false (the plot unchanged, *error set) when the
    /// file is malformed.
    bool loadCsv(const QString& path, QString* error = nullptr);
    /// Plots these steps (as the CSV holds them).
    void setSteps(const std::vector<curation::CurationStep>& steps, const QString& name);

    QChart* chart() const { return chart_; }
    QChartView* chartView() const { return view_; }
    QLineSeries* withFeedback() const { return withFeedback_; }
    QLineSeries* without() const { return without_; }
    QLabel* statusLabel() const { return status_; }

private:
    void chooseFile();

    QChart* chart_ = nullptr;
    QChartView* view_ = nullptr;
    QLineSeries* withFeedback_ = nullptr;
    QLineSeries* without_ = nullptr;
    QLabel* status_ = nullptr;
};

}  // namespace linkscope::ui
