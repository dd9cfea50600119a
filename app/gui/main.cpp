// linkscope: the desktop application. Usage: linkscope [PROJECT.json]
#include <QApplication>
#include <QCommandLineParser>
#include <QFileInfo>

#include "main_window.h"

int main(int argc, char* argv[]) {
    QApplication app(argc, argv);
    QApplication::setApplicationName(QStringLiteral("Linkscope"));
    QApplication::setOrganizationName(QStringLiteral("Linkscope"));
    QApplication::setApplicationVersion(QStringLiteral(LINKSCOPE_VERSION));
    QApplication::setDesktopFileName(QStringLiteral("org.linkscope.Linkscope"));

    QCommandLineParser parser;
    parser.setApplicationDescription(QStringLiteral("Biomedical entity linking: curation, training and error analysis"));
    parser.addHelpOption();
    parser.addVersionOption();
    parser.addPositionalArgument(QStringLiteral("project"), QStringLiteral("Project manifest (.json) to open"));
    parser.process(app);

    linkscope::ui::MainWindow window;
    window.show();
    if (const QStringList args = parser.positionalArguments(); !args.isEmpty())
        window.openProject(QFileInfo(args.first()).absoluteFilePath());
    return QApplication::exec();
}
