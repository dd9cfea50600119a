// linkscope: the desktop application. Usage: linkscope [PROJECT.json]
//
// The start-up benchmark (benchmarks/startup) measures the first paint with a hidden option:
//   QT_QPA_PLATFORM=offscreen linkscope --measure-first-paint resources/demo/demo-project.json
// prints one JSON line on standard output once the main window's first frame is painted, then
// quits with status 0 (first_paint_probe.h describes the line):
//   {"first_paint_ms": ..., "main_entered_ms": ..., "clock_tick_ms": ...}
#include <QApplication>
#include <QCommandLineParser>
#include <QFileInfo>
#include <QIcon>
#include <QTimer>

#include <chrono>
#include <cstdio>

#include "first_paint_probe.h"
#include "main_window.h"
#include "screenshot_tour.h"
#include "util/huge_pages.h"

int main(int argc, char* argv[]) {
    // Large blocks in 2 MiB pages (util/huge_pages.h): may restart the program once, so first.
    linkscope::util::restartWithHugePages(argv);
    const auto mainEnteredMs = linkscope::gui::millisecondsSinceProcessStart();
    QApplication app(argc, argv);
    QApplication::setApplicationName(QStringLiteral("Linkscope"));
    QApplication::setOrganizationName(QStringLiteral("Linkscope"));
    QApplication::setApplicationVersion(QStringLiteral(LINKSCOPE_VERSION));
    QApplication::setDesktopFileName(QStringLiteral("org.linkscope.Linkscope"));
    // Drawn by Qt's SVG plugin (libqt6svg6, a dependency of the .deb); without it the window simply
    // has no icon of its own.
    QApplication::setWindowIcon(QIcon(QStringLiteral(":/icons/org.linkscope.Linkscope.svg")));

    QCommandLineParser parser;
    parser.setApplicationDescription(
        QStringLiteral("Biomedical entity linking: curation, training and error analysis"));
    parser.addHelpOption();
    parser.addVersionOption();
    parser.addPositionalArgument(QStringLiteral("project"), QStringLiteral("Project manifest (.json) to open"));
    const QCommandLineOption screenshot(QStringLiteral("screenshot"),
                                        QStringLiteral("Save a PNG of the window once the project is open, then quit "
                                                       "(for documentation; works with QT_QPA_PLATFORM=offscreen)"),
                                        QStringLiteral("file"));
    parser.addOption(screenshot);
    const QCommandLineOption screenshots(
        QStringLiteral("screenshots"),
        QStringLiteral("Save a PNG of each main view into the folder once the project is "
                       "open and ranked, then quit (see tools/take-screenshots.sh)"),
        QStringLiteral("folder"));
    parser.addOption(screenshots);
    const QCommandLineOption screenshotRun(
        QStringLiteral("screenshot-run"),
        QStringLiteral("With --screenshots: then link with this trained run and save the "
                       "candidates it ranks"),
        QStringLiteral("run"));
    parser.addOption(screenshotRun);
    const QCommandLineOption screenshotTimeout(
        QStringLiteral("screenshot-timeout"),
        QStringLiteral("With --screenshots: the seconds one view may take to become ready (default 300); a "
                       "view that does not is named on standard error and passed over (exit status 3)"),
        QStringLiteral("seconds"), QStringLiteral("300"));
    parser.addOption(screenshotTimeout);
    QCommandLineOption measureFirstPaint(QStringLiteral("measure-first-paint"),
                                         QStringLiteral("Print the milliseconds from the process start to the "
                                                        "window's first paint as one JSON line, then quit"));
    measureFirstPaint.setFlags(QCommandLineOption::HiddenFromHelp);
    parser.addOption(measureFirstPaint);
    parser.process(app);

    linkscope::ui::MainWindow window;
    if (parser.isSet(measureFirstPaint)) new linkscope::gui::FirstPaintProbe(&window, mainEnteredMs);
    window.show();
    if (parser.isSet(screenshot)) {
        const QString target = parser.value(screenshot);
        auto saveAndQuit = [&window, target](int status) {
            // Let layouts and the first paint settle before grabbing.
            QTimer::singleShot(300, &window, [&window, target, status] {
                const bool saved = window.grab().save(target);
                QCoreApplication::exit(saved ? status : 2);
            });
        };
        QObject::connect(&window, &linkscope::ui::MainWindow::projectLoaded, &window,
                         [saveAndQuit] { saveAndQuit(0); });
        QObject::connect(&window, &linkscope::ui::MainWindow::projectFailed, &window,
                         [saveAndQuit] { saveAndQuit(1); });
    }
    if (parser.isSet(screenshots)) {
        auto* tour = new ScreenshotTour(window, parser.value(screenshots));
        if (parser.isSet(screenshotRun)) tour->setRun(QFileInfo(parser.value(screenshotRun)).absoluteFilePath());
        bool validLimit = false;
        const int limit = parser.value(screenshotTimeout).toInt(&validLimit);
        if (!validLimit || limit <= 0) {
            std::fprintf(stderr, "linkscope: --screenshot-timeout needs a positive number of seconds\n");
            return 2;
        }
        tour->setTimeLimit(std::chrono::seconds(limit));
        tour->start();
    }
    if (const QStringList args = parser.positionalArguments(); !args.isEmpty()) {
        // A file, or a team project's postgresql:// address as it is.
        const QString& opened = args.first();
        const bool onServer =
            opened.startsWith(QLatin1String("postgresql://")) || opened.startsWith(QLatin1String("postgres://"));
        window.openProject(onServer ? opened : QFileInfo(opened).absoluteFilePath());
    }
    return QApplication::exec();
}
