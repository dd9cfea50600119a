// The embedding plot offscreen, on a small project this suite writes itself: the plot of an
// entity has a names series (stars) and a mentions series (circles) per entity, holding exactly
// the points core's gatherEntityNeighbourhood gives; clicks on the series emit the navigation
// signals; hovering finds the point; a new request replaces a running one; unknown ids fail.
#include <QApplication>
#include <QChart>
#include <QChartView>
#include <QImage>
#include <QLabel>
#include <QLegend>
#include <QLegendMarker>
#include <QPushButton>
#include <QScatterSeries>
#include <QSignalSpy>
#include <QValueAxis>
#include <QXmlStreamReader>

#include "curation/entity_neighbourhood.h"
#include "curation/sparse_candidates.h"
#include "embedding_plot.h"
#include "plot_export.h"
#include "project/loaded_project.h"
#include "project/project_manifest.h"
#include "test_data.h"

using namespace linkscope;
using namespace linkscope::ui;

namespace {

constexpr std::string_view kKb =
    "D006816|143100||Huntington Disease|Huntington's Disease|Huntington Chorea|HD\n"
    "D006627||Hirschsprung Disease|Congenital Megacolon|HD\n"
    "D009369||Neoplasms|Tumors|Cancer\n"
    "D001943||Breast Neoplasms|Breast Cancer\n"
    "D012859||Sj\xC3\xB6gren's Syndrome|Sicca Syndrome\n";

constexpr std::string_view kTrain =
    "100|t|Huntington disease and breast cancer.\n"
    "100|a|HD patients rarely develop tumors or breast and ovarian neoplasms.\n"
    "100\t0\t18\tHuntington disease\tSpecificDisease\tD006816\n"
    "100\t23\t36\tbreast cancer\tSpecificDisease\tD001943\n"
    "100\t38\t40\tHD\tSpecificDisease\tD006816\n"
    "100\t65\t71\ttumors\tDiseaseClass\tD009369\n"
    "100\t75\t103\tbreast and ovarian neoplasms\tCompositeMention\tD001943|D009369\n";

constexpr std::string_view kTest =
    "200|t|Hirschsprung disease in a child.\n"
    "200|a|Congenital megacolon (HD) is not Huntington disease.\n"
    "200\t0\t20\tHirschsprung disease\tSpecificDisease\tD006627\n"
    "200\t33\t53\tCongenital megacolon\tSpecificDisease\tD006627\n"
    "200\t55\t57\tHD\tSpecificDisease\tD006627\n"
    "200\t66\t84\tHuntington disease\tSpecificDisease\tOMIM:143100\n";

}  // namespace

class TestEmbeddingPlot : public QObject {
    Q_OBJECT
    QTemporaryDir dir_;
    std::shared_ptr<const LoadedProject> project_;
    std::shared_ptr<const curation::SparseCandidates> candidates_;

