// Plots people read and keep, offscreen: every chart of the GUI (the evaluation dock's
// recall@k curve and curation curve, the training curves; the embedding plot in its own suite)
// has titled axes and a "Save plot…" button, and saving writes an SVG that parses as XML and
// holds the axis titles as text, and a PNG of the view's size times the scale. The tick step
// rule, and the reader of simulate-curation's CSV with malformed files.
#include <QApplication>
#include <QChart>
#include <QChartView>
#include <QImage>
#include <QLabel>
#include <QLineSeries>
#include <QLogValueAxis>
#include <QPushButton>
#include <QSignalSpy>
#include <QValueAxis>
#include <QXmlStreamReader>
#include <QtTest/QtTest>

#include "curation/simulated_curation.h"
#include "curation_curve_plot.h"
#include "curation_curve_reader.h"
#include "evaluation_panel.h"
#include "fixtures.h"
#include "plot_export.h"
#include "test_data.h"
#include "training_panel.h"

using namespace linkscope;
using namespace linkscope::ui;

namespace {

/// What a saved SVG holds: whether it parsed, its root element, and the text of its <text> elements.
struct SvgContent {
    bool valid = false;
    QString root;
    QStringList texts;
};

SvgContent readSvg(const QString& path) {
    QFile file(path);
    SvgContent content;
    if (!file.open(QIODevice::ReadOnly)) return content;
    QXmlStreamReader xml(&file);
    while (!xml.atEnd()) {
        xml.readNext();
        if (!xml.isStartElement()) continue;
        if (content.root.isEmpty()) content.root = xml.name().toString();
        if (xml.name() == QLatin1String("text"))
            content.texts << xml.readElementText(QXmlStreamReader::IncludeChildElements);
    }
    content.valid = !xml.hasError() && !content.root.isEmpty();
    return content;
}

/// All axis titles of a chart.
QStringList axisTitles(const QChart* chart) {
    QStringList titles;
    for (const QAbstractAxis* axis : chart->axes()) titles << axis->titleText();
    return titles;
}

/// Saves the view as SVG and PNG into `dir` and checks both files; `expected` are words the
/// SVG's text must hold (the axis titles).
void checkSaved(QChartView* view, const QTemporaryDir& dir, const QString& name, const QStringList& expected) {
    const QString svg = dir.filePath(name + QStringLiteral(".svg"));
    const QString png = dir.filePath(name + QStringLiteral(".png"));
    QString error;
    QVERIFY2(savePlot(view, svg, &error), qPrintable(error));
    const SvgContent content = readSvg(svg);
    QVERIFY2(content.valid, qPrintable(svg));
    QCOMPARE(content.root, QStringLiteral("svg"));
    const QString allText = content.texts.join(QLatin1Char(' '));
    for (const QString& word : expected)
        QVERIFY2(allText.contains(word), qPrintable(word + QStringLiteral(" not in: ") + allText));
    QVERIFY2(savePlotPng(view, png, 2.0, &error), qPrintable(error));
    const QImage image(png);
    QVERIFY(!image.isNull());
    QCOMPARE(image.size(), view->viewport()->size() * 2);
    // The chart was drawn: not one flat colour.
    bool varied = false;
    const QRgb first = image.pixel(0, 0);
    for (int y = 0; y < image.height() && !varied; y += 7)
        for (int x = 0; x < image.width() && !varied; x += 7) varied = image.pixel(x, y) != first;
    QVERIFY(varied);
    // A folder that does not exist: a failure with a message, no crash.
    QVERIFY(!savePlotPng(view, dir.filePath(QStringLiteral("missing/plot.png")), 1.0, &error));
    QVERIFY(!error.isEmpty());
}

}  // namespace

