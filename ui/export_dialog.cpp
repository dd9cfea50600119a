#include "export_dialog.h"

#include <QComboBox>
#include <QDialogButtonBox>
#include <QFileDialog>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QListWidget>
#include <QPushButton>

namespace linkscope::ui {

ExportDialog::ExportDialog(const QStringList& splits, const QString& suggestedFolder, QWidget* parent)
    : QDialog(parent),
      format_(new QComboBox(this)),
      splits_(new QListWidget(this)),
      out_(new QLineEdit(this)),
      folder_(suggestedFolder) {
    setWindowTitle(tr("Export"));
    format_->addItem(tr("PubTator (corrected annotations)"), static_cast<int>(curation::ExportFormat::PubTator));
    format_->addItem(tr("BioC XML (corrected annotations)"), static_cast<int>(curation::ExportFormat::BioC));
    format_->addItem(tr("BioC JSON (corrected annotations)"), static_cast<int>(curation::ExportFormat::BioCJson));
    format_->addItem(tr("brat standoff (corrected annotations)"), static_cast<int>(curation::ExportFormat::Brat));
    format_->addItem(tr("BigBio KB JSON lines (corrected annotations)"),
                     static_cast<int>(curation::ExportFormat::BigBio));
    format_->addItem(tr("Decisions log (JSONL, with history)"), static_cast<int>(curation::ExportFormat::Decisions));
    for (const QString& split : splits) {
        auto* item = new QListWidgetItem(split, splits_);
        item->setFlags(item->flags() | Qt::ItemIsUserCheckable);
        item->setCheckState(Qt::Checked);
    }
    splits_->setMaximumHeight(splits_->fontMetrics().height() * 5);
    auto* browse = new QPushButton(tr("Browse…"), this);
    auto* outRow = new QHBoxLayout;
    outRow->addWidget(out_, 1);
    outRow->addWidget(browse);
    auto* form = new QFormLayout;
    form->addRow(tr("Format:"), format_);
    form->addRow(tr("Splits:"), splits_);
    form->addRow(tr("Write to:"), outRow);
    auto* hint = new QLabel(tr("One split is written to the file (brat: folder) given; several go into the folder "
                               "given, one file (brat: folder) per split. Without decisions the export reproduces "
                               "the input."),
                            this);
    hint->setWordWrap(true);
    auto* buttons = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel, this);
    auto* layout = new QVBoxLayout(this);
    layout->addLayout(form);
    layout->addWidget(hint);
    layout->addWidget(buttons);
    connect(buttons, &QDialogButtonBox::accepted, this, &QDialog::accept);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    connect(browse, &QPushButton::clicked, this, &ExportDialog::browse);
    connect(format_, &QComboBox::currentIndexChanged, this, &ExportDialog::updateHint);
    updateHint();
}

void ExportDialog::updateHint() {
    const auto format = static_cast<curation::ExportFormat>(format_->currentData().toInt());
    const QString name = format == curation::ExportFormat::PubTator   ? QStringLiteral("corrected.pubtator.txt")
                         : format == curation::ExportFormat::BioC     ? QStringLiteral("corrected.bioc.xml")
                         : format == curation::ExportFormat::Brat     ? QStringLiteral("corrected-brat")
                         : format == curation::ExportFormat::BioCJson ? QStringLiteral("corrected.bioc.json")
                         : format == curation::ExportFormat::BigBio   ? QStringLiteral("corrected.bigbio.jsonl")
                                                                      : QStringLiteral("decisions.jsonl");
    out_->setText(folder_ + QLatin1Char('/') + name);
}

void ExportDialog::browse() {
    const QString path = QFileDialog::getSaveFileName(this, tr("Export to"), out_->text());
    if (!path.isEmpty()) out_->setText(path);
}

curation::ExportOptions ExportDialog::options() const {
    curation::ExportOptions options;
    options.format = static_cast<curation::ExportFormat>(format_->currentData().toInt());
    options.out = out_->text().toStdString();
    bool all = true;
    for (int i = 0; i < splits_->count(); ++i) {
        if (splits_->item(i)->checkState() == Qt::Checked)
            options.splits.push_back(splits_->item(i)->text().toStdString());
        else
            all = false;
    }
    if (all) options.splits.clear();
    return options;
}

}  // namespace linkscope::ui
