// The review queue in the main window, offscreen on the demo project: F8 selects the
// first mention of the queue in the document view and the Candidates dock, a decision takes it
// out of the queue and F8 moves on, and the Documents dock's "Worth reviewing" filter keeps the
// documents with something worth a look, the most worthwhile first; selecting a candidate
// previews the mentions "Apply to all" would change, and exactly those change once applied.
#include <QApplication>
#include <QComboBox>
#include <QDir>
#include <QListWidget>
#include <QPushButton>
#include <QSignalSpy>
#include <QTableView>
#include <limits>

#include "candidate_model.h"
#include "candidates_panel.h"
#include "corpus/corpus.h"
#include "curation_session.h"
#include "document_list_model.h"
#include "document_view.h"
#include "main_window.h"
#include "project/loaded_project.h"
#include "project/project_store.h"
#include "reach_preview.h"
#include "review_queue_order.h"
#include "test_data.h"

using namespace linkscope;
using namespace linkscope::ui;

class TestReviewQueueUi : public QObject {
    Q_OBJECT
    QTemporaryDir dir_;
    int copies_ = 0;

    QString copyDemo() {
        const QString source = QString::fromUtf8(LINKSCOPE_SOURCE_DIR) + QStringLiteral("/resources/demo");
        const QString target = dir_.filePath(QStringLiteral("demo-%1").arg(++copies_));
        QDir().mkpath(target);
        for (const QString& name : QDir(source).entryList(QDir::Files))
            if (!QFile::copy(source + QLatin1Char('/') + name, target + QLatin1Char('/') + name)) return {};
        return target + QStringLiteral("/demo-project.json");
    }
    // Opens a project and waits until every mention's proposal is known (the queue reads them).
    static bool openDemo(MainWindow& window, const QString& manifest) {
        QSignalSpy loaded(&window, &MainWindow::projectLoaded);
        window.openProject(manifest);
        if (!QTest::qWaitFor([&] { return !loaded.isEmpty() && window.session()->rankers()->proposalsAvailable(); },
                             30000))
            return false;
        window.activateWindow();
        if (!QTest::qWaitForWindowActive(&window)) return false;
        window.documentView()->setFocus();
        return true;
    }

private Q_SLOTS:
    void initTestCase() {
        QCoreApplication::setOrganizationName(QStringLiteral("LinkscopeTests"));
        qputenv("XDG_CONFIG_HOME", dir_.path().toUtf8());
        qputenv("XDG_DATA_HOME", dir_.path().toUtf8());
    }

    void f8SelectsTheFirstMentionOfTheQueue() {
        MainWindow window;
        window.show();
        QVERIFY(openDemo(window, copyDemo()));
        const auto queue = reviewQueueOf(*window.session());
        QVERIFY(!queue.empty());
        QVERIFY(queue.front().priority > 0.0);  // the demo has doubtful mentions ("HD" names two entities)
        for (std::size_t i = 1; i < queue.size(); ++i) QVERIFY(queue[i - 1].priority >= queue[i].priority);

        QTest::keyClick(window.documentView(), Qt::Key_F8);
        QCOMPARE(window.currentMentionKey(), std::optional<project::MentionKey>(queue.front().key));
        QVERIFY(window.candidatesPanel()->model()->rowCount() > 0);  // the dock shows its candidates

        // Accepting it takes it out of the queue; F8 then goes to the next one.
        QTest::keyClick(window.documentView(), Qt::Key_Return);
        QVERIFY(window.session()->decisions()->currentDecision(queue.front().key).has_value());
        const auto after = reviewQueueOf(*window.session());
        QCOMPARE(after.size(), queue.size() - 1);
        for (const QueuedMention& entry : after) QVERIFY(!(entry.key == queue.front().key));
        QTest::keyClick(window.documentView(), Qt::Key_F8);
        QCOMPARE(window.currentMentionKey(), std::optional<project::MentionKey>(after.front().key));
    }

