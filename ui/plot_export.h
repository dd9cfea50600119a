#pragma once
// Plots people can read and keep: every chart of the GUI (the recall@k curve, the
// training curves, the curation curve, the embedding plot) gets the same axis styling and a
// "Save plot…" button through these helpers.
//
// Saving renders the chart view's scene, as it is on screen (zoom included), into
//   SVG  through QSvgGenerator: vector paths, the titles and tick labels as <text> elements, so
//        the file scales and its words can be searched and edited;
//   PNG  into a QImage of the view's size times `scale` (2 by default: sharp when printed or
//        shown on a high-density screen), white background.
// The format follows the file's suffix (.svg, else PNG).
#include <QSize>
#include <QString>

class QAbstractAxis;
class QChart;
class QChartView;
class QPushButton;
class QValueAxis;
class QWidget;

namespace linkscope::ui {

/// Writes the view's chart as SVG. False (and *error set) when the file cannot be written.
bool savePlotSvg(QChartView* view, const QString& path, QString* error = nullptr);
/// Writes the view's chart as PNG of view->size() * scale pixels. False (and *error) on failure.
bool savePlotPng(QChartView* view, const QString& path, double scale = 2.0, QString* error = nullptr);
/// SVG for a ".svg" path, PNG otherwise.
bool savePlot(QChartView* view, const QString& path, QString* error = nullptr);

/// Asks for a file name (SVG or PNG, starting from `baseName`) and saves; a failure is shown
/// in a message box.
void savePlotInteractively(QChartView* view, const QString& baseName);

/// A "Save plot…" button (object name "savePlot") that calls savePlotInteractively.
QPushButton* makeSavePlotButton(QChartView* view, const QString& baseName, QWidget* parent);

/// The chart view and its "Save plot…" button in one widget that grows with its dock; the
/// view gets `minimumSize` (large enough for the axis titles and a few ticks).
QWidget* plotWithSaveButton(QChartView* view, const QString& baseName, QWidget* parent,
                            QSize minimumSize = QSize(320, 220));

/// Readable value axis: its title, `ticks` labelled ticks at round numbers, labels printed
/// with `labelFormat` (printf style, as QValueAxis takes it).
void styleValueAxis(QAbstractAxis* axis, const QString& title, int ticks, const QString& labelFormat);

/// Sets the axis' range [min, max] with ticks every 1, 2 or 5 times a power of ten (a whole
/// number >= 1 when `integer`: steps and epochs), at most about `maxTicks` of them, anchored at a
/// multiple of the step: "0 500 1000 1500" rather than Qt's fixed count of odd values
/// ("0 0 1 1 2" on a 0-2 epoch axis printed with %d).
void setNiceRange(QValueAxis* axis, double min, double max, int maxTicks = 6, bool integer = false);

/// The tick step setNiceRange chooses (exposed for tests).
double niceTickStep(double span, int maxTicks, bool integer);

}  // namespace linkscope::ui
