// Several curators in the main window, offscreen: two project files of the demo
// manifest, one per curator, written by the test; the second merged into the open one; the
// agreement figures the dialog shows (worked out by hand: kappa 9/13); the disagreement listed
// side by side and filtered; selecting it shows the mention; taking curator A's link stores an
// adjudication at once (undo takes it back); the export holds the adjudicated link.
#include <QApplication>
#include <QComboBox>
#include <QDir>
#include <QSignalSpy>
#include <QTableView>
#include <QTableWidget>
#include <QUndoStack>

#include <cmath>

#include "adjudication_dialog.h"
#include "curation/adjudication.h"
#include "curation/project_export.h"
#include "curation_session.h"
#include "disagreement_model.h"
#include "document_view.h"
#include "main_window.h"
#include "project/loaded_project.h"
#include "project/project_store.h"
#include "test_data.h"

using namespace linkscope;
using namespace linkscope::ui;
namespace fs = std::filesystem;

namespace {

project::Decision decisionOn(std::string split, std::string document, std::size_t start, std::size_t end,
                             std::string text, project::DecisionKind kind, std::string link, std::string curator) {
    project::Decision d;
    d.mention = {std::move(split), std::move(document), start, end};
    d.mentionText = std::move(text);
    d.kind = kind;
    d.newLink = std::move(link);
    d.curator = std::move(curator);
    return d;
}

// Both decide four mentions and agree on three; they differ on "neurodegenerative disorder"
// (Ana: MESH:D019636, the gold; Bob: MESH:D002819). Bob alone decides the second "HD".
// Kappa: categories once each per curator, 3 shared of 4: p_o = 3/4, p_e = 3/16, kappa = 9/13.
void record(project::ProjectStore& store, const std::string& curator) {
    const bool bob = curator == "bob";
    using K = project::DecisionKind;
    store.record(decisionOn("train", "90000001", 21, 39, "Huntington disease", K::Accept, "MESH:D006816", curator));
    store.record(decisionOn("train", "90000001", 110, 136, "neurodegenerative disorder", bob ? K::Correct : K::Accept,
                            bob ? "MESH:D002819" : "MESH:D019636", curator));
    store.record(decisionOn("train", "90000001", 222, 228, "chorea", K::Reject, "", curator));
    store.record(decisionOn("test", "90000007", 0, 6, "Asthma", K::Accept, "MESH:D001249", curator));
    if (bob) store.record(decisionOn("train", "90000001", 262, 264, "HD", K::Accept, "MESH:D006816", curator));
}

}  // namespace

class TestAdjudication : public QObject {
    Q_OBJECT
    QTemporaryDir dir_;

    // A copy of the demo project (its corpora and KB) with one project file per curator.
    struct Files {
        QString manifest, ana, bob;
    };
    Files curatorFiles(const QString& name) {
        const QString source = QString::fromUtf8(LINKSCOPE_SOURCE_DIR) + QStringLiteral("/resources/demo");
        const QString target = dir_.filePath(name);
        QDir().mkpath(target);
        for (const QString& file : QDir(source).entryList(QDir::Files))
            if (!QFile::copy(source + QLatin1Char('/') + file, target + QLatin1Char('/') + file)) return {};
        Files files{target + QStringLiteral("/demo-project.json"), target + QStringLiteral("/ana.linkscope"),
                    target + QStringLiteral("/bob.linkscope")};
        const ProjectManifest manifest = readProjectManifest(files.manifest.toStdString());
        for (const auto& [file, curator] : {std::pair{files.ana, "ana"}, std::pair{files.bob, "bob"}}) {
            auto store = project::ProjectStore::create(file.toStdString(), manifest);
            record(store, curator);
        }
        return files;
    }
    static bool open(MainWindow& window, const QString& file) {
        QSignalSpy loaded(&window, &MainWindow::projectLoaded);
        window.openProject(file);
        return QTest::qWaitFor([&] { return !loaded.isEmpty() && window.session()->rankers()->sparseRankerBuilt(); },
                               30000);
    }
    // Merges on the session's worker and waits for it: the error, "" when it went through.
    static QString merge(MainWindow& window, const QString& file) {
        QSignalSpy finished(window.session()->merge(), &MergeJob::finished);
        if (!window.mergeProject(file)) return QStringLiteral("the merge did not start");
        if (!QTest::qWaitFor([&] { return !finished.isEmpty(); }, 30000))
            return QStringLiteral("the merge did not finish");
        return finished.first().at(1).toString();
    }
    static int rowOf(const QTableWidget* table, const QString& scope) {
        for (int row = 0; row < table->rowCount(); ++row)
            if (table->verticalHeaderItem(row)->text() == scope) return row;
        return -1;
    }

private Q_SLOTS:
    void initTestCase() {
        QCoreApplication::setOrganizationName(QStringLiteral("LinkscopeTests"));
        qputenv("XDG_CONFIG_HOME", dir_.path().toUtf8());
        qputenv("XDG_DATA_HOME", dir_.path().toUtf8());
    }