    void worthReviewingFilterKeepsAndSortsByPriority() {
        MainWindow window;
        window.show();
        QVERIFY(openDemo(window, copyDemo()));
        auto* filter = window.findChild<QComboBox*>(QStringLiteral("reviewFilter"));
        auto* table = window.findChild<QTableView*>(QStringLiteral("documentTable"));
        QVERIFY(filter && table);
        const int all = table->model()->rowCount();
        const int item = filter->findText(QStringLiteral("Worth reviewing (queue order)"));
        QVERIFY(item >= 0);
        filter->setCurrentIndex(item);

        const auto priorities = documentPriorities(reviewQueueOf(*window.session()));
        int expected = 0;
        for (const auto& [document, priority] : priorities) expected += priority > 0.0 ? 1 : 0;
        QVERIFY(expected > 0);
        QVERIFY(expected < all);  // some demo documents hold nothing doubtful
        const Document* current = window.currentDocument();
        double previous = std::numeric_limits<double>::infinity();
        int shown = 0;
        for (int row = 0; row < table->model()->rowCount(); ++row) {
            const QModelIndex index = table->model()->index(row, DocumentListModel::PmidColumn);
            const std::string pmid = index.data().toString().toStdString();
            const int split = index.data(DocumentListModel::SplitIndexRole).toInt();
            const std::string splitName = window.project()->splits[static_cast<std::size_t>(split)].split;
            const auto found = priorities.find({splitName, pmid});
            const double priority = found == priorities.end() ? 0.0 : found->second;
            // The document being curated stays listed (pinned) whatever its priority.
            if (current && current->pmid() == pmid && priority <= 0.0) continue;
            QVERIFY2(priority > 0.0, pmid.c_str());
            QVERIFY(priority <= previous);
            previous = priority;
            ++shown;
        }
        QCOMPARE(shown, expected);

        // Back to every document, in file order.
        filter->setCurrentIndex(0);
        QCOMPARE(table->model()->rowCount(), all);
    }

    void reachPreviewListsWhatApplyToAllThenChanges() {
        MainWindow window;
        window.show();
        QVERIFY(openDemo(window, copyDemo()));
        // The first "HD" of the Huntington abstract (expanded, so proposed as Huntington's).
        QVERIFY(window.showMention(QStringLiteral("train"), QStringLiteral("90000001"), 90, 92));
        const auto key = window.currentMentionKey();
        QVERIFY(key);
        auto* table = window.candidatesPanel()->table();
        int row = -1;
        for (int r = 0; r < table->model()->rowCount(); ++r)
            if (table->model()->index(r, 0).data(CandidateModel::EntityIdRole).toString() ==
                QStringLiteral("MESH:D006627"))
                row = r;
        QVERIFY2(row >= 0, "Hirschsprung's disease is among the candidates of HD");
        table->selectRow(row);
        ReachPreview* preview = window.candidatesPanel()->reachPreview();
        QVERIFY(preview->isVisible());
        QVERIFY(preview->count() > 0);  // the other "HD" of the abstract proposes Huntington's
        const std::vector<project::MentionKey> previewed = preview->keys();
        QVERIFY(preview->summary().contains(QString::number(preview->count())));
        QCOMPARE(window.session()->decisions()->store()->decisionCount(), std::size_t{0});  // nothing stored by looking

        // A click in the list goes to that mention; back, the same preview.
        auto* list = preview->findChild<QListWidget*>(QStringLiteral("reachList"));
        QVERIFY(list && list->count() == preview->count());
        Q_EMIT list->itemActivated(list->item(0));
        QCOMPARE(window.currentMentionKey(), std::optional<project::MentionKey>(previewed.front()));
        QVERIFY(window.showMention(QStringLiteral("train"), QStringLiteral("90000001"), 90, 92));
        table->selectRow(row);
        QCOMPARE(preview->keys(), previewed);

        // Choosing it, then "Apply to all": exactly the previewed mentions get the link.
        QVERIFY(window.candidatesPanel()->pick(row + 1));
        auto* apply = window.findChild<QPushButton*>(QStringLiteral("applyToAll"));
        QVERIFY(apply && apply->isVisible());
        apply->click();
        for (const project::MentionKey& other : previewed) {
            const auto decision = window.session()->decisions()->currentDecision(other);
            QVERIFY(decision);
            QCOMPARE(decision->newLink, std::string("MESH:D006627"));
        }
        QCOMPARE(window.session()->decisions()->store()->decisionCount(), previewed.size() + 1);

        // Back on the first "HD": every "HD" that proposed otherwise is decided now.
        QVERIFY(window.showMention(QStringLiteral("train"), QStringLiteral("90000001"), 90, 92));
        table->selectRow(row);
        QCOMPARE(preview->count(), 0);
    }
};

QTEST_MAIN(TestReviewQueueUi)
#include "test_review_queue_ui.moc"
