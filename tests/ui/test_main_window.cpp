// The main window opened on the demo project, offscreen: what a user sees after the first
// README command (documents listed, mentions highlighted, keyboard navigation, KB summary).
#include <QApplication>
#include <QDockWidget>
#include <QHeaderView>
#include <QLocale>
#include <QScreen>
#include <QSettings>
#include <QSignalSpy>
#include <QTableView>

#include "candidate_model.h"
#include "candidates_panel.h"
#include "corpus/corpus.h"
#include "document_list_model.h"
#include "document_view.h"
#include "kb/homonyms.h"
#include "kb/kb_builder.h"
#include "kb/knowledge_base.h"
#include "main_window.h"
#include "message_log.h"
#include "project/loaded_project.h"
#include "test_data.h"
#include "vocabulary_dock.h"

using namespace linkscope;
using namespace linkscope::ui;

class TestMainWindow : public QObject {
    Q_OBJECT
    QTemporaryDir dir_;

    static QString demoManifest() {
        return QString::fromUtf8(LINKSCOPE_SOURCE_DIR) + QStringLiteral("/resources/demo/demo-project.json");
    }
    static void waitLoaded(MainWindow& window) {
        QSignalSpy loaded(&window, &MainWindow::projectLoaded);
        QSignalSpy failed(&window, &MainWindow::projectFailed);
        window.openProject(demoManifest());
        QTRY_VERIFY_WITH_TIMEOUT(!loaded.isEmpty() || !failed.isEmpty(), 30000);
        QVERIFY2(failed.isEmpty(), failed.isEmpty() ? "" : qPrintable(failed.first().first().toString()));
    }

private Q_SLOTS:
    void initTestCase() {
        QCoreApplication::setOrganizationName(QStringLiteral("LinkscopeTests"));
        qputenv("XDG_CONFIG_HOME", dir_.path().toUtf8());  // keep QSettings out of the user's home
        qputenv("XDG_DATA_HOME", dir_.path().toUtf8());    // and the demo's project file
    }

    void opensTheDemoProject() {
        MainWindow window;
        window.show();
        waitLoaded(window);
        QVERIFY(window.project());
        QCOMPARE(window.documentModel()->rowCount(), 8);
        QCOMPARE(window.project()->splits.size(), std::size_t{2});
        QCOMPARE(window.project()->kb->entityCount(), std::size_t{35});
        QVERIFY(window.windowTitle().contains(QStringLiteral("Linkscope demo")));
    }

    void firstDocumentIsShownWithItsMentions() {
        MainWindow window;
        window.show();
        waitLoaded(window);
        DocumentView* view = window.documentView();
        const Document* first = window.documentModel()->documentAt(0);
        QVERIFY(first);
        QCOMPARE(view->mentionCount(), static_cast<int>(first->mentions.size()));
        // Every highlighted span shows exactly the mention's text: offsets survived the trip
        // from PubTator character offsets to the widget's UTF-16 positions.
        for (int i = 0; i < view->mentionCount(); ++i)
            QCOMPARE(view->mentionText(i), QString::fromStdString(first->mentions[static_cast<std::size_t>(i)].text));
        QVERIFY(view->plainDocumentText().startsWith(QString::fromStdString(first->title)));
    }

    void keyboardMovesBetweenMentions() {
        MainWindow window;
        window.show();
        waitLoaded(window);
        DocumentView* view = window.documentView();
        QCOMPARE(view->currentMention(), 0);
        QTest::keyClick(view, Qt::Key_N);
        QCOMPARE(view->currentMention(), 1);
        QTest::keyClick(view, Qt::Key_End);
        QCOMPARE(view->currentMention(), view->mentionCount() - 1);
        QTest::keyClick(view, Qt::Key_N);  // stays on the last one
        QCOMPARE(view->currentMention(), view->mentionCount() - 1);
        QTest::keyClick(view, Qt::Key_P);
        QCOMPARE(view->currentMention(), view->mentionCount() - 2);
        QTest::keyClick(view, Qt::Key_Home);
        QCOMPARE(view->currentMention(), 0);
    }

    void selectingAnotherDocumentShowsIt() {
        MainWindow window;
        window.show();
        waitLoaded(window);
        auto* table = window.findChild<QTableView*>();
        QVERIFY(table);
        table->selectRow(3);
        const QModelIndex proxy = table->model()->index(3, DocumentListModel::PmidColumn);
        const QString pmid = proxy.data().toString();
        QVERIFY(window.documentView()->plainDocumentText().size() > 0);
        const Document* shown = nullptr;
        for (const auto& split : window.project()->splits)
            if (const Document* d = split.corpus.find(pmid.toStdString())) shown = d;
        QVERIFY(shown);
        QVERIFY(window.documentView()->plainDocumentText().startsWith(QString::fromStdString(shown->title)));
        QCOMPARE(window.documentView()->mentionCount(), static_cast<int>(shown->mentions.size()));
    }