    void mergeAdjudicateAndExport() {
        const Files files = curatorFiles(QStringLiteral("merge"));
        QVERIFY(!files.ana.isEmpty());
        MainWindow window;
        window.show();
        QVERIFY(open(window, files.ana));
        CurationSession* session = window.session();
        session->decisions()->setCurator(QStringLiteral("carol"));
        QCOMPARE(session->decisions()->store()->decisionCount(), std::size_t{4});

        // Merge Bob's file: his five decisions come in, undoable one by one.
        QSignalSpy reloaded(session->decisions(), &DecisionLog::decisionsReloaded);
        QCOMPARE(merge(window, files.bob), QString());
        QCOMPARE(reloaded.count(), 1);
        QVERIFY(!session->merge()->isUnderWay());
        QCOMPARE(session->decisions()->store()->decisionCount(), std::size_t{9});
        QCOMPARE(session->decisions()->undoStack()->count(), 9);
        QCOMPARE(curation::curatorsOf(session->decisions()->store()->doneDecisions()),
                 (std::vector<std::string>{"ana", "bob"}));

        AdjudicationDialog* dialog = window.adjudicationDialog();
        QVERIFY(dialog->isVisible());  // opened by the merge
        QCOMPARE(dialog->curatorA()->currentText(), QStringLiteral("ana"));
        QCOMPARE(dialog->curatorB()->currentText(), QStringLiteral("bob"));
        // The agreement figures shown: overall 4 both, 3 agreed, kappa 9/13 = 0.692; the test
        // split's one agreed mention has no kappa (expected agreement 1).
        const QTableWidget* table = dialog->agreementTable();
        const int overall = rowOf(table, QStringLiteral("overall"));
        QVERIFY(overall >= 0);
        QCOMPARE(table->item(overall, AdjudicationDialog::BothColumn)->text(), QStringLiteral("4"));
        QCOMPARE(table->item(overall, AdjudicationDialog::AgreedColumn)->text(), QStringLiteral("3"));
        QCOMPARE(table->item(overall, AdjudicationDialog::KappaColumn)->text(), QStringLiteral("0.692"));
        QCOMPARE(table->item(overall, AdjudicationDialog::OnlyBColumn)->text(), QStringLiteral("1"));
        QVERIFY(std::fabs(*dialog->report().overall.kappa - 9.0 / 13.0) < 1e-9);
        const int testSplit = rowOf(table, QStringLiteral("split test"));
        QVERIFY(testSplit >= 0);
        QCOMPARE(table->item(testSplit, AdjudicationDialog::KappaColumn)->text(), QStringLiteral("–"));
        QVERIFY(rowOf(table, QStringLiteral("type DiseaseClass")) >= 0);
        QVERIFY2(dialog->summaryText().contains(QStringLiteral("1 disagreement(s), 1 open")),
                 qPrintable(dialog->summaryText()));

        // The disagreement, both decisions side by side, with the gold and the proposal.
        DisagreementModel* model = dialog->model();
        QCOMPARE(model->rowCount(), 1);
        const auto cell = [model](int column) { return model->index(0, column).data().toString(); };
        QCOMPARE(cell(DisagreementModel::MentionColumn), QStringLiteral("neurodegenerative disorder"));
        QCOMPARE(cell(DisagreementModel::DocumentColumn), QStringLiteral("90000001"));
        QCOMPARE(cell(DisagreementModel::TypeColumn), QStringLiteral("DiseaseClass"));
        QCOMPARE(cell(DisagreementModel::LinkAColumn), QStringLiteral("MESH:D019636"));
        QCOMPARE(cell(DisagreementModel::LinkBColumn), QStringLiteral("MESH:D002819"));
        QCOMPARE(cell(DisagreementModel::GoldColumn), QStringLiteral("MESH:D019636"));
        QCOMPARE(cell(DisagreementModel::AdjudicatedColumn), QString());
        QCOMPARE(model->headerData(DisagreementModel::LinkAColumn, Qt::Horizontal).toString(), QStringLiteral("ana"));

        // Filters: the test split and the SpecificDisease type hold none of it.
        dialog->splitFilter()->setCurrentIndex(dialog->splitFilter()->findData(QStringLiteral("test")));
        QCOMPARE(model->rowCount(), 0);
        dialog->splitFilter()->setCurrentIndex(0);
        dialog->typeFilter()->setCurrentIndex(dialog->typeFilter()->findData(QStringLiteral("SpecificDisease")));
        QCOMPARE(model->rowCount(), 0);
        dialog->typeFilter()->setCurrentIndex(dialog->typeFilter()->findData(QStringLiteral("DiseaseClass")));
        QCOMPARE(model->rowCount(), 1);

        // Selecting the row shows the mention in the document view.
        QVERIFY(!dialog->takeA());  // nothing selected yet
        dialog->disagreementTable()->setCurrentIndex(model->index(0, 0));
        QVERIFY(window.currentDocument());
        QCOMPARE(window.currentDocument()->pmid(), std::string("90000001"));
        const int shown = window.documentView()->currentMention();
        QVERIFY(shown >= 0);
        QCOMPARE(window.currentDocument()->mentions.at(static_cast<std::size_t>(shown)).start, std::size_t{110});

        // Take Ana's link: stored at once as Carol's adjudication, and shown settled.
        QVERIFY2(dialog->takeA(), qPrintable(dialog->statusText()));
        {
            const auto reopened = project::ProjectStore::open(session->decisions()->projectFile().toStdString());
            const auto latest = reopened.doneDecisions().back();
            QCOMPARE(latest.curator, std::string("carol (adjudicator)"));
            QCOMPARE(latest.kind, project::DecisionKind::Correct);  // Bob's link was in effect
            QCOMPARE(latest.newLink, std::string("MESH:D019636"));
            QCOMPARE(latest.mention.start, std::size_t{110});
        }
        QCOMPARE(model->rowCount(), 1);
        QCOMPARE(cell(DisagreementModel::AdjudicatedColumn), QStringLiteral("MESH:D019636"));
        QVERIFY(model->index(0, 0).data(DisagreementModel::SettledRole).toBool());
        QVERIFY2(dialog->summaryText().contains(QStringLiteral("0 open")), qPrintable(dialog->summaryText()));
        // The curators' figures do not change: an adjudication is nobody's curation.
        QCOMPARE(table->item(rowOf(table, QStringLiteral("overall")), AdjudicationDialog::KappaColumn)->text(),
                 QStringLiteral("0.692"));

        // Undo takes the adjudication back; redo stores it again.
        session->decisions()->undoStack()->undo();
        QTRY_COMPARE(cell(DisagreementModel::AdjudicatedColumn), QString());
        session->decisions()->undoStack()->redo();
        QTRY_COMPARE(cell(DisagreementModel::AdjudicatedColumn), QStringLiteral("MESH:D019636"));

        // The export holds the adjudicated link (the corpus' short form).
        const QString out = dir_.filePath(QStringLiteral("adjudicated.txt"));
        QSignalSpy finished(&window, &MainWindow::exportFinished);
        QSignalSpy failed(&window, &MainWindow::exportFailed);
        curation::ExportOptions options;
        options.format = curation::ExportFormat::PubTator;
        options.out = out.toStdString();
        options.splits = {"train"};
        QVERIFY(window.startExport(options));
        QVERIFY(QTest::qWaitFor([&] { return !finished.isEmpty() || !failed.isEmpty(); }, 30000));
        QVERIFY2(failed.isEmpty(), failed.isEmpty() ? "" : qPrintable(failed.first().first().toString()));
        const std::string exported = test::readFile(out.toStdString());
        QVERIFY(exported.find("90000001\t110\t136\tneurodegenerative disorder\tDiseaseClass\tD019636\n") !=
                std::string::npos);
        QVERIFY(exported.find("90000001\t222\t228\tchorea\tSpecificDisease\t\n") !=
                std::string::npos);  // both rejected
    }

