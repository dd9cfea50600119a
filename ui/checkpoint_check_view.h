#pragma once
// What a checkpoint folder chosen as a training start holds, shown before the training starts:
// the report `linkscope-cli model check` prints (encoder/checkpoint_report.h) as a summary, its
// warnings (a cased vocabulary that will be lower-cased among them) and errors below it in red.
// The check reads every weights file, so it runs off the GUI thread (a BackgroundJob); a folder
// chosen while one is checked replaces it.
#include <QString>
#include <QWidget>

class QLabel;

namespace linkscope::ui {

class BackgroundJob;

class CheckpointCheckView : public QWidget {
    Q_OBJECT
public:
    explicit CheckpointCheckView(QWidget* parent = nullptr);
    ~CheckpointCheckView() override;

    /// Checks `folder` (a checkpoint or run folder); empty: shows nothing.
    void setFolder(const QString& folder);
    QString folder() const { return folder_; }
    bool isChecking() const;

    QLabel* summaryLabel() const { return summary_; }
    /// "Warning: ..." and "Error: ..." lines; hidden when there are none.
    QLabel* warningsLabel() const { return warnings_; }

Q_SIGNALS:
    /// The report of folder() is shown.
    void checked(const QString& folder, bool loadable);

private:
    QString folder_;
    QLabel* summary_ = nullptr;
    QLabel* warnings_ = nullptr;
    BackgroundJob* job_ = nullptr;
};

}  // namespace linkscope::ui
