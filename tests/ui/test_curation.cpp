// Curation in the main window, offscreen, as a curator works: open the demo project, select a
// mention, accept with Enter, correct with a number key, reject, undo and redo with the Edit
// menu's keys, close, reopen -- and check after each step what the project file holds, not
// only what the window shows.
#include <QAbstractItemModelTester>
#include <QApplication>
#include <QComboBox>
#include <QDir>
#include <QFileInfo>
#include <QLabel>
#include <QLineEdit>
#include <QListWidget>
#include <QPushButton>
#include <QSignalSpy>
#include <QTableView>
#include <QUndoStack>

#include "candidate_model.h"
#include "candidates_panel.h"
#include "corpus/corpus.h"
#include "curation/project_export.h"
#include "curation/sparse_candidates.h"
#include "curation_session.h"
#include "document_list_model.h"
#include "document_review.h"
#include "document_view.h"
#include "entity_search_box.h"
#include "entity_search_model.h"
#include "kb/knowledge_base.h"
#include "main_window.h"
#include "project/loaded_project.h"
#include "project/project_manifest.h"
#include "project/project_store.h"
#include "test_data.h"

using namespace linkscope;
using namespace linkscope::ui;

class TestCuration : public QObject {
    Q_OBJECT
    QTemporaryDir dir_;

    int copies_ = 0;

    // A fresh copy of the demo project per test: its project file (kept per manifest path)
    // then starts empty, whatever the other tests decided.
    QString copyDemo() {
        const QString source = QString::fromUtf8(LINKSCOPE_SOURCE_DIR) + QStringLiteral("/resources/demo");
        const QString target = dir_.filePath(QStringLiteral("demo-%1").arg(++copies_));
        QDir().mkpath(target);
        for (const QString& name : QDir(source).entryList(QDir::Files))
            if (!QFile::copy(source + QLatin1Char('/') + name, target + QLatin1Char('/') + name)) return {};
        return target + QStringLiteral("/demo-project.json");
    }
    // Opens a project and waits until the candidates are ranked.
    static bool openDemo(MainWindow& window, const QString& manifest) {
        QSignalSpy loaded(&window, &MainWindow::projectLoaded);
        window.openProject(manifest);
        if (!QTest::qWaitFor([&] { return !loaded.isEmpty() && window.session()->rankers()->sparseRankerBuilt(); },
                             30000))
            return false;
        // Window shortcuts (the curation keys) fire only in the active window.
        window.activateWindow();
        if (!QTest::qWaitForWindowActive(&window)) return false;
        window.documentView()->setFocus();
        return true;
    }
    static project::MentionKey keyOf(const MainWindow& window, int mention) {
        const Document* document = window.currentDocument();
        const Mention& m = document->mentions.at(static_cast<std::size_t>(mention));
        return {"train", document->pmid(), m.start, m.end};
    }
    static std::unique_ptr<project::ProjectStore> reopenStore(const MainWindow& window) {
        return std::make_unique<project::ProjectStore>(
            project::ProjectStore::open(window.session()->decisions()->projectFile().toStdString()));
    }

private Q_SLOTS:
    void initTestCase() {
        QCoreApplication::setOrganizationName(QStringLiteral("LinkscopeTests"));
        qputenv("XDG_CONFIG_HOME", dir_.path().toUtf8());
        qputenv("XDG_DATA_HOME", dir_.path().toUtf8());  // the demo's project file goes here
    }

