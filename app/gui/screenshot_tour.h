#pragma once
// `linkscope --screenshots DIR PROJECT`: once the project is open and ranked, shows each main view
// in turn (the dock raised, a mention selected, its entity on the knowledge-base page) and saves
// a PNG of the window per view, then quits. For docs/screenshots (tools/take-screenshots.sh runs
// it under Xvfb on NCBI Disease); works with QT_QPA_PLATFORM=offscreen too.
//
// Every wait (the ranked project, a view's result, the trained run's linking) is a condition the
// tour checks on a short timer, so that a signal sent before the tour listened cannot leave it
// waiting. Each wait has a time limit: past it, the tour names the view and what it waited for on
// standard error, passes the view over and ends with status 3.
#include <QObject>
#include <QPointer>
#include <QString>
#include <QStringList>
#include <QTimer>

#include <chrono>
#include <functional>
#include <optional>

namespace linkscope::ui {
class MainWindow;
}

class QDockWidget;

class ScreenshotTour : public QObject {
    Q_OBJECT
public:
    ScreenshotTour(linkscope::ui::MainWindow& window, QString folder);

    /// Starts once the project is loaded and ranked; exits the application when done: status 0,
    /// 1 when the project failed to open, 2 when a file could not be written or the run not
    /// linked, 3 when a view was not ready within the time limit.
    void start();
    /// After the views: link with this trained run (kNN) and save the Candidates dock with the
    /// run's ranking as curation-trained-run.png.
    void setRun(const QString& runDirectory) { run_ = runDirectory; }
    /// How long one wait may last (the ranked project, or one view's result).
    void setTimeLimit(std::chrono::seconds limit) { limit_ = limit; }

private:
    /// Waits until `ready()` holds, then runs `then`; after the time limit, says on standard error
    /// that `view` never became ready (`what` names what it waited for) and runs `gaveUp`.
    void waitFor(const QString& view, const QString& what, std::function<bool()> ready, std::function<void()> then,
                 std::function<void()> gaveUp);
    void checkWait();
    void beginViews();
    void next();
    void prepareView(const QString& dock);
    void grabView(const QString& dock, const QString& file);
    void shootRun();
    void finish();

    struct Wait {
        QString view;
        QString what;
        std::function<bool()> ready;
        std::function<void()> then;
        std::function<void()> gaveUp;
        std::chrono::steady_clock::time_point deadline;
    };

    linkscope::ui::MainWindow* window_;
    QString folder_;
    QStringList remaining_;  ///< object names of the docks still to show
    QString plotEntity_;     ///< the entity shown on the knowledge-base page, then plotted
    QString run_;
    QPointer<QDockWidget> enlarged_;  ///< a view below the document, enlarged for its shot
    int enlargedFrom_ = 0;            ///< its height before
    std::chrono::seconds limit_{300};
    QTimer poll_;
    std::optional<Wait> wait_;
    bool failed_ = false;    ///< a file not written, the run not linked
    bool timedOut_ = false;  ///< a view not ready within the limit
    // Set by signals that have no lasting state to read.
    bool indexFailed_ = false;
    bool evaluationFailed_ = false;
    bool plotFailed_ = false;
    bool runLinked_ = false;
    bool runCancelled_ = false;
};