class TestPlots : public QObject {
    Q_OBJECT
    QTemporaryDir dir_;

private Q_SLOTS:
    void niceTickSteps() {
        QCOMPARE(niceTickStep(1.0, 6, false), 0.2);
        QCOMPARE(niceTickStep(1500.0, 6, true), 500.0);
        QCOMPARE(niceTickStep(2.0, 6, true), 1.0);    // epochs: whole numbers, never 0.5
        QCOMPARE(niceTickStep(0.3, 6, false), 0.1);   // raw 0.06 -> 0.1
        QCOMPARE(niceTickStep(37.0, 6, true), 10.0);  // raw 7.4 -> 10
        QCOMPARE(niceTickStep(0.0, 6, false), 1.0);   // a degenerate range still gets a step
        QValueAxis axis;
        setNiceRange(&axis, 0, 1500, 6, true);
        QCOMPARE(axis.tickInterval(), 500.0);
        QCOMPARE(axis.tickAnchor(), 0.0);
        QCOMPARE(axis.max(), 1500.0);
        QVERIFY(axis.tickType() == QValueAxis::TicksDynamic);
    }

    void recallChartIsTitledAndSaves() {
        // Two per-mention files as `linkscope-cli eval --per-mention` writes them (the panel
        // needs no project to read them).
        const QString file = dir_.filePath(QStringLiteral("run.jsonl"));
        // Mentions 0-1 have the gold first, 2-3 second, 4-5 not among the two saved predictions.
        std::string lines;
        for (int i = 0; i < 6; ++i) {
            const char* predictions = i < 2   ? R"([{"name":"y","ids":["D1"]},{"name":"x","ids":["D2"]}])"
                                      : i < 4 ? R"([{"name":"x","ids":["D2"]},{"name":"y","ids":["D1"]}])"
                                              : R"([{"name":"x","ids":["D2"]},{"name":"z","ids":["D3"]}])";
            lines += "{\"document\":\"1\",\"start\":" + std::to_string(10 * i) +
                     ",\"end\":" + std::to_string(10 * i + 4) + ",\"type\":\"Disease\",\"gold\":[\"D1\"],\"rank\":" +
                     (i < 2   ? "1"
                      : i < 4 ? "2"
                              : "null") +
                     ",\"strict_rank\":null,\"parts\":[{\"predictions\":" + predictions + "}]}\n";
        }
        test::writeFile(file.toStdString(), lines);
        EvaluationPanel panel;
        panel.resize(900, 700);
        panel.show();
        QVERIFY(QTest::qWaitForWindowExposed(&panel));
        QSignalSpy ready(&panel, &EvaluationPanel::runReady);
        QVERIFY(panel.startLoadingFile(file, EvaluationPanel::SlotA));
        QTRY_VERIFY_WITH_TIMEOUT(ready.count() == 1 && !panel.isRunning(), 30000);
        QCOMPARE(panel.recallChart()->series().size(), 1);
        const QStringList titles = axisTitles(panel.recallChart());
        QVERIFY2(titles.contains(QStringLiteral("k (candidates per mention, log scale)")),
                 qPrintable(titles.join(',')));
        QVERIFY2(titles.contains(QStringLiteral("recall@k")), qPrintable(titles.join(',')));
        // The y axis starts at the lowest recall shown, rounded down to a tenth: recall@1 = 2/6 -> 0.3.
        const auto vertical = panel.recallChart()->axes(Qt::Vertical);
        const auto* recallAxis = qobject_cast<QValueAxis*>(vertical.first());
        QVERIFY(std::abs(recallAxis->min() - 0.3) < 1e-9);
        QCOMPARE(recallAxis->max(), 1.0);
        // k on a log2 axis labelled with whole numbers.
        const auto horizontal = panel.recallChart()->axes(Qt::Horizontal);
        const auto* logAxis = qobject_cast<QLogValueAxis*>(horizontal.first());
        QVERIFY(logAxis);
        QCOMPARE(logAxis->base(), 2.0);
        QCOMPARE(logAxis->labelFormat(), QStringLiteral("%d"));
        // The chart is laid out bigger than its minimum, and follows the panel.
        QChartView* view = panel.recallChartView();
        QVERIFY(view->width() >= view->minimumWidth() && view->height() >= view->minimumHeight());
        QVERIFY(view->minimumHeight() >= 200);
        const QSize before = view->size();
        panel.resize(1200, 900);
        QTRY_VERIFY(view->size().width() > before.width());
        QVERIFY(view->parentWidget()->findChild<QPushButton*>(QStringLiteral("savePlot")));
        checkSaved(view, dir_, QStringLiteral("recall"), {QStringLiteral("recall@k"), QStringLiteral("log scale")});
    }

