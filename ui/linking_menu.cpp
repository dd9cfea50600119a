#include "linking_menu.h"

#include <QComboBox>
#include <QDialog>
#include <QDialogButtonBox>
#include <QFileDialog>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QPushButton>

#include "curation/augmented_linker.h"
#include "curation_session.h"
#include "decision_log.h"
#include "dense_engine_loader.h"
#include "project/project_store.h"
#include "ranker_host.h"

namespace linkscope::ui {

LinkingMenu::LinkingMenu(CurationSession* session, QWidget* parent)
    : QMenu(tr("&Linking"), parent), decisions_(session->decisions()), rankers_(session->rankers()) {
    setObjectName(QStringLiteral("linkingMenu"));
    linkRun_ = addAction(tr("Link with a &Trained Run…"), this, &LinkingMenu::chooseRun);
    linkRun_->setObjectName(QStringLiteral("linkWithRun"));
    linkSparse_ = addAction(tr("Link with &Sparse TF-IDF"), rankers_, &RankerHost::linkWithSparse);
    cancel_ = addAction(tr("&Cancel Linking"), rankers_, &RankerHost::cancelRunLinking);
    if (!RankerHost::runLinkingAvailable()) {
        linkRun_->setToolTip(DenseEngineLoader::missingMessage());
        setToolTipsVisible(true);
    }
    connect(this, &QMenu::aboutToShow, this, &LinkingMenu::updateActions);
    updateActions();
}

void LinkingMenu::updateActions() {
    const bool underWay = rankers_->runLinkingUnderWay();
    linkRun_->setEnabled(RankerHost::runLinkingAvailable() && decisions_->isOpen() && !underWay);
    linkSparse_->setEnabled(rankers_->runRanker() != nullptr);
    cancel_->setEnabled(underWay);
}

void LinkingMenu::chooseRun() {
    if (!decisions_->isOpen()) return;
    QDialog dialog(parentWidget());
    dialog.setWindowTitle(tr("Link with a trained run"));
    auto* form = new QFormLayout(&dialog);
    auto* runs = new QComboBox(&dialog);
    runs->setObjectName(QStringLiteral("runChoice"));
    for (const auto& run : decisions_->store()->runs())
        runs->addItem(tr("%1 (%2)").arg(QString::fromStdString(run.name), QString::fromStdString(run.preset)),
                      QString::fromStdString(run.directory.string()));
    auto* browse = new QPushButton(tr("Other run folder…"), &dialog);
    connect(browse, &QPushButton::clicked, &dialog, [&dialog, runs] {
        const QString folder = QFileDialog::getExistingDirectory(&dialog, tr("Run folder (linkscope-cli train --out)"));
        if (folder.isEmpty()) return;
        runs->addItem(folder, folder);
        runs->setCurrentIndex(runs->count() - 1);
    });
    auto* runRow = new QHBoxLayout;
    runRow->addWidget(runs, 1);
    runRow->addWidget(browse);
    form->addRow(tr("Run:"), runRow);
    auto* modes = new QComboBox(&dialog);
    modes->setObjectName(QStringLiteral("modeChoice"));
    modes->addItem(tr("kNN interpolation with the datastore (kNN-BioEL)"), static_cast<int>(curation::LinkMode::Knn));
    modes->addItem(tr("Sieve OD-T over names and datastore (Xu & Bethard)"),
                   static_cast<int>(curation::LinkMode::Sieve));
    modes->addItem(tr("The model alone (decisions change no ranking)"), static_cast<int>(curation::LinkMode::Model));
    form->addRow(tr("Linking:"), modes);
    form->addRow(new QLabel(tr("Every mention is encoded and ranked on a worker; the datastore of the training "
                               "mentions is kept in the project file. Each accept and correct becomes a key at once."),
                            &dialog));
    auto* buttons = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel, &dialog);
    form->addRow(buttons);
    connect(buttons, &QDialogButtonBox::accepted, &dialog, &QDialog::accept);
    connect(buttons, &QDialogButtonBox::rejected, &dialog, &QDialog::reject);
    const auto enableOk = [runs, buttons] { buttons->button(QDialogButtonBox::Ok)->setEnabled(runs->count() > 0); };
    connect(runs, &QComboBox::currentIndexChanged, &dialog, enableOk);
    enableOk();
    if (dialog.exec() != QDialog::Accepted || runs->currentIndex() < 0) return;
    rankers_->linkWithRun(runs->currentData().toString(),
                          static_cast<curation::LinkMode>(modes->currentData().toInt()));
}

}  // namespace linkscope::ui