    void mergeRefusals() {
        const Files files = curatorFiles(QStringLiteral("refusals"));
        MainWindow window;
        window.show();
        QVERIFY(open(window, files.ana));
        // Another manifest (the test split left out): refused, nothing recorded.
        ProjectManifest other = readProjectManifest(files.manifest.toStdString());
        other.corpora.pop_back();
        const QString otherFile = dir_.filePath(QStringLiteral("refusals/other.linkscope"));
        {
            auto store = project::ProjectStore::create(otherFile.toStdString(), other);
            record(store, "bob");
        }
        const QString error = merge(window, otherFile);
        QVERIFY2(error.contains(QStringLiteral("not projects of the same manifest")), qPrintable(error));
        QCOMPARE(window.session()->decisions()->store()->decisionCount(), std::size_t{4});
        // A file that is not a project.
        const QString notes = dir_.filePath(QStringLiteral("refusals/notes.linkscope"));
        QFile file(notes);
        QVERIFY(file.open(QIODevice::WriteOnly));
        file.write("not a project\n");
        file.close();
        QVERIFY(merge(window, notes).contains(QStringLiteral("not a Linkscope project")));
        QVERIFY(!window.adjudicationDialog()->isVisible());  // only a merge that went through opens it
        // With one curator the dialog says what to do and lists nothing.
        AdjudicationDialog* dialog = window.adjudicationDialog();
        dialog->show();
        QCOMPARE(dialog->model()->rowCount(), 0);
        QVERIFY2(dialog->summaryText().contains(QStringLiteral("Merge another curator")),
                 qPrintable(dialog->summaryText()));
    }
};

QTEST_MAIN(TestAdjudication)
#include "test_adjudication.moc"
