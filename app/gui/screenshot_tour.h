#pragma once
// `linkscope --screenshots DIR PROJECT`: once the project is open and ranked, shows each main view
// in turn (the dock raised, a mention selected, its entity on the knowledge-base page) and saves
// a PNG of the window per view, then quits. For docs/screenshots (tools/take-screenshots.sh runs
// it under Xvfb on NCBI Disease); works with QT_QPA_PLATFORM=offscreen too.
#include <QObject>
#include <QString>
#include <QStringList>

namespace linkscope::ui {
class MainWindow;
}

class ScreenshotTour : public QObject {
    Q_OBJECT
public:
    ScreenshotTour(linkscope::ui::MainWindow& window, QString folder);

    /// Starts once the project is loaded and ranked; exits the application when done (status 0,
    /// 1 when the project failed to open, 2 when a file could not be written or the run not linked).
    void start();
    /// After the views: link with this trained run (kNN) and save the Candidates dock with the
    /// run's ranking as curation-trained-run.png.
    void setRun(const QString& runDirectory) { run_ = runDirectory; }

private:
    void next();
    void prepareView(const QString& dock);
    void grabView(const QString& dock);

    linkscope::ui::MainWindow* window_;
    QString folder_;
    QStringList remaining_;
    bool failed_ = false;
    QString plotEntity_;  ///< the entity shown on the knowledge-base page, then plotted
    QString run_;
    bool runShot_ = false;
    bool started_ = false;
    void shootRun();
};