    void candidatesOfTheSelectedMention() {
        MainWindow window;
        window.show();
        QVERIFY(openDemo(window, copyDemo()));
        CandidateModel* model = window.candidatesPanel()->model();
        QAbstractItemModelTester tester(model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        // The first mention of the first document is "Huntington disease", a MEDIC name of
        // MESH:D006816: the sparse ranker puts it first, and it is the gold.
        const Document* document = window.currentDocument();
        QVERIFY(document);
        QCOMPARE(document->mentions.front().text, std::string("Huntington disease"));
        QVERIFY(model->rowCount() > 1);
        QCOMPARE(model->index(0, CandidateModel::EntityColumn).data().toString(), QStringLiteral("MESH:D006816"));
        QCOMPARE(model->index(0, CandidateModel::GoldColumn).data().toString(), QStringLiteral("✓"));
        QCOMPARE(model->index(0, CandidateModel::PreferredNameColumn).data().toString(),
                 QStringLiteral("Huntington Disease"));
        QVERIFY(model->index(0, 0).data(CandidateModel::IsCurrentRole).toBool());
        // The rows are the core ranker's, in its order and with its sparse scores.
        const curation::SparseCandidates reference(*window.project()->kb, true);
        const auto expected = reference.rank(document->mentions.front().text, 20);
        QCOMPARE(model->rowCount(), static_cast<int>(expected.size()));
        for (int row = 0; row < model->rowCount(); ++row) {
            QCOMPARE(model->index(row, CandidateModel::EntityColumn).data().toString(),
                     QString::fromStdString(expected[static_cast<std::size_t>(row)].entity));
            QCOMPARE(model->index(row, CandidateModel::SparseColumn).data().toString(),
                     QString::number(static_cast<double>(*expected[static_cast<std::size_t>(row)].sparse), 'f', 4));
        }
        // Moving to the next mention shows its candidates.
        QTest::keyClick(window.documentView(), Qt::Key_N);
        QCOMPARE(window.documentView()->currentMention(), 1);
        QCOMPARE(model->index(0, CandidateModel::EntityColumn).data().toString(), QStringLiteral("MESH:D006816"));
    }

    // Until the sparse ranker is built (a long wait on a UMLS-size KB) a mention gets the entities
    // its text names exactly, and the ranker's description says so; then the ranker's.
    void exactNamesUntilTheRankerIsBuilt() {
        const QString manifest = copyDemo();
        QVERIFY(!manifest.isEmpty());
        const auto project =
            std::make_shared<const LoadedProject>(loadProject(readProjectManifest(manifest.toStdString())));
        CurationSession session;
        QSignalSpy ready(session.rankers(), &RankerHost::rankerReady);
        QCOMPARE(session.open(project, dir_.filePath(QStringLiteral("exact-names.linkscope"))), QString());
        // No event has been processed since open(): the ranker's result cannot have arrived.
        QVERIFY(!session.rankers()->sparseRankerBuilt());
        const SplitCorpus* train = nullptr;
        for (const SplitCorpus& split : project->splits)
            if (split.split == "train") train = &split;
        QVERIFY(train);
        const Document& document = train->corpus.documents().front();
        const Mention& mention = document.mentions.front();
        QCOMPARE(mention.text, std::string("Huntington disease"));
        const project::MentionKey key{"train", document.pmid(), mention.start, mention.end};
        const auto early = session.rankers()->rankCandidates(key, mention);
        QCOMPARE(early.size(), std::size_t{1});
        QCOMPARE(early[0].entity, std::string("MESH:D006816"));
        QCOMPARE(early[0].matchedName, std::string("Huntington Disease"));  // MEDIC's heading, title case
        QVERIFY(session.rankers()->rankerDescription().contains(QStringLiteral("exact names")));
        QCOMPARE(session.rankers()->proposedLink(key, mention), std::string("MESH:D006816"));

        QVERIFY(ready.wait(30000));
        QVERIFY(session.rankers()->sparseRankerBuilt());
        const auto ranked = session.rankers()->rankCandidates(key, mention);
        QVERIFY(ranked.size() > 1);
        QVERIFY(ranked[0].sparse.has_value());
        QVERIFY(!session.rankers()->rankerDescription().contains(QStringLiteral("exact names")));
    }

    // "HD" in a document that writes "Huntington disease (HD)": the view marks it and names the
    // expansion, and the sparse ranker ranks the expansion, as the evaluation's queries do.
    void abbreviationsAreShownAndRankedExpanded() {
        MainWindow window;
        window.show();
        QVERIFY(openDemo(window, copyDemo()));
        const Document* document = window.currentDocument();
        QCOMPARE(document->mentions.at(2).text, std::string("HD"));
        const MentionSpan& span = window.documentView()->spans().at(2);
        QCOMPARE(span.expansion, QStringLiteral("Huntington disease"));
        QVERIFY2(span.tooltip.contains(QStringLiteral("HD = Huntington disease")), qPrintable(span.tooltip));
        QVERIFY(window.documentView()->spans().at(0).expansion.isEmpty());  // the long form itself
        const curation::SparseCandidates reference(*window.project()->kb, true);
        const auto expected = reference.rank("Huntington disease", 5);
        const auto rows = window.session()->rankers()->rankCandidates(keyOf(window, 2), document->mentions.at(2), 5);
        QCOMPARE(rows.size(), expected.size());
        for (std::size_t i = 0; i < rows.size(); ++i) QCOMPARE(rows[i].entity, expected[i].entity);
        QVERIFY(reference.rank("HD", 1).front().score < rows.front().score);  // "HD" alone ranks worse
        window.documentView()->selectMention(2);
        const auto* summary = window.candidatesPanel()->findChild<QLabel*>(QStringLiteral("mentionSummary"));
        QVERIFY(summary);
        QVERIFY2(summary->text().contains(QStringLiteral("linked as “Huntington disease”")),
                 qPrintable(summary->text()));
    }

    void acceptCorrectRejectUndoRedoAndReopen() {
        const QString manifest = copyDemo();
        QString projectFile;
        project::MentionKey first, second;
        QString secondChoice;
        {
            MainWindow window;
            window.show();
            QVERIFY(openDemo(window, manifest));
            projectFile = window.session()->decisions()->projectFile();
            QVERIFY(QFileInfo::exists(projectFile));
            const std::size_t before = window.session()->decisions()->store()->decisionCount();

            // Enter accepts the top candidate of mention 0; the file holds it at once.
            first = keyOf(window, 0);
            QTest::keyClick(window.documentView(), Qt::Key_Return);
            {
                const auto store = reopenStore(window);
                QCOMPARE(store->decisionCount(), before + 1);
                const auto decision = store->currentDecision(first);
                QVERIFY(decision);
                QCOMPARE(decision->kind, project::DecisionKind::Accept);
                QCOMPARE(decision->newLink, std::string("MESH:D006816"));
                QCOMPARE(decision->previousLink, std::string("MESH:D006816"));
                QCOMPARE(decision->mentionText, std::string("Huntington disease"));
            }
            QCOMPARE(window.documentView()->spans().at(0).state, MentionState::Accepted);

            // Key 2 on mention 1 corrects it to the second candidate.
            QTest::keyClick(window.documentView(), Qt::Key_N);
            second = keyOf(window, 1);
            secondChoice = window.candidatesPanel()->model()->index(1, CandidateModel::EntityColumn).data().toString();
            QVERIFY(!secondChoice.isEmpty());
            QTest::keyClick(window.documentView(), Qt::Key_2);
            {
                const auto decision = reopenStore(window)->currentDecision(second);
                QVERIFY(decision);
                QCOMPARE(decision->kind, project::DecisionKind::Correct);
                QCOMPARE(QString::fromStdString(decision->newLink), secondChoice);
            }
            QCOMPARE(window.documentView()->spans().at(1).state, MentionState::Corrected);
            // The candidate list now marks the corrected entity as the link in effect.
            CandidateModel* model = window.candidatesPanel()->model();
            QVERIFY(model->index(1, 0).data(CandidateModel::IsCurrentRole).toBool());

            // R rejects it; undo (Ctrl+Z) brings the correction back, redo the rejection.
            QTest::keyClick(window.documentView(), Qt::Key_R);
            QCOMPARE(reopenStore(window)->currentDecision(second)->kind, project::DecisionKind::Reject);
            QCOMPARE(window.documentView()->spans().at(1).state, MentionState::Rejected);
            QTest::keyClick(window.documentView(), Qt::Key_Z, Qt::ControlModifier);
            QCOMPARE(reopenStore(window)->currentDecision(second)->kind, project::DecisionKind::Correct);
            QCOMPARE(window.documentView()->spans().at(1).state, MentionState::Corrected);
            QTest::keyClick(window.documentView(), Qt::Key_Z, Qt::ControlModifier | Qt::ShiftModifier);
            QCOMPARE(reopenStore(window)->currentDecision(second)->kind, project::DecisionKind::Reject);
            // Undo once more: the rejection is undone and stays undone when the window closes.
            window.session()->decisions()->undoStack()->undo();
            QCOMPARE(reopenStore(window)->currentDecision(second)->kind, project::DecisionKind::Correct);
            QVERIFY(window.session()->decisions()->undoStack()->canRedo());
            window.close();
        }
        // Reopen: the decisions, and the undo history, are where they were.
        MainWindow window;
        window.show();
        QVERIFY(openDemo(window, manifest));
        QCOMPARE(window.session()->decisions()->projectFile(), projectFile);
        QCOMPARE(window.documentView()->spans().at(0).state, MentionState::Accepted);
        QCOMPARE(window.documentView()->spans().at(1).state, MentionState::Corrected);
        QUndoStack* stack = window.session()->decisions()->undoStack();
        QVERIFY(stack->canRedo());
        stack->redo();  // the rejection again
        QCOMPARE(reopenStore(window)->currentDecision(second)->kind, project::DecisionKind::Reject);
        stack->undo();
        stack->undo();  // the correction
        stack->undo();  // the acceptance
        QVERIFY(!reopenStore(window)->currentDecision(first));
        QVERIFY(!reopenStore(window)->currentDecision(second));
        QCOMPARE(window.documentView()->spans().at(0).state, MentionState::Predicted);
        // A new decision cuts the redo stack, in the window and in the file.
        window.documentView()->selectMention(0);
        QVERIFY(window.decideCurrent(project::DecisionKind::Nil));
        QVERIFY(!stack->canRedo());
        const auto store = reopenStore(window);
        QVERIFY(!store->canRedo());
        QCOMPARE(store->currentDecision(first)->newLink, std::string("-1"));
        QCOMPARE(window.documentView()->spans().at(0).state, MentionState::Rejected);
    }

    void applyToAllIdenticalMentions() {
        MainWindow window;
        window.show();
        QVERIFY(openDemo(window, copyDemo()));
        // Mentions 0 and 1 of the first document both read "Huntington disease". Correcting
        // mention 0 to its second candidate offers mention 1 (and any other such mention).
        const QString choice =
            window.candidatesPanel()->model()->index(1, CandidateModel::EntityColumn).data().toString();
        QTest::keyClick(window.documentView(), Qt::Key_2);
        CandidatesPanel* panel = window.candidatesPanel();
        QVERIFY(panel->hasOffer());
        auto* list = panel->findChild<QListWidget*>();
        QVERIFY(list);
        QVERIFY(list->count() >= 1);
        const project::MentionKey twin = keyOf(window, 1);
        QVERIFY(list->item(0)->text().contains(QString::fromStdString(twin.document)));
        QVERIFY(!reopenStore(window)->currentDecision(twin));  // offered, not applied
        const int offered = list->count();
        const std::size_t before = reopenStore(window)->decisionCount();
        panel->findChild<QPushButton*>(QStringLiteral("applyToAll"))->click();
        QVERIFY(!panel->hasOffer());
        const auto store = reopenStore(window);
        QCOMPARE(store->decisionCount(), before + static_cast<std::size_t>(offered));
        QCOMPARE(QString::fromStdString(store->currentDecision(twin)->newLink), choice);
        QCOMPARE(store->currentDecision(twin)->kind, project::DecisionKind::Correct);
        QCOMPARE(window.documentView()->spans().at(1).state, MentionState::Corrected);
        // One undo takes the whole application back, not the correction it copied.
        window.session()->decisions()->undoStack()->undo();
        QVERIFY(!reopenStore(window)->currentDecision(twin));
        QVERIFY(reopenStore(window)->currentDecision(keyOf(window, 0)));
    }

    // Correcting to an entity outside the candidate list: the KB search box, by typing.
    void correctThroughTheSearchBox() {
        MainWindow window;
        window.show();
        QVERIFY(openDemo(window, copyDemo()));
        EntitySearchBox* search = window.correctionSearch();
        QVERIFY(search);
        QTRY_VERIFY_WITH_TIMEOUT(search->lineEdit()->isEnabled(), 30000);  // the KB index is built
        const project::MentionKey first = keyOf(window, 0);
        search->lineEdit()->setFocus();
        QTest::keyClicks(search->lineEdit(), QStringLiteral("congenital megac"));
        QVERIFY(search->model()->rowCount() >= 1);
        QCOMPARE(search->currentId(), QStringLiteral("MESH:D006627"));
        QTest::keyClick(search->lineEdit(), Qt::Key_Return);
        const auto decision = reopenStore(window)->currentDecision(first);
        QVERIFY(decision);
        QCOMPARE(decision->kind, project::DecisionKind::Correct);
        QCOMPARE(decision->newLink, std::string("MESH:D006627"));
        QCOMPARE(decision->previousLink, std::string("MESH:D006816"));
        QCOMPARE(window.documentView()->spans().at(0).state, MentionState::Corrected);
        QVERIFY(window.documentView()->hasFocus());  // back to the document for the next mention
        // The mention line above the candidates names the decision in effect.
        QVERIFY(window.candidatesPanel()
                    ->findChild<QLabel*>(QStringLiteral("mentionSummary"))
                    ->text()
                    .contains(QStringLiteral("MESH:D006627")));
    }

    // Clicking a linked mention on an entity page opens it in the document view.
    void entityPageMentionOpensTheDocument() {
        MainWindow window;
        window.show();
        QVERIFY(openDemo(window, copyDemo()));
        const Document* other = nullptr;
        for (const auto& split : window.project()->splits)
            for (const Document& document : split.corpus.documents())
                if (document.pmid() != window.currentDocument()->pmid() && !document.mentions.empty() && !other)
                    other = &document;
        QVERIFY(other);
        const Mention& target = other->mentions.back();
        QVERIFY(window.showMention(QStringLiteral("test"), QString::fromStdString(other->pmid()),
                                   static_cast<int>(target.start), static_cast<int>(target.end)) ||
                window.showMention(QStringLiteral("train"), QString::fromStdString(other->pmid()),
                                   static_cast<int>(target.start), static_cast<int>(target.end)));
        QCOMPARE(window.currentDocument(), other);
        QCOMPARE(window.documentView()->currentMention(), static_cast<int>(other->mentions.size()) - 1);
        QVERIFY(!window.showMention(QStringLiteral("train"), QStringLiteral("no-such-pmid"), 0, 1));
    }

    // The Documents dock: reviewed/total per document and split, and the review filters.
    void documentFiltersAndProgress() {
        MainWindow window;
        window.show();
        QVERIFY(openDemo(window, copyDemo()));
        QTRY_VERIFY_WITH_TIMEOUT(window.session()->rankers()->proposalsAvailable(), 30000);
        auto* table = window.findChild<QTableView*>(QStringLiteral("documentTable"));
        auto* filter = window.findChild<QComboBox*>(QStringLiteral("reviewFilter"));
        auto* progress = window.findChild<QLabel*>(QStringLiteral("reviewProgress"));
        QVERIFY(table && filter && progress);
        QAbstractItemModelTester tester(table->model(), QAbstractItemModelTester::FailureReportingMode::QtTest);
        const Document* first = window.currentDocument();
        const int mentions = static_cast<int>(first->mentions.size());
        int trainMentions = 0;
        for (const Document& document : window.project()->splits[0].corpus.documents())
            trainMentions += static_cast<int>(document.mentions.size());
        QVERIFY2(progress->text().contains(QStringLiteral("train: 0/%1 reviewed").arg(trainMentions)),
                 qPrintable(progress->text()));

        filter->setCurrentIndex(1);  // unreviewed
        QCOMPARE(table->model()->rowCount(), 8);
        // Accept every mention of the first document (Enter, then the next mention).
        for (int i = 0; i < mentions; ++i) {
            window.documentView()->selectMention(i);
            QVERIFY(window.decideCurrent(project::DecisionKind::Accept));
        }
        QCOMPARE(table->model()->index(0, DocumentListModel::ReviewedColumn).data().toString(),
                 QStringLiteral("%1/%1").arg(mentions));
        QVERIFY(progress->text().contains(QStringLiteral("train: %1/%2 reviewed").arg(mentions).arg(trainMentions)));
        // The document being curated stays listed; once another is selected, it leaves the list.
        QCOMPARE(table->model()->rowCount(), 8);
        table->selectRow(1);
        filter->setCurrentIndex(0);
        filter->setCurrentIndex(1);
        QCOMPARE(table->model()->rowCount(), 7);

        // Disagreements: exactly the documents whose review counts one, as the session computes it.
        // The document shown stays listed whatever its figures.
        filter->setCurrentIndex(2);
        int expected = 0;
        for (const auto& split : window.project()->splits)
            for (const Document& document : split.corpus.documents())
                if (reviewDocument(*window.session()->decisions(), *window.session()->rankers(), split.split, document)
                            .disagreements > 0 ||
                    &document == window.currentDocument())
                    ++expected;
        QVERIFY(expected >= 2);
        QCOMPARE(table->model()->rowCount(), expected);
        // The demo's HD mentions are homonyms: the sparse ranker cannot be sure of them.
        filter->setCurrentIndex(3);
        QVERIFY(table->model()->rowCount() >= 1);
        for (int row = 0; row < table->model()->rowCount(); ++row) {
            const QModelIndex index = table->model()->index(row, DocumentListModel::PmidColumn);
            QVERIFY(index.data(DocumentListModel::LowConfidenceRole).toBool() ||
                    index.data().toString() == QString::fromStdString(window.currentDocument()->pmid()));
        }
    }

    // File > Export through MainWindow::startExport: without decisions the PubTator export is the
    // input byte for byte; after a correction and a rejection it differs in exactly those lines.
    void exportDiffersExactlyInTheDecisions() {
        const QString manifest = copyDemo();
        const QString input = QFileInfo(manifest).absolutePath() + QStringLiteral("/demo-train.txt");
        MainWindow window;
        window.show();
        QVERIFY(openDemo(window, manifest));
        auto exportTrain = [&](const QString& out) {
            QSignalSpy finished(&window, &MainWindow::exportFinished);
            QSignalSpy failed(&window, &MainWindow::exportFailed);
            curation::ExportOptions options;
            options.format = curation::ExportFormat::PubTator;
            options.out = out.toStdString();
            options.splits = {"train"};
            if (!window.startExport(options)) return false;
            return QTest::qWaitFor([&] { return !finished.isEmpty() || !failed.isEmpty(); }, 30000) && failed.isEmpty();
        };
        auto lines = [](const QString& path) {
            QFile file(path);
            return file.open(QIODevice::ReadOnly) ? QString::fromUtf8(file.readAll()).split(QLatin1Char('\n'))
                                                  : QStringList();
        };
        const QString untouched = dir_.filePath(QStringLiteral("untouched.txt"));
        QVERIFY(exportTrain(untouched));
        QCOMPARE(lines(untouched), lines(input));

        QTest::keyClick(window.documentView(), Qt::Key_2);  // mention 0: corrected to candidate 2
        const QString chosen = QString::fromStdString(reopenStore(window)->currentDecision(keyOf(window, 0))->newLink);
        window.candidatesPanel()->clearOffer();
        window.documentView()->selectMention(2);
        QTest::keyClick(window.documentView(), Qt::Key_R);  // mention 2 ("HD"): rejected
        const QString corrected = dir_.filePath(QStringLiteral("corrected.txt"));
        QVERIFY(exportTrain(corrected));
        const QStringList before = lines(input);
        const QStringList after = lines(corrected);
        QCOMPARE(after.size(), before.size());
        QStringList changed;
        for (int i = 0; i < before.size(); ++i)
            if (before[i] != after[i]) changed << after[i];
        QCOMPARE(changed.size(), 2);
        QVERIFY2(changed[0].startsWith(QStringLiteral("90000001\t21\t39\tHuntington disease\tSpecificDisease\t")),
                 qPrintable(changed[0]));
        QVERIFY2(changed[0].endsWith(chosen.section(QLatin1Char(':'), 1)), qPrintable(changed[0] + " / " + chosen));
        QCOMPARE(changed[1], QStringLiteral("90000001\t90\t92\tHD\tSpecificDisease\t"));
    }

    void enterInTheDocumentFilterDoesNotDecide() {
        MainWindow window;
        window.show();
        QVERIFY(openDemo(window, copyDemo()));
        const std::size_t before = window.session()->decisions()->store()->decisionCount();
        auto* filter = window.findChild<QLineEdit*>(QStringLiteral("documentFilter"));
        QVERIFY(filter);
        filter->setFocus();
        // Letters and digits are typing here, not curation keys; the filter keeps the shown
        // document (its PMID), so a decision would have a mention to land on.
        const QString pmid = QString::fromStdString(window.currentDocument()->pmid());
        QTest::keyClicks(filter, pmid + QStringLiteral(" "));
        QTest::keyClick(filter, Qt::Key_Backspace);
        QTest::keyClicks(filter, QStringLiteral("rs"));
        for (int i = 0; i < 2; ++i) QTest::keyClick(filter, Qt::Key_Backspace);
        window.findChild<QTableView*>(QStringLiteral("documentTable"))->selectRow(0);
        filter->setFocus();
        QTest::keyClick(filter, Qt::Key_Return);
        QVERIFY(window.currentMentionKey());
        QCOMPARE(window.session()->decisions()->store()->decisionCount(), before);
        QCOMPARE(filter->text(), pmid);
    }
};

QTEST_MAIN(TestCuration)
#include "test_curation.moc"
