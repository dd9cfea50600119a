// The knowledge-base dock offscreen, on a small project this suite writes itself: the search
// model under QAbstractItemModelTester, typing and choosing in the search box, the entity page
// (synonyms, homonym marks, mentions linked by primary and alternative ids, link clicks), the
// PubTator highlighter's formats, and the raw file view loading files.
#include <QAbstractItemModelTester>
#include <QApplication>
#include <QLineEdit>
#include <QScrollBar>
#include <QSignalSpy>
#include <QTextBlock>
#include <QTextDocument>
#include <QTextLayout>
#include <QTimer>
#include <QTreeView>

#include "entity_page.h"
#include "entity_search_box.h"
#include "entity_search_model.h"
#include "gzip_fixture.h"
#include "kb/entity_search.h"
#include "knowledge_base_dock.h"
#include "project/loaded_project.h"
#include "project/project_manifest.h"
#include "pubtator_highlighter.h"
#include "raw_file_view.h"
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
    "100\t75\t103\tbreast and ovarian neoplasms\tCompositeMention\tD001943|D009369\n"
    "100\tCID\tD009369\tD006816\n";

// The Huntington mention is linked through the entity's alternative id (OMIM).
constexpr std::string_view kTest =
    "200|t|Hirschsprung disease in a child.\n"
    "200|a|Congenital megacolon (HD) is not Huntington disease.\n"
    "200\t0\t20\tHirschsprung disease\tSpecificDisease\tD006627\n"
    "200\t33\t53\tCongenital megacolon\tSpecificDisease\tD006627\n"
    "200\t55\t57\tHD\tSpecificDisease\tD006627\n"
    "200\t66\t84\tHuntington disease\tSpecificDisease\tOMIM:143100\n";

using Token = PubTatorHighlighter::Token;

struct Range {
    int start;
    int length;
    Token token;
    friend bool operator==(const Range&, const Range&) = default;
};

char* toString(const Range& r) {
    return QTest::toString(
        QStringLiteral("[%1+%2 token %3]").arg(r.start).arg(r.length).arg(static_cast<int>(r.token)));
}

}  // namespace

class TestKbDock : public QObject {
    Q_OBJECT
    QTemporaryDir dir_;
    QString manifestPath_;
    std::shared_ptr<const LoadedProject> project_;

    QString path(const QString& name) const { return dir_.filePath(name); }

    std::shared_ptr<const kb::EntitySearchIndex> indexOf(const std::shared_ptr<const LoadedProject>& project) const {
        auto index = std::make_shared<const kb::EntitySearchIndex>(*project->kb, project->homonyms.get());
        // The index refers to the project: keep it alive as long as the index.
        return std::shared_ptr<const kb::EntitySearchIndex>(index.get(),
                                                            [index, project](const kb::EntitySearchIndex*) {});
    }

    static void waitForIndex(KnowledgeBaseDock& dock) {
        QTRY_VERIFY_WITH_TIMEOUT(dock.searchIndex() != nullptr, 30000);
    }