    void trainingCurvesAreTitledAndSave() {
        TrainingPanel panel;
        panel.resize(900, 900);
        panel.show();
        QVERIFY(QTest::qWaitForWindowExposed(&panel));
        QCOMPARE(axisTitles(panel.lossChartView()->chart()),
                 (QStringList{QStringLiteral("training step"), QStringLiteral("loss")}));
        QCOMPARE(axisTitles(panel.accuracyChartView()->chart()),
                 (QStringList{QStringLiteral("epoch"), QStringLiteral("dev Acc@1")}));
        // Points as a training run adds them; the epoch axis ticks at whole epochs.
        panel.lossSeries()->append({QPointF(1, 2.5), QPointF(2, 1.5), QPointF(3, 1.0)});
        panel.accuracySeries()->append({QPointF(0, 0.2), QPointF(1, 0.5), QPointF(2, 0.6)});
        const auto epochAxes = panel.accuracyChartView()->chart()->axes(Qt::Horizontal);
        const auto* epochs = qobject_cast<QValueAxis*>(epochAxes.first());
        QVERIFY(epochs->tickInterval() >= 1.0);
        for (QChartView* view : {panel.lossChartView(), panel.accuracyChartView()})
            QVERIFY(view->parentWidget()->findChild<QPushButton*>(QStringLiteral("savePlot")));
        checkSaved(panel.lossChartView(), dir_, QStringLiteral("loss"),
                   {QStringLiteral("training step"), QStringLiteral("loss")});
        checkSaved(panel.accuracyChartView(), dir_, QStringLiteral("accuracy"),
                   {QStringLiteral("epoch"), QStringLiteral("dev Acc@1")});
    }

    void curationCurvePlotsTheCsv() {
        // The CSV as simulate-curation writes it (curation::curationCsv), step 2 not evaluated.
        curation::CurationSimulation simulation;
        for (std::size_t d = 0; d <= 4; ++d) {
            curation::CurationStep step;
            step.documentsDone = d;
            step.mentionsDone = 3 * d;
            step.correctionsFed = d;
            step.remainingMentions = 12 - 3 * d;
            if (d != 2 && d != 4) {
                step.remainingWithFeedback = 0.5 + 0.1 * static_cast<double>(d);
                step.remainingWithout = 0.5;
            }
            step.onlineWithFeedback = 0.6;
            step.onlineWithout = 0.5;
            simulation.steps.push_back(step);
        }
        const QString csv = dir_.filePath(QStringLiteral("curve.csv"));
        test::writeFile(csv.toStdString(), curation::curationCsv(simulation));
        CurationCurvePlot plot;
        plot.resize(800, 600);
        plot.show();
        QVERIFY(QTest::qWaitForWindowExposed(&plot));
        QString error;
        QVERIFY2(plot.loadCsv(csv, &error), qPrintable(error));
        QCOMPARE(plot.withFeedback()->count(), 3);  // steps 0, 1, 3
        QCOMPARE(plot.without()->count(), 3);
        QCOMPARE(plot.withFeedback()->at(2), QPointF(3, 0.8));
        QCOMPARE(plot.without()->at(1), QPointF(1, 0.5));
        QCOMPARE(axisTitles(plot.chart()), (QStringList{QStringLiteral("documents curated"),
                                                        QStringLiteral("Acc@1 of the remaining documents")}));
        // The y range is the values' widened to tenths: 0.5 .. 0.8 -> 0.4 .. 0.9.
        const auto vertical = plot.chart()->axes(Qt::Vertical);
        const auto* y = qobject_cast<QValueAxis*>(vertical.first());
        QVERIFY(std::abs(y->min() - 0.4) < 1e-9 && std::abs(y->max() - 0.9) < 1e-9);
        QVERIFY(plot.statusLabel()->text().contains(QStringLiteral("4 documents")));
        checkSaved(plot.chartView(), dir_, QStringLiteral("curation"),
                   {QStringLiteral("documents curated"), QStringLiteral("remaining documents")});

        // A malformed file leaves the plot as it was and says where.
        const QString bad = dir_.filePath(QStringLiteral("bad.csv"));
        test::writeFile(bad.toStdString(), curation::curationCsv(simulation) + "5,15,5,0,,,0.6\n");
        QVERIFY(!plot.loadCsv(bad, &error));
        QVERIFY2(error.contains(QStringLiteral("bad.csv:7:")), qPrintable(error));
        QCOMPARE(plot.withFeedback()->count(), 3);
    }

