#pragma once
// File > Export: the format (PubTator, BioC XML, brat standoff, the decisions log), the splits,
// and where to write. The export itself runs on a worker (MainWindow::startExport).
#include <QDialog>

#include "curation/project_export.h"

class QComboBox;
class QLineEdit;
class QListWidget;

namespace linkscope::ui {

class ExportDialog : public QDialog {
    Q_OBJECT
public:
    /// splits: the project's split names; all are checked at first.
    ExportDialog(const QStringList& splits, const QString& suggestedFolder, QWidget* parent = nullptr);

    curation::ExportOptions options() const;

private:
    void browse();
    void updateHint();

    QComboBox* format_;
    QListWidget* splits_;
    QLineEdit* out_;
    QString folder_;
};

}  // namespace linkscope::ui
