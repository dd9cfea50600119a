#include "training_charts.h"

#include <QChart>
#include <QChartView>
#include <QLineSeries>
#include <QValueAxis>

#include <algorithm>
#include <cmath>

#include "plot_export.h"
#include "training_worker.h"

namespace linkscope::ui {
namespace {

QChartView* makeChartView(const QString& title, QLineSeries* series, QValueAxis* x, QValueAxis* y, QWidget* parent) {
    auto* chart = new QChart;
    chart->setTitle(title);
    chart->legend()->hide();
    chart->addSeries(series);
    chart->addAxis(x, Qt::AlignBottom);
    chart->addAxis(y, Qt::AlignLeft);
    series->attachAxis(x);
    series->attachAxis(y);
    chart->setMargins(QMargins(4, 4, 4, 4));
    auto* view = new QChartView(chart, parent);  // the view owns the chart, the chart its series and axes
    view->setRenderHint(QPainter::Antialiasing);
    return view;
}

}  // namespace

TrainingCharts::TrainingCharts(QWidget* parent) : QSplitter(Qt::Vertical, parent) {
    lossSeries_ = new QLineSeries;
    lossSeries_->setName(tr("loss"));
    lossX_ = new QValueAxis;
    styleValueAxis(lossX_, tr("training step"), 6, QStringLiteral("%d"));
    setNiceRange(lossX_, 0, 1, 6, true);
    lossY_ = new QValueAxis;
    styleValueAxis(lossY_, tr("loss"), 6, QStringLiteral("%.3g"));
    setNiceRange(lossY_, 0, 1);
    lossView_ = makeChartView(tr("Training loss"), lossSeries_, lossX_, lossY_, this);
    lossView_->setObjectName(QStringLiteral("trainingLossChart"));

    accuracySeries_ = new QLineSeries;
    accuracySeries_->setName(tr("dev Acc@1"));
    accuracySeries_->setPointsVisible(true);
    accuracyX_ = new QValueAxis;
    styleValueAxis(accuracyX_, tr("epoch"), 6, QStringLiteral("%d"));
    setNiceRange(accuracyX_, 0, 1, 6, true);
    auto* accuracyY = new QValueAxis;
    styleValueAxis(accuracyY, tr("dev Acc@1"), 6, QStringLiteral("%.1f"));
    setNiceRange(accuracyY, 0, 1);
    accuracyView_ = makeChartView(tr("Dev Acc@1"), accuracySeries_, accuracyX_, accuracyY, this);
    accuracyView_->setObjectName(QStringLiteral("trainingAccuracyChart"));

    // Each chart grows with the dock.
    addWidget(plotWithSaveButton(lossView_, QStringLiteral("training-loss"), this, QSize(320, 200)));
    addWidget(plotWithSaveButton(accuracyView_, QStringLiteral("dev-accuracy"), this, QSize(320, 200)));
}

void TrainingCharts::reset(bool maskedLm, bool kbHoldout) {
    lossSeries_->clear();
    accuracySeries_->clear();
    accuracySeries_->setName(maskedLm    ? tr("held-out masked-token accuracy")
                             : kbHoldout ? tr("held-out KB names Acc@1")
                                         : tr("dev Acc@1"));
    accuracyView_->chart()->setTitle(maskedLm    ? tr("Held-out masked-token accuracy")
                                     : kbHoldout ? tr("Held-out KB names Acc@1")
                                                 : tr("Dev Acc@1"));
    lossMax_ = 0;
    setNiceRange(lossX_, 0, 1, 6, true);
    setNiceRange(lossY_, 0, 1);
    setNiceRange(accuracyX_, 0, 1, 6, true);
}

void TrainingCharts::showUpdate(const TrainingUpdate& update) {
    if (!update.losses.isEmpty()) {
        lossSeries_->append(update.losses);
        for (const QPointF& point : update.losses)
            if (std::isfinite(point.y())) lossMax_ = std::max(lossMax_, point.y());
        setNiceRange(lossX_, 0, std::max(1.0, update.losses.back().x()), 6, true);
        setNiceRange(lossY_, 0, lossMax_ > 0 ? lossMax_ * 1.05 : 1.0);
    }
    if (update.epochs > 0) setNiceRange(accuracyX_, 0, update.epochs, 6, true);
}

void TrainingCharts::addEpochPoint(int epoch, double devAccuracy) {
    accuracySeries_->append(epoch, devAccuracy);
    setNiceRange(accuracyX_, 0, std::max(accuracyX_->max(), double(std::max(epoch, 1))), 6, true);
}

}  // namespace linkscope::ui