    QString path(const QString& name) const { return dir_.filePath(name); }

private Q_SLOTS:
    void initTestCase() {
        QVERIFY(dir_.isValid());
        test::writeFile(path(QStringLiteral("kb.txt")).toStdString(), kKb);
        test::writeFile(path(QStringLiteral("train.txt")).toStdString(), kTrain);
        test::writeFile(path(QStringLiteral("test.txt")).toStdString(), kTest);
        const QString manifest = path(QStringLiteral("project.json"));
        test::writeFile(manifest.toStdString(), R"({
  "format": "linkscope-project-manifest", "version": 1, "name": "Embedding plot fixture",
  "knowledgeBase": { "path": "kb.txt", "format": "medic" },
  "corpora": [ { "split": "train", "path": "train.txt", "format": "pubtator" },
               { "split": "test", "path": "test.txt", "format": "pubtator" } ] })");
        project_ = std::make_shared<const LoadedProject>(loadProject(readProjectManifest(manifest.toStdString())));
        candidates_ = std::make_shared<const curation::SparseCandidates>(*project_->kb, true);
    }

    void plotsWhatCoreGathers() {
        EmbeddingPlot plot;
        plot.resize(800, 600);
        plot.show();
        plot.setProject(project_);
        QSignalSpy computed(&plot, &EmbeddingPlot::computed);
        plot.showEntity(QStringLiteral("D006816"));  // no ranker handed over: the worker builds one
        QVERIFY(plot.isComputing());
        QVERIFY(plot.statusLabel()->text().contains(QStringLiteral("Computing")));
        QTRY_COMPARE_WITH_TIMEOUT(computed.count(), 1, 60000);
        QVERIFY(!plot.isComputing());
        QCOMPARE(computed.first().first().toString(), QStringLiteral("D006816"));
        QVERIFY(plot.layout());

        const curation::EntityNeighbourhood expected =
            curation::gatherEntityNeighbourhood(*project_->kb, project_->splits, *candidates_, "D006816");
        const curation::EntityNeighbourhood& shown = plot.layout()->neighbourhood;
        QCOMPARE(shown.points.size(), expected.points.size());
        QCOMPARE(shown.entities.size(), expected.entities.size());
        QCOMPARE(shown.distances, expected.distances);
        QCOMPARE(plot.layout()->mds.points, expected.points.size());
        QCOMPARE(plot.series().size(), 2 * expected.entities.size());
        QCOMPARE(plot.chart()->series().size(), static_cast<qsizetype>(2 * expected.entities.size()));

        for (std::size_t e = 0; e < expected.entities.size(); ++e) {
            const curation::NeighbourhoodEntity& entity = expected.entities[e];
            QScatterSeries* names = plot.series()[2 * e];
            QScatterSeries* mentions = plot.series()[2 * e + 1];
            QCOMPARE(names->markerShape(), QScatterSeries::MarkerShapeStar);
            QCOMPARE(mentions->markerShape(), QScatterSeries::MarkerShapeCircle);
            QCOMPARE(names->count(), static_cast<int>(entity.namePoints));
            QCOMPARE(mentions->count(), static_cast<int>(entity.mentionPoints));
            QCOMPARE(names->color(), mentions->color());  // one colour per entity
            if (e > 0) QVERIFY(names->color() != plot.series()[0]->color());
            QVERIFY(names->name().startsWith(QString::fromStdString(entity.id)));
            QVERIFY(names->name().contains(QString::fromStdString(entity.preferredName)));
            // One legend entry per entity.
            QVERIFY(plot.chart()->legend()->markers(names).first()->isVisible());
            QVERIFY(!plot.chart()->legend()->markers(mentions).first()->isVisible());
        }
        // The focus entity: 4 names (MEDIC line), 3 mentions (two by MeSH id, one by OMIM id).
        QCOMPARE(plot.series()[0]->count(), 4);
        QCOMPARE(plot.series()[1]->count(), 3);
        QCOMPARE(expected.entities[1].id, std::string("MESH:D006627"));  // the other "HD"

        // Every point of a series is drawn at its MDS coordinates and maps back to itself.
        QScatterSeries* focusMentions = plot.series()[1];
        for (const QPointF& p : focusMentions->points()) {
            const curation::NeighbourhoodPoint* point = plot.pointAt(focusMentions, p);
            QVERIFY(point);
            QCOMPARE(point->entity, std::string("MESH:D006816"));
            QVERIFY(point->kind == curation::PointKind::Mention);
        }
        // Both axes show the whole layout.
        const auto axes = plot.chart()->axes(Qt::Horizontal);
        QCOMPARE(axes.size(), 1);
        const auto* x = qobject_cast<QValueAxis*>(axes.first());
        for (std::size_t i = 0; i < plot.layout()->mds.points; ++i) {
            QVERIFY(plot.layout()->mds.coordinate(i, 0) >= x->min() && plot.layout()->mds.coordinate(i, 0) <= x->max());
        }
        QVERIFY(x->titleText().contains(QStringLiteral("MDS 1")));

        // "Save plot…": an SVG that parses, with both axis titles as text, and a PNG
        // of twice the view's size.
        QVERIFY(plot.findChild<QPushButton*>(QStringLiteral("savePlot")));
        const QString svg = path(QStringLiteral("embedding.svg"));
        QString error;
        QVERIFY2(savePlotSvg(plot.chartView(), svg, &error), qPrintable(error));
        QFile svgFile(svg);
        QVERIFY(svgFile.open(QIODevice::ReadOnly));
        QXmlStreamReader xml(&svgFile);
        QString text;
        while (!xml.atEnd())
            if (xml.readNext() == QXmlStreamReader::StartElement && xml.name() == QLatin1String("text"))
                text += xml.readElementText(QXmlStreamReader::IncludeChildElements) + QLatin1Char(' ');
        QVERIFY2(!xml.hasError(), qPrintable(xml.errorString()));
        QVERIFY2(text.contains(QStringLiteral("MDS 1")) && text.contains(QStringLiteral("MDS 2")), qPrintable(text));
        const QString png = path(QStringLiteral("embedding.png"));
        QVERIFY2(savePlotPng(plot.chartView(), png, 2.0, &error), qPrintable(error));
        QCOMPARE(QImage(png).size(), plot.chartView()->viewport()->size() * 2);
    }

    void clicksNavigate() {
        EmbeddingPlot plot;
        plot.setProject(project_);
        plot.setCandidates(candidates_);
        QSignalSpy computed(&plot, &EmbeddingPlot::computed);
        QSignalSpy mentions(&plot, &EmbeddingPlot::mentionActivated);
        QSignalSpy entities(&plot, &EmbeddingPlot::entityActivated);
        plot.showEntity(QStringLiteral("MESH:D006816"));
        QTRY_COMPARE_WITH_TIMEOUT(computed.count(), 1, 60000);
        QVERIFY(!plot.isComputing());

        // The OMIM-linked test mention: a click on its dot (as the series reports it) opens it.
        const curation::EntityNeighbourhood& n = plot.layout()->neighbourhood;
        std::size_t omim = n.points.size();
        for (std::size_t i = 0; i < n.points.size(); ++i)
            if (n.points[i].split == "test" && n.points[i].entity == "MESH:D006816") omim = i;
        QVERIFY(omim < n.points.size());
        QScatterSeries* focusMentions = plot.series()[1];
        const QPointF at(plot.layout()->mds.coordinate(omim, 0), plot.layout()->mds.coordinate(omim, 1));
        // Another focus mention may coincide only if it had the same text ("Huntington disease"
        // in train): then the first of them is opened. Either is a mention of the focus.
        Q_EMIT focusMentions->clicked(at);
        QCOMPARE(mentions.count(), 1);
        const QVariantList args = mentions.first();
        const QString split = args.at(0).toString();
        QVERIFY(split == QStringLiteral("test") || split == QStringLiteral("train"));
        if (split == QStringLiteral("test"))
            QCOMPARE(args, (QVariantList{QStringLiteral("test"), QStringLiteral("200"), 66, 84}));
        else
            QCOMPARE(args, (QVariantList{QStringLiteral("train"), QStringLiteral("100"), 0, 18}));
        QCOMPARE(entities.count(), 0);

        // A star of the competitor shows that entity.
        QScatterSeries* otherNames = plot.series()[2];
        QVERIFY(otherNames->count() > 0);
        Q_EMIT otherNames->clicked(otherNames->at(0));
        QCOMPARE(entities.count(), 1);
        QCOMPARE(entities.first().first().toString(), QStringLiteral("MESH:D006627"));
        QCOMPARE(mentions.count(), 1);

        // Hover: the nearest point of the series (shown as a tool tip).
        const curation::NeighbourhoodPoint* hovered = plot.pointAt(otherNames, otherNames->at(0) + QPointF(1e-9, 0));
        QVERIFY(hovered);
        QCOMPARE(hovered->label, std::string("Hirschsprung Disease"));
        plot.hoverPoint(otherNames, otherNames->at(0), true);
        plot.hoverPoint(otherNames, otherNames->at(0), false);
        QVERIFY(!plot.pointAt(nullptr, QPointF()));

        plot.resetZoom();
        plot.chart()->zoom(2.0);
        plot.resetZoom();
    }

    void aNewRequestReplacesTheRunningOne() {
        EmbeddingPlot plot;
        plot.setProject(project_);
        plot.setCandidates(candidates_);
        QSignalSpy computed(&plot, &EmbeddingPlot::computed);
        plot.showEntity(QStringLiteral("D006816"));
        plot.showEntity(QStringLiteral("D009369"));
        QTRY_VERIFY_WITH_TIMEOUT(!plot.isComputing(), 60000);
        QTest::qWait(50);  // a stale result, if any, would arrive now
        QCOMPARE(computed.count(), 1);
        QCOMPARE(computed.first().first().toString(), QStringLiteral("D009369"));
        QCOMPARE(plot.layout()->neighbourhood.entities.front().id, std::string("MESH:D009369"));

        // Cancelling leaves the last plot in place.
        plot.showEntity(QStringLiteral("D006816"));
        plot.cancel();
        QTRY_VERIFY_WITH_TIMEOUT(!plot.isComputing(), 60000);
        QVERIFY(plot.layout());

        // A new project clears the plot.
        plot.setProject(project_);
        QVERIFY(!plot.layout());
        QCOMPARE(plot.series().size(), std::size_t{0});
        QCOMPARE(plot.chart()->series().size(), qsizetype{0});
    }

    void unknownEntitiesFail() {
        EmbeddingPlot plot;
        QSignalSpy failed(&plot, &EmbeddingPlot::failed);
        plot.showEntity(QStringLiteral("D006816"));  // no project
        QCOMPARE(failed.count(), 1);
        plot.setProject(project_);
        plot.setCandidates(candidates_);
        plot.showEntity(QStringLiteral("MESH:D999999"));
        QTRY_COMPARE_WITH_TIMEOUT(failed.count(), 2, 60000);
        QVERIFY(failed.last().first().toString().contains(QStringLiteral("MESH:D999999")));
        QVERIFY(!plot.isComputing());
        QVERIFY(!plot.layout());
    }
};

QTEST_MAIN(TestEmbeddingPlot)
#include "test_embedding_plot.moc"