    // The highlighter's format ranges of one block, as tokens (default-format text has none).
    static QList<Range> rangesOf(const QTextBlock& block, const PubTatorHighlighter& highlighter) {
        QList<Range> ranges;
        for (const QTextLayout::FormatRange& range : block.layout()->formats()) {
            int token = -1;
            for (int t = 0; t < PubTatorHighlighter::kTokenCount; ++t)
                if (range.format == highlighter.format(static_cast<Token>(t))) token = t;
            if (token < 0) {
                qWarning("a range with a format that is no token's at %d+%d", range.start, range.length);
                continue;
            }
            ranges.push_back({range.start, range.length, static_cast<Token>(token)});
        }
        std::sort(ranges.begin(), ranges.end(), [](const Range& a, const Range& b) { return a.start < b.start; });
        return ranges;
    }

private Q_SLOTS:
    void initTestCase() {
        QVERIFY(dir_.isValid());
        test::writeFile(path(QStringLiteral("kb.txt")).toStdString(), kKb);
        test::writeFile(path(QStringLiteral("train.txt")).toStdString(), kTrain);
        test::writeFile(path(QStringLiteral("test.txt")).toStdString(), kTest);
        manifestPath_ = path(QStringLiteral("project.json"));
        test::writeFile(manifestPath_.toStdString(), R"({
  "format": "linkscope-project-manifest", "version": 1, "name": "KB dock fixture",
  "knowledgeBase": { "path": "kb.txt", "format": "medic" },
  "corpora": [ { "split": "train", "path": "train.txt", "format": "pubtator" },
               { "split": "test", "path": "test.txt", "format": "pubtator" } ] })");
        project_ = std::make_shared<const LoadedProject>(loadProject(readProjectManifest(manifestPath_.toStdString())));
        QCOMPARE(project_->kb->entityCount(), std::size_t{5});
        QCOMPARE(project_->splits.size(), std::size_t{2});
    }

    void searchModelPassesTheModelTester() {
        EntitySearchModel model;
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        QCOMPARE(model.rowCount(), 0);
        model.setIndex(indexOf(project_));
        model.search(QStringLiteral("hd"));
        QCOMPARE(model.rowCount(), 2);  // both entities named "HD", once each
        QCOMPARE(model.columnCount(), static_cast<int>(EntitySearchModel::ColumnCount));
        const QSet<QString> ids{model.canonicalIdAt(0), model.canonicalIdAt(1)};
        QCOMPARE(ids, (QSet<QString>{QStringLiteral("MESH:D006816"), QStringLiteral("MESH:D006627")}));
        QCOMPARE(model.index(0, EntitySearchModel::MatchedNameColumn).data().toString(), QStringLiteral("HD"));
        QCOMPARE(model.index(0, 0).data(EntitySearchModel::MatchKindRole).toInt(),
                 static_cast<int>(kb::SearchMatch::ExactName));

        model.search(QStringLiteral("sjogren"));
        QCOMPARE(model.rowCount(), 1);
        QCOMPARE(model.index(0, EntitySearchModel::IdColumn).data().toString(), QStringLiteral("MESH:D012859"));
        QCOMPARE(model.index(0, EntitySearchModel::PreferredNameColumn).data().toString(),
                 QStringLiteral("Sj\u00F6gren's Syndrome"));
        QCOMPARE(model.index(0, 0).data(EntitySearchModel::CanonicalIdRole).toString(), QStringLiteral("MESH:D012859"));

        model.setLimit(2);
        model.search(QStringLiteral("e"));
        QCOMPARE(model.rowCount(), 2);
        model.search(QString());
        QCOMPARE(model.rowCount(), 0);
        model.search(QStringLiteral("D006816"));
        QCOMPARE(model.index(0, EntitySearchModel::MatchedNameColumn).data().toString(),
                 QStringLiteral("MESH:D006816"));
        model.setIndex(nullptr);
        QCOMPARE(model.rowCount(), 0);
        QVERIFY(!model.hitAt(0));
    }

    void typingInTheBoxGivesHits() {
        KnowledgeBaseDock dock;
        dock.show();
        QVERIFY(!dock.searchBox()->lineEdit()->isEnabled());  // until the index is built
        dock.setProject(project_);
        QVERIFY(dock.isIndexing());
        waitForIndex(dock);
        QVERIFY(!dock.isIndexing());
        QVERIFY(dock.lastIndexSeconds() > 0);
        QVERIFY(dock.searchBox()->lineEdit()->isEnabled());
        QTest::keyClicks(dock.searchBox()->lineEdit(), QStringLiteral("hunt"));
        EntitySearchModel* model = dock.searchBox()->model();
        QTRY_COMPARE(model->query(), QStringLiteral("hunt"));
        QCOMPARE(model->rowCount(), 1);
        QCOMPARE(model->canonicalIdAt(0), QStringLiteral("MESH:D006816"));
        QCOMPARE(dock.searchBox()->currentId(), QStringLiteral("MESH:D006816"));
        // A homonym-expanded name is found as the user types it.
        dock.searchBox()->lineEdit()->clear();
        QTest::keyClicks(dock.searchBox()->lineEdit(), QStringLiteral("HD (Hirsch"));
        QTRY_COMPARE(model->query(), QStringLiteral("HD (Hirsch"));
        QCOMPARE(model->rowCount(), 1);
        QCOMPARE(model->index(0, EntitySearchModel::MatchedNameColumn).data().toString(),
                 QStringLiteral("HD (Hirschsprung Disease)"));
    }

    void keyboardAndDoubleClickChoose() {
        KnowledgeBaseDock dock;
        dock.resize(900, 700);
        dock.show();
        QVERIFY(QTest::qWaitForWindowExposed(&dock));
        dock.activateWindow();
        QVERIFY(QTest::qWaitForWindowActive(&dock));
        dock.setProject(project_);
        waitForIndex(dock);
        EntitySearchBox* box = dock.searchBox();
        QSignalSpy chosen(box, &EntitySearchBox::entityChosen);
        QSignalSpy shown(&dock, &KnowledgeBaseDock::entityShown);

        box->lineEdit()->setFocus();
        QTest::keyClicks(box->lineEdit(), QStringLiteral("hd"));
        QTRY_COMPARE(box->model()->rowCount(), 2);
        const QString first = box->model()->canonicalIdAt(0);
        const QString second = box->model()->canonicalIdAt(1);
        // Enter in the field chooses the first hit.
        QTest::keyClick(box->lineEdit(), Qt::Key_Return);
        QCOMPARE(chosen.count(), 1);
        QCOMPARE(chosen.takeFirst().first().toString(), first);
        QCOMPARE(dock.entityPage()->currentId(), first);
        QCOMPARE(shown.count(), 1);

        // Down moves into the list, Down again to the second hit, Enter chooses it.
        QTest::keyClick(box->lineEdit(), Qt::Key_Down);
        QTRY_VERIFY(box->resultView()->hasFocus());
        QTest::keyClick(box->resultView(), Qt::Key_Down);
        QCOMPARE(box->currentId(), second);
        QCOMPARE(dock.entityPage()->currentId(), second);  // browsing previews the entity
        QTest::keyClick(box->resultView(), Qt::Key_Return);
        QCOMPARE(chosen.count(), 1);
        QCOMPARE(chosen.takeFirst().first().toString(), second);
        // Up from the first row goes back to the field.
        QTest::keyClick(box->resultView(), Qt::Key_Up);
        QTest::keyClick(box->resultView(), Qt::Key_Up);
        QTRY_VERIFY(box->lineEdit()->hasFocus());

        // A double-click on a row chooses it.
        QTreeView* view = box->resultView();
        const QRect rect = view->visualRect(box->model()->index(0, EntitySearchModel::IdColumn));
        QVERIFY(view->viewport()->rect().contains(rect.center()));
        // (QTest sends a widget only the double-click event; a real one follows a press.)
        QTest::mouseClick(view->viewport(), Qt::LeftButton, {}, rect.center());
        QTest::mouseDClick(view->viewport(), Qt::LeftButton, {}, rect.center());
        QCOMPARE(chosen.count(), 1);
        QCOMPARE(chosen.takeFirst().first().toString(), first);
    }

    void entityPageShowsNamesHomonymsAndMentions() {
        EntityPage page;
        page.setProject(project_);
        QVERIFY(page.showEntity(QStringLiteral("D006816")));  // short MeSH form accepted
        const EntityPage::Contents& c = page.contents();
        QCOMPARE(c.id, QStringLiteral("MESH:D006816"));
        QCOMPARE(c.preferredName, QStringLiteral("Huntington Disease"));
        QCOMPARE(c.alternativeIds, QStringList{QStringLiteral("OMIM:143100")});
        QCOMPARE(c.synonyms, (QStringList{QStringLiteral("Huntington's Disease"), QStringLiteral("Huntington Chorea"),
                                          QStringLiteral("HD")}));
        QCOMPARE(c.homonymNames, QStringList{QStringLiteral("HD")});
        QCOMPARE(c.expandedNames,
                 (QStringList{QStringLiteral("Huntington Disease"), QStringLiteral("Huntington's Disease"),
                              QStringLiteral("Huntington Chorea"), QStringLiteral("HD (Huntington Disease)")}));
        // Two train mentions by the primary id, one test mention by the OMIM id.
        QCOMPARE(c.linkedMentions, 3);
        QCOMPARE(c.mentionLinks,
                 (QStringList{QStringLiteral("mention:train/100/0/18"), QStringLiteral("mention:train/100/38/40"),
                              QStringLiteral("mention:test/200/66/84")}));
        const QString text = page.toPlainText();
        QVERIFY(text.contains(QStringLiteral("HD (Huntington Disease)")));
        QVERIFY2(text.contains(QStringLiteral("MESH:D006627")), "the other entity named HD is listed");

        // A composite mention is linked to each of its parts.
        QVERIFY(page.showEntity(QStringLiteral("MESH:D009369")));
        QCOMPARE(page.contents().linkedMentions, 2);
        QVERIFY(page.contents().homonymNames.isEmpty());
        QVERIFY(page.showEntity(QStringLiteral("MESH:D012859")));
        QCOMPARE(page.contents().linkedMentions, 0);

        QVERIFY(!page.showEntity(QStringLiteral("MESH:D999999")));
        QVERIFY(page.currentId().isEmpty());
    }

    void entityPageLinksEmitSignals() {
        KnowledgeBaseDock dock;
        dock.setProject(project_);
        QSignalSpy mentions(&dock, &KnowledgeBaseDock::mentionActivated);
        QSignalSpy shown(&dock, &KnowledgeBaseDock::entityShown);
        QVERIFY(dock.showEntity(QStringLiteral("MESH:D006627")));
        EntityPage* page = dock.entityPage();
        QCOMPARE(page->contents().mentionLinks.size(), 3);
        page->activateLink(QUrl(page->contents().mentionLinks.at(1)));
        QCOMPARE(mentions.count(), 1);
        QCOMPARE(mentions.first(), (QVariantList{QStringLiteral("test"), QStringLiteral("200"), 33, 53}));
        // The other entity named "HD" is one click away.
        page->activateLink(QUrl(QStringLiteral("entity:MESH%3AD006816")));
        QCOMPARE(page->currentId(), QStringLiteral("MESH:D006816"));
        QCOMPARE(shown.last().first().toString(), QStringLiteral("MESH:D006816"));
        // Split names and PMIDs survive any character.
        const QUrl odd = EntityPage::mentionUrl(QStringLiteral("Dev Set/2 ü"), QStringLiteral("PMC 7/1"), 4, 9);
        page->activateLink(odd);
        QCOMPARE(mentions.last(), (QVariantList{QStringLiteral("Dev Set/2 ü"), QStringLiteral("PMC 7/1"), 4, 9}));
        page->activateLink(QUrl(QStringLiteral("mention:train/100/x/9")));  // malformed: ignored
        QCOMPARE(mentions.count(), 2);
    }

    void replacingTheProjectWhileIndexing() {
        const auto other =
            std::make_shared<const LoadedProject>(loadProject(readProjectManifest(manifestPath_.toStdString())));
        KnowledgeBaseDock dock;
        QSignalSpy ready(&dock, &KnowledgeBaseDock::searchIndexReady);
        dock.setProject(project_);
        dock.setProject(other);
        waitForIndex(dock);
        QCOMPARE(&dock.searchIndex()->knowledgeBase(), other->kb.get());
        QTest::qWait(50);  // a stale result, if any, would arrive now
        QCOMPARE(ready.count(), 1);
        QCOMPARE(&dock.searchIndex()->knowledgeBase(), other->kb.get());
        dock.setProject(nullptr);
        QVERIFY(!dock.searchIndex());
        QVERIFY(!dock.searchBox()->lineEdit()->isEnabled());
    }

    void highlighterFormatsTheRightRanges() {
        QTextDocument document;
        PubTatorHighlighter highlighter(&document);
        document.setPlainText(
            QStringLiteral("100|t|Title text\n"
                           "100|a|Abstract text\n"
                           "100\t0\t5\tTitle\tDisease\tD000001\n"
                           "100\t2\tx9\tle\tDisease\tD1|D2\tpart one|part two\n"
                           "100\tCID\tD009369\tD006816\n"
                           "\n"
                           "not a pubtator line\n"
                           "100\t1\t2\n"));
        // A QTextDocument without a view has no layout, so it reports no contents change and
        // the highlighter has not run yet.
        highlighter.rehighlight();
        const auto block = [&](int n) { return rangesOf(document.findBlockByNumber(n), highlighter); };
        QCOMPARE(block(0), (QList<Range>{{0, 3, Token::Pmid}, {3, 3, Token::Marker}, {6, 10, Token::Title}}));
        QCOMPARE(block(1), (QList<Range>{{0, 3, Token::Pmid}, {3, 3, Token::Marker}}));  // abstract: default format
        QCOMPARE(block(2), (QList<Range>{{0, 3, Token::Pmid},
                                         {4, 1, Token::Offset},
                                         {6, 1, Token::Offset},
                                         {8, 5, Token::MentionText},
                                         {14, 7, Token::MentionType},
                                         {22, 7, Token::ConceptId}}));
        QCOMPARE(block(3), (QList<Range>{{0, 3, Token::Pmid},
                                         {4, 1, Token::Offset},
                                         {6, 2, Token::Error},
                                         {9, 2, Token::MentionText},
                                         {12, 7, Token::MentionType},
                                         {20, 5, Token::ConceptId},
                                         {26, 17, Token::MentionText}}));
        QCOMPARE(block(4), (QList<Range>{{0, 3, Token::Pmid},
                                         {4, 3, Token::RelationType},
                                         {8, 7, Token::ConceptId},
                                         {16, 7, Token::ConceptId}}));
        QCOMPARE(block(5), QList<Range>{});
        QCOMPARE(block(6), (QList<Range>{{0, 19, Token::Error}}));
        QCOMPARE(block(7), (QList<Range>{{0, 7, Token::Error}}));
    }

    void rawViewLoadsAFile() {
        RawFileView view;
        QVERIFY(view.highlighter());
        if (!RawFileView::usesKSyntaxHighlighting()) QVERIFY(qobject_cast<PubTatorHighlighter*>(view.highlighter()));
        QSignalSpy loaded(&view, &RawFileView::fileLoaded);
        view.loadFile(path(QStringLiteral("train.txt")));
        view.goToLine(3);  // before the file is there: applied once it is
        QTRY_COMPARE_WITH_TIMEOUT(loaded.count(), 1, 30000);
        QCOMPARE(loaded.first().at(1).toInt(), 8);
        QCOMPARE(view.toPlainText() + QLatin1Char('\n'),
                 QString::fromUtf8(kTrain.data(), static_cast<qsizetype>(kTrain.size())));
        QCOMPARE(view.currentLine(), 3);
        QVERIFY(view.textCursor().block().text().startsWith(QStringLiteral("100\t0\t18\t")));
        view.goToLine(100);  // clamped to the last line
        QCOMPARE(view.currentLine(), 8);
        // The view's document is highlighted (first line: PMID, marker, title).
        QVERIFY(!view.document()->firstBlock().layout()->formats().isEmpty());

        // gzip-compressed corpora are shown as text too.
        const QString gz = path(QStringLiteral("test.txt.gz"));
        test::writeGzip(gz.toStdString(), kTest);
        view.loadFile(gz);
        QTRY_COMPARE_WITH_TIMEOUT(loaded.count(), 2, 30000);
        QCOMPARE(view.toPlainText() + QLatin1Char('\n'),
                 QString::fromUtf8(kTest.data(), static_cast<qsizetype>(kTest.size())));
    }

    void rawViewShowsAWindowOfALargeFile() {
        // 5,000 lines, more than a window: the view holds kWindowLines of them around the line
        // asked for, numbered as in the file, laid out one piece of 256 lines a turn (no time
        // budget): nothing lost or doubled at the seams; another line outside the window moves it;
        // scrolling to the window's last line moves it on, keeping the line on top in place.
        std::string big;
        for (int i = 1; i <= 5000; ++i)
            big += std::to_string(1000 + i) + "|t|Title of document " + std::to_string(i) + "\n";
        const QString bigPath = path(QStringLiteral("big.txt"));
        test::writeFile(bigPath.toStdString(), big);
        const auto linesOf = [&](int first, int last) {  // the file's lines first..last, 1-based
            QString text;
            for (int i = first; i <= last; ++i)
                text += QStringLiteral("%1|t|Title of document %2\n").arg(1000 + i).arg(i);
            return text;
        };
        RawFileView view;
        view.resize(600, 400);
        view.show();
        view.setLayoutBudgetMs(0);
        QSignalSpy loaded(&view, &RawFileView::fileLoaded);
        view.loadFile(bigPath);
        view.goToLine(4321);
        QTRY_COMPARE_WITH_TIMEOUT(loaded.count(), 1, 30000);
        QCOMPARE(loaded.first().at(1).toInt(), 5000);
        QCOMPARE(view.fileLineCount(), 5000);
        QVERIFY(!view.isLoading());
        const int window = RawFileView::kWindowLines;
        QCOMPARE(view.lastShownLine() - view.firstShownLine() + 1, window);
        QCOMPARE(view.lastShownLine(), 5000);  // the window is clamped to the file's end
        QCOMPARE(view.toPlainText() + QLatin1Char('\n'), linesOf(view.firstShownLine(), view.lastShownLine()));
        QCOMPARE(view.currentLine(), 4321);
        QVERIFY(view.textCursor().block().text().startsWith(QStringLiteral("5321|t|")));

        // A line before the window: the window moves to it.
        view.goToLine(10);
        QTRY_VERIFY_WITH_TIMEOUT(!view.isLoading(), 30000);
        QCOMPARE(view.firstShownLine(), 1);
        QCOMPARE(view.currentLine(), 10);
        QVERIFY(view.textCursor().block().text().startsWith(QStringLiteral("1010|t|")));
        QCOMPARE(view.toPlainText() + QLatin1Char('\n'), linesOf(1, window));

        // Scrolled to the window's last line: the next lines come, the top line stays on top.
        const int bottom = view.verticalScrollBar()->maximum();
        QVERIFY(bottom > 0);
        const int top = view.firstShownLine() + bottom;  // the first visible line once scrolled there
        view.verticalScrollBar()->setValue(bottom);
        QTRY_VERIFY_WITH_TIMEOUT(!view.isLoading() && view.lastShownLine() > window, 30000);
        QVERIFY(view.firstShownLine() > 1);
        QCOMPARE(view.firstShownLine() + view.verticalScrollBar()->value(), top);
        QCOMPARE(view.toPlainText() + QLatin1Char('\n'), linesOf(view.firstShownLine(), view.lastShownLine()));
        QCOMPARE(loaded.count(), 1);  // moving the window is no new file

        // Another file while a window is laid out: asked for on the turn after the big file's
        // first lines went in (zero-time timers run in order, so before its next lines); only
        // the second file is shown, and once.
        bool asked = false;
        const auto connection = connect(view.document(), &QTextDocument::contentsChange, this, [&] {
            if (asked || !view.isLoading() || view.document()->blockCount() < 2) return;
            asked = true;
            QTimer::singleShot(0, &view, [&] { view.loadFile(path(QStringLiteral("train.txt"))); });
        });
        view.loadFile(bigPath);
        QTRY_COMPARE_WITH_TIMEOUT(loaded.count(), 2, 30000);
        disconnect(connection);
        QVERIFY(asked);
        QCOMPARE(view.toPlainText() + QLatin1Char('\n'),
                 QString::fromUtf8(kTrain.data(), static_cast<qsizetype>(kTrain.size())));
        QCOMPARE(view.firstShownLine(), 1);
        QTest::qWait(50);
        QCOMPARE(loaded.count(), 2);
        QCOMPARE(loaded.last().at(1).toInt(), 8);
    }

    void rawViewReportsBrokenFiles() {
        RawFileView view;
        QSignalSpy failed(&view, &RawFileView::loadFailed);
        view.loadFile(path(QStringLiteral("missing.txt")));
        QTRY_COMPARE_WITH_TIMEOUT(failed.count(), 1, 30000);
        QVERIFY(failed.first().at(1).toString().contains(QStringLiteral("missing.txt")));
        QVERIFY(view.toPlainText().isEmpty());

        const QString bad = path(QStringLiteral("bad.txt"));
        test::writeFile(bad.toStdString(), "100|t|fine\n100|a|not \xC3( UTF-8\n");
        view.loadFile(bad);
        QTRY_COMPARE_WITH_TIMEOUT(failed.count(), 2, 30000);
        QVERIFY2(failed.last().at(1).toString().contains(QStringLiteral("bad.txt:2")),
                 qPrintable(failed.last().at(1).toString()));
    }
};

QTEST_MAIN(TestKbDock)
#include "test_kb_dock.moc"