    void vocabularyDockShowsHomonyms() {
        MainWindow window;
        window.show();
        waitLoaded(window);
        auto* summary = window.findChild<VocabularyDock*>();
        QVERIFY(summary);
        // HD and MS are shared by two concepts each in the demo vocabulary.
        const QStringList homonyms = summary->homonymNames();
        QVERIFY2(homonyms.contains(QStringLiteral("HD")), qPrintable(homonyms.join(QLatin1Char(','))));
        QVERIFY(homonyms.contains(QStringLiteral("MS")));
        // The figures are counted on a worker and then shown: the entity count among them.
        const QString entities = QLocale().toString(static_cast<qulonglong>(window.project()->kb->entityCount()));
        QTRY_VERIFY_WITH_TIMEOUT(
            summary->figuresText().contains(QStringLiteral("Entities</td><td align=right>") + entities), 30000);
    }

    void manyHomonymsAreListedOverSeveralTurns() {
        // 600 names shared by two entities each: more than one turn's worth (250 names), so the
        // listing goes on over later turns of the event loop, in name order, each name once
        // with both entities; a new project (here none) stops a listing under way.
        kb::KnowledgeBaseBuilder builder;
        for (int n = 0; n < 600; ++n)
            for (int e = 0; e < 2; ++e) {
                const kb::EntityIndex entity = builder.entity("X:" + std::to_string(n) + "-" + std::to_string(e));
                builder.addName(entity, "Preferred " + std::to_string(n) + "-" + std::to_string(e));
                builder.addName(entity, "shared " + std::to_string(1000 + n));
            }
        auto project = std::make_shared<LoadedProject>();
        project->kb = std::make_unique<kb::KnowledgeBase>(builder.build());
        project->homonyms = std::make_unique<kb::HomonymExpansion>(kb::expandHomonyms(*project->kb));
        project->homonymPairs = homonymPairsByName(*project->kb, *project->homonyms);
        QCOMPARE(project->homonymPairs.size(), std::size_t{1200});

        VocabularyDock summary;
        summary.setProject(project);
        QCOMPARE(summary.homonymNames().size(), 250);  // the first turn's share, at once
        QTRY_COMPARE_WITH_TIMEOUT(summary.homonymNames().size(), 600, 10000);
        QStringList names = summary.homonymNames();
        QCOMPARE(names.front(), QStringLiteral("shared 1000"));
        QCOMPARE(names.back(), QStringLiteral("shared 1599"));
        QCOMPARE(names.removeDuplicates(), 0);

        summary.setProject(project);
        QCOMPARE(summary.homonymNames().size(), 250);
        summary.setProject(nullptr);
        QTest::qWait(50);
        QCOMPARE(summary.homonymNames().size(), 0);
    }

    void firstWindowFitsTheScreen() {
        QSettings().clear();  // no saved layout: a newcomer's first start
        MainWindow window;
        window.show();
        QVERIFY(QTest::qWaitForWindowExposed(&window));
        const QRect available = window.screen()->availableGeometry();
        QVERIFY2(available.contains(window.frameGeometry()),
                 qPrintable(QStringLiteral("window %1x%2 on a screen of %3x%4")
                                .arg(window.frameGeometry().width())
                                .arg(window.frameGeometry().height())
                                .arg(available.width())
                                .arg(available.height())));
        // The message log a strip at the bottom; the documents and the candidates beside the text.
        const auto* log = window.findChild<QDockWidget*>(QStringLiteral("diagnosticsDock"));
        const auto* documents = window.findChild<QDockWidget*>(QStringLiteral("documentsDock"));
        const auto* candidates = window.findChild<QDockWidget*>(QStringLiteral("candidatesDock"));
        QVERIFY(log && documents && candidates);
        QVERIFY2(log->height() <= window.height() / 4, qPrintable(QString::number(log->height())));
        QVERIFY(documents->width() >= window.width() / 5);
        QVERIFY(candidates->width() >= window.width() / 5);
    }

    void preferredNameIsNotCut() {
        MainWindow window;
        window.show();
        waitLoaded(window);
        QTRY_VERIFY_WITH_TIMEOUT(window.candidatesPanel()->model()->rowCount() > 0, 30000);
        const QTableView* table = window.candidatesPanel()->table();
        const QHeaderView* header = table->horizontalHeader();
        for (int row = 0; row < table->model()->rowCount(); ++row) {
            const QString name = table->model()->index(row, CandidateModel::PreferredNameColumn).data().toString();
            QVERIFY2(header->sectionSize(CandidateModel::PreferredNameColumn) >=
                         table->fontMetrics().horizontalAdvance(name),
                     qPrintable(name));
        }
    }

    void brokenManifestIsReportedNotCrashing() {
        const QString path = dir_.filePath(QStringLiteral("broken.json"));
        test::writeFile(path.toStdString(), "{ \"format\": \"linkscope-project-manifest\", ");
        MainWindow window;
        QSignalSpy failed(&window, &MainWindow::projectFailed);
        window.openProject(path);
        QTRY_VERIFY_WITH_TIMEOUT(!failed.isEmpty(), 30000);
        QVERIFY(failed.first().first().toString().contains(QStringLiteral("broken.json")));
        QVERIFY(window.messageLog()->plainText().contains(QStringLiteral("broken.json")));
        QCOMPARE(window.messageLog()->entries().back().category, MessageCategory::Error);
        QVERIFY(!window.project());
    }
};

QTEST_MAIN(TestMainWindow)
#include "test_main_window.moc"
