// The curation loop end to end, as a new user would try it, on the real data: open NCBI Disease with
// MEDIC in the main window, let it link every mention, accept one link with Enter, correct
// another with a number key, close the window, open the project again -- every decision is
// there, undo included -- and export the test split: the PubTator file differs from the corpus
// exactly in the corrected line. Skipped when ../shared/data is absent.
#include <QApplication>
#include <QFile>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QUndoStack>
#include <QtTest>

#include <algorithm>
#include <fstream>
#include <string>
#include <vector>

#include "candidate_model.h"
#include "candidates_panel.h"
#include "corpus/corpus.h"
#include "curation/project_export.h"
#include "curation_session.h"
#include "document_view.h"
#include "main_window.h"
#include "project/loaded_project.h"
#include "test_data.h"

using namespace linkscope;
using namespace linkscope::ui;
namespace fs = std::filesystem;

namespace {

bool openAndLink(MainWindow& window, const QString& manifest) {
    QSignalSpy loaded(&window, &MainWindow::projectLoaded);
    window.openProject(manifest);
    if (!QTest::qWaitFor([&] { return !loaded.isEmpty() && window.session()->rankers()->proposalsAvailable(); },
                         300000))
        return false;
    window.activateWindow();
    return QTest::qWaitForWindowActive(&window);
}

QStringList lines(const QString& path) {
    QFile file(path);
    return file.open(QIODevice::ReadOnly) ? QString::fromUtf8(file.readAll()).split(QLatin1Char('\n')) : QStringList();
}

std::string goldLink(const Mention& mention) {
    std::vector<std::string> ids = mention.ids.ids;
    std::sort(ids.begin(), ids.end());
    std::string link;
    for (const std::string& id : ids) link += (link.empty() ? "" : "|") + id;
    return link;
}

}  // namespace

class TestNcbiWalkthrough : public QObject {
    Q_OBJECT
    QTemporaryDir dir_;

private Q_SLOTS:
    void initTestCase() {
        QCoreApplication::setOrganizationName(QStringLiteral("LinkscopeTests"));
        qputenv("XDG_CONFIG_HOME", dir_.path().toUtf8());
        qputenv("XDG_DATA_HOME", dir_.path().toUtf8());
    }