    void malformedCurationCsvNamesFileAndLine() {
        const std::string header =
            "documents_done,mentions_done,corrections,remaining_mentions,remaining_acc_feedback,remaining_acc_without,"
            "online_acc_feedback,online_acc_without\n";
        const test::FixtureDir dir;
        const auto empty = dir.write("empty.csv", "");
        LINKSCOPE_EXPECT_PARSE_ERROR(readCurationCurve(empty), empty, 0, "empty file");
        const auto foreign = dir.write("foreign.csv", "a,b,c\n1,2,3\n");
        LINKSCOPE_EXPECT_PARSE_ERROR(readCurationCurve(foreign), foreign, 1, "not a simulate-curation CSV");
        const auto headerOnly = dir.write("header.csv", header);
        LINKSCOPE_EXPECT_PARSE_ERROR(readCurationCurve(headerOnly), headerOnly, 1, "no rows");
        const auto fields = dir.write("fields.csv", header + "0,0,0,10,0.5,0.5,0,0\n1,3,1,7,0.6\n");
        LINKSCOPE_EXPECT_PARSE_ERROR(readCurationCurve(fields), fields, 3, "expected 8 comma-separated fields, got 5");
        const auto negative = dir.write("negative.csv", header + "-1,0,0,10,0.5,0.5,0,0\n");
        LINKSCOPE_EXPECT_PARSE_ERROR(readCurationCurve(negative), negative, 2, "documents_done must be a whole number");
        const auto outside = dir.write("outside.csv", header + "0,0,0,10,1.5,0.5,0,0\n");
        LINKSCOPE_EXPECT_PARSE_ERROR(readCurationCurve(outside), outside, 2,
                                     "remaining_acc_feedback must be a fraction");
        const auto text = dir.write("text.csv", header + "0,0,0,10,0.5,0.5,high,0\n");
        LINKSCOPE_EXPECT_PARSE_ERROR(readCurationCurve(text), text, 2, "online_acc_feedback must be a fraction");
        const auto nan = dir.write("nan.csv", header + "0,0,0,10,nan,0.5,0,0\n");
        LINKSCOPE_EXPECT_PARSE_ERROR(readCurationCurve(nan), nan, 2, "remaining_acc_feedback");
        // Empty accuracy cells (steps not evaluated) and CRLF line ends are fine.
        const auto crlf = dir.write("crlf.csv",
                                    "documents_done,mentions_done,corrections,remaining_mentions,"
                                    "remaining_acc_feedback,remaining_acc_without,online_acc_feedback,"
                                    "online_acc_without\r\n0,0,0,10,,,0,0\r\n1,3,1,7,0.75,0.5,1,0.5\r\n");
        const auto steps = readCurationCurve(crlf);
        QCOMPARE(steps.size(), std::size_t{2});
        QVERIFY(!steps[0].remainingWithFeedback.has_value());
        QCOMPARE(steps[1].remainingWithFeedback, std::optional<double>(0.75));
        QCOMPARE(steps[1].remainingMentions, std::size_t{7});
    }
};

QTEST_MAIN(TestPlots)
#include "test_plots.moc"