    void linkAcceptCorrectReopenExport() {
        LINKSCOPE_REQUIRE_DATA(medic, "medic/medic_06Jul2012.txt");
        LINKSCOPE_REQUIRE_DATA(train, "ncbi-disease/NCBItrainset_corpus.txt");
        LINKSCOPE_REQUIRE_DATA(test, "ncbi-disease/NCBItestset_corpus.txt");
        const QString manifest = dir_.filePath(QStringLiteral("ncbi-disease.json"));
        {
            std::ofstream out(manifest.toStdString());
            // (No raw string literal here: moc does not parse them.)
            out << "{ \"format\": \"linkscope-project-manifest\", \"version\": 1, \"name\": \"NCBI Disease\",\n"
                << "  \"knowledgeBase\": { \"path\": \"" << medic.string() << "\", \"format\": \"medic\" },\n"
                << "  \"corpora\": [ { \"split\": \"train\", \"path\": \"" << train.string()
                << "\", \"format\": \"pubtator\" },\n"
                << "               { \"split\": \"test\", \"path\": \"" << test.string()
                << "\", \"format\": \"pubtator\" } ] }\n";
        }

        project::MentionKey accepted, corrected;
        std::string acceptedLink, correctedLink, correctedGold;
        QString correctedLinePrefix;
        {
            MainWindow window;
            window.show();
            QVERIFY(openAndLink(window, manifest));
            // The first test document, its first two mentions.
            const SplitCorpus& split = window.project()->splits.at(1);
            QCOMPARE(split.split, std::string("test"));
            const Document& document = split.corpus.documents().front();
            QVERIFY(document.mentions.size() >= 2);
            const Mention& first = document.mentions[0];
            QVERIFY(window.showMention(QStringLiteral("test"), QString::fromStdString(document.pmid()),
                                       static_cast<int>(first.start), static_cast<int>(first.end)));
            accepted = *window.currentMentionKey();
            acceptedLink = window.session()->decisions()->linkInEffect(accepted, first);
            QVERIFY(!acceptedLink.empty());
            QTest::keyClick(window.documentView(), Qt::Key_Return);
            QCOMPARE(window.session()->decisions()->currentDecision(accepted)->kind, project::DecisionKind::Accept);
            window.candidatesPanel()->clearOffer();

            // The second mention: corrected to a candidate that is not its gold.
            window.documentView()->selectMention(1);
            const Mention& second = document.mentions[1];
            corrected = *window.currentMentionKey();
            correctedGold = goldLink(second);
            CandidateModel* model = window.candidatesPanel()->model();
            int pick = -1;
            // Not the top one either: picking the proposed link is an accept.
            for (int row = 1; row < std::min(model->rowCount(), 9) && pick < 0; ++row)
                if (model->index(row, CandidateModel::EntityColumn).data().toString().toStdString() != correctedGold)
                    pick = row;
            QVERIFY(pick >= 0);
            correctedLink = model->index(pick, CandidateModel::EntityColumn).data().toString().toStdString();
            QTest::keyClick(window.documentView(), static_cast<Qt::Key>(Qt::Key_1 + pick));
            const auto decision = window.session()->decisions()->currentDecision(corrected);
            QVERIFY(decision);
            QCOMPARE(decision->newLink, correctedLink);
            correctedLinePrefix = QStringLiteral("%1\t%2\t%3\t%4\t")
                                      .arg(QString::fromStdString(document.pmid()))
                                      .arg(second.start)
                                      .arg(second.end)
                                      .arg(QString::fromStdString(second.text));
        }  // closed

        MainWindow window;
        window.show();
        QVERIFY(openAndLink(window, manifest));
        const auto first = window.session()->decisions()->currentDecision(accepted);
        const auto second = window.session()->decisions()->currentDecision(corrected);
        QVERIFY(first && second);
        QCOMPARE(first->kind, project::DecisionKind::Accept);
        QCOMPARE(first->newLink, acceptedLink);
        QCOMPARE(second->kind, project::DecisionKind::Correct);
        QCOMPARE(second->newLink, correctedLink);
        QCOMPARE(window.session()->decisions()->undoStack()->count(), 2);  // undo goes on after reopening

        // The test split exported: only the corrected line differs (the accepted link is the
        // corpus's own when the ranker was right; otherwise its line differs too).
        QSignalSpy finished(&window, &MainWindow::exportFinished);
        QSignalSpy failed(&window, &MainWindow::exportFailed);
        curation::ExportOptions options;
        options.format = curation::ExportFormat::PubTator;
        options.out = dir_.filePath(QStringLiteral("ncbi-test-curated.txt")).toStdString();
        options.splits = {"test"};
        QVERIFY(window.startExport(options));
        QVERIFY(QTest::qWaitFor([&] { return !finished.isEmpty() || !failed.isEmpty(); }, 120000));
        QVERIFY(failed.isEmpty());
        const QStringList before = lines(QString::fromStdString(test.string()));
        const QStringList after = lines(QString::fromStdString(options.out.string()));
        QCOMPARE(after.size(), before.size());
        QStringList changed;
        for (int i = 0; i < before.size(); ++i)
            if (before[i] != after[i]) changed << after[i];
        const Mention& acceptedMention = window.project()->splits.at(1).corpus.documents().front().mentions[0];
        const int expected = acceptedLink == goldLink(acceptedMention) ? 1 : 2;
        QCOMPARE(changed.size(), expected);
        const QString correctedLine = changed.filter(correctedLinePrefix).value(0);
        QVERIFY2(!correctedLine.isEmpty(), qPrintable(changed.join(QLatin1Char('\n'))));
        // The corpus writes MeSH ids without their prefix.
        QVERIFY2(correctedLine.endsWith(QString::fromStdString(correctedLink).section(QLatin1Char(':'), -1)),
                 qPrintable(correctedLine));
    }
};

QTEST_MAIN(TestNcbiWalkthrough)
#include "test_ncbi_walkthrough.moc"
