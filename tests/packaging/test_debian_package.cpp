// The .deb as a user gets it: cpack builds it from this build tree, dpkg-deb unpacks it (and its
// -dbgsym .ddeb) into a temporary root, and from there linkscope-cli answers --help and the GUI
// opens the packaged demo project offscreen and saves a screenshot. The package carries what a
// desktop shows (entry, AppStream metadata, hicolor icon), stripped binaries whose debug symbols
// are in the .ddeb under their build id, computed dependencies, and the project's name and
// homepage (not example.org).
#include <QDir>
#include <QDirIterator>
#include <QFileInfo>
#include <QImage>
#include <QSet>
#include <QTemporaryDir>

#include "package_tools.h"
#include "test_data.h"

using namespace linkscope;

class TestDebianPackage : public QObject {
    Q_OBJECT
    QTemporaryDir dir_;
    QString dpkgDeb_;
    QString deb_;
    QString root_;       // the .deb unpacked
    QString debugRoot_;  // the .ddeb unpacked

    QString packaged(const QString& relative) const { return root_ + QLatin1Char('/') + relative; }
    QString field(const QString& name) const {
        return QString::fromUtf8(test::runTool(dpkgDeb_, {QStringLiteral("-f"), deb_, name}).out).trimmed();
    }
    static QByteArray contentsOf(const QString& path) {
        QFile file(path);
        return file.open(QIODevice::ReadOnly) ? file.readAll() : QByteArray();
    }
    QString unpack(const QString& package, const QString& into) {
        const auto r = test::runTool(dpkgDeb_, {QStringLiteral("-x"), package, into});
        return r.exitCode == 0 ? into : QString::fromUtf8(r.all());
    }

private Q_SLOTS:
    // Builds and unpacks the package once for every check below (cpack is the slow part).
    void initTestCase() {
        QString cpack = QStringLiteral(LINKSCOPE_CPACK_COMMAND);
        if (!QFileInfo(cpack).isExecutable()) cpack = QStandardPaths::findExecutable(QStringLiteral("cpack"));
        if (cpack.isEmpty()) QSKIP("absent: cpack is not installed (Debian package cmake)");
        dpkgDeb_ = QStandardPaths::findExecutable(QStringLiteral("dpkg-deb"));
        if (dpkgDeb_.isEmpty()) QSKIP("absent: dpkg-deb is not installed (Debian package dpkg)");
        QVERIFY(dir_.isValid());

        const QString out = dir_.filePath(QStringLiteral("cpack"));
        const auto r = test::runTool(cpack, {QStringLiteral("--config"), QStringLiteral(LINKSCOPE_CPACK_CONFIG),
                                             QStringLiteral("-G"), QStringLiteral("DEB"), QStringLiteral("-B"), out});
        QVERIFY2(r.exitCode == 0, r.all().constData());
        const QStringList debs = QDir(out).entryList({QStringLiteral("linkscope_*.deb")}, QDir::Files);
        const QStringList ddebs = QDir(out).entryList({QStringLiteral("linkscope-dbgsym_*.ddeb")}, QDir::Files);
        QVERIFY2(debs.size() == 1 && ddebs.size() == 1, qPrintable(QDir(out).entryList(QDir::Files).join(u' ')));
        deb_ = out + QLatin1Char('/') + debs.first();
        root_ = unpack(deb_, dir_.filePath(QStringLiteral("root")));
        QCOMPARE(root_, dir_.filePath(QStringLiteral("root")));
        debugRoot_ = unpack(out + QLatin1Char('/') + ddebs.first(), dir_.filePath(QStringLiteral("dbgsym")));
        QCOMPARE(debugRoot_, dir_.filePath(QStringLiteral("dbgsym")));
    }

    // Name, maintainer and homepage are the project's, and Depends is what dpkg-shlibdeps found in
    // the binaries (Qt, libc) plus the SVG plugin Qt loads at run time.
    void controlFieldsAreTheProjects() {
        QCOMPARE(field(QStringLiteral("Package")), QStringLiteral("linkscope"));
        QVERIFY2(field(QStringLiteral("Maintainer")).startsWith(QLatin1String("Linkscope developers <")),
                 qPrintable(field(QStringLiteral("Maintainer"))));
        QCOMPARE(field(QStringLiteral("Homepage")), QStringLiteral(LINKSCOPE_HOMEPAGE_URL));
        const QString depends = field(QStringLiteral("Depends"));
        for (const char* package : {"libc6 (", "libqt6core6 (", "libqt6widgets6 (", "libqt6svg6"})
            QVERIFY2(depends.contains(QLatin1String(package)), qPrintable(depends));
        const auto control = test::runTool(dpkgDeb_, {QStringLiteral("-f"), deb_});
        QCOMPARE(control.exitCode, 0);
        QVERIFY2(!control.out.contains("example.org"), control.out.constData());
    }

    // What a desktop and a software centre read, installed where they look, as written in the tree.
    void installsTheDesktopFiles() {
        const std::pair<const char*, const char*> files[] = {
            {"usr/share/applications/org.linkscope.Linkscope.desktop", "packaging/org.linkscope.Linkscope.desktop"},
            {"usr/share/metainfo/org.linkscope.Linkscope.metainfo.xml",
             "packaging/org.linkscope.Linkscope.metainfo.xml"},
            {"usr/share/icons/hicolor/scalable/apps/org.linkscope.Linkscope.svg",
             "resources/icons/org.linkscope.Linkscope.svg"},
            {"usr/share/linkscope/demo/demo-project.json", "resources/demo/demo-project.json"},
            {"usr/share/linkscope/models/biosyn.json", "models/biosyn.json"},
        };
        for (const auto& [installed, source] : files) {
            const QByteArray bytes = contentsOf(packaged(QString::fromUtf8(installed)));
            QVERIFY2(!bytes.isEmpty(), installed);
            QVERIFY2(bytes == contentsOf(QStringLiteral(LINKSCOPE_SOURCE_DIR "/") + QString::fromUtf8(source)),
                     installed);
        }
    }

    // The binaries of the .deb carry no debug info nor symbol table, only a link to their debug
    // file; the .ddeb holds that file under the build id, which is the build tree's binary's own.
    void binariesAreStrippedWithSymbolsApart() {
        const std::pair<const char*, const char*> binaries[] = {{"linkscope", LINKSCOPE_GUI_PATH},
                                                                {"linkscope-cli", LINKSCOPE_CLI_PATH}};
        for (const auto& [name, built] : binaries) {
            const test::ElfFile stripped =
                test::readElf(packaged(QStringLiteral("usr/bin/") + QString::fromUtf8(name)));
            QVERIFY2(stripped.ok, name);
            QVERIFY2(!stripped.sections.count(".debug_info") && !stripped.sections.count(".symtab"), name);
            QVERIFY2(stripped.sections.count(".gnu_debuglink"), name);
            QVERIFY2(!stripped.buildId.empty(), name);

            const test::ElfFile original = test::readElf(QString::fromUtf8(built));
            QVERIFY2(original.sectionsWithData.count(".debug_info"), "the build tree's binaries have no debug info");
            QCOMPARE(stripped.buildId, original.buildId);

            const QString id = QString::fromStdString(stripped.buildId);
            const QString debugFile = debugRoot_ + QStringLiteral("/usr/lib/debug/.build-id/") + id.left(2) +
                                      QLatin1Char('/') + id.mid(2) + QStringLiteral(".debug");
            const test::ElfFile symbols = test::readElf(debugFile);
            QVERIFY2(symbols.ok, qPrintable(debugFile));
            QVERIFY2(symbols.sectionsWithData.count(".debug_info") && symbols.sectionsWithData.count(".symtab"),
                     qPrintable(debugFile));
            QCOMPARE(symbols.buildId, stripped.buildId);
        }
    }

    void cliRunsFromThePackage() {
        const auto r = test::runTool(packaged(QStringLiteral("usr/bin/linkscope-cli")), {QStringLiteral("--help")});
        QVERIFY2(r.exitCode == 0, r.all().constData());
        QVERIFY2(r.out.contains("Subcommands:") && r.out.contains("stats") && r.out.contains("export"),
                 r.out.constData());
    }

    // The light linkscope-cli hands a model command to linkscope-cli-dense, which the package
    // installs in its library folder with the two engine libraries and the GUI's dense module:
    // `encode --help` answers only when the handover finds the program and its libraries there.
    // A package built without LibTorch holds none of them, and the command says so.
    void modelCommandsRunFromThePackage() {
        QSet<QString> installed;
        for (QDirIterator it(root_, QDir::Files, QDirIterator::Subdirectories); it.hasNext();)
            installed.insert(QFileInfo(it.next()).fileName());
        QVERIFY(installed.contains(QStringLiteral("liblinkscope_core.so")));
        for (const char* name : {"linkscope-cli-dense", "liblinkscope_dense.so", "liblinkscope_ui_dense.so"})
            QVERIFY2(installed.contains(QString::fromUtf8(name)) == LINKSCOPE_EXPECT_DENSE, name);
        const auto r = test::runTool(packaged(QStringLiteral("usr/bin/linkscope-cli")),
                                     {QStringLiteral("encode"), QStringLiteral("--help")});
        if (!LINKSCOPE_EXPECT_DENSE) {
            QVERIFY2(r.exitCode != 0 && r.out.isEmpty(), r.all().constData());
            QVERIFY2(r.err.contains("needs the dense engine (LibTorch), which this build of linkscope-cli lacks"),
                     r.all().constData());
            return;
        }
        QVERIFY2(r.exitCode == 0, r.all().constData());
        QVERIFY2(r.out.contains("--model"), r.out.constData());
    }

    // The packaged GUI on the packaged demo project: --screenshot quits with 0 only when the
    // project opened and the PNG was saved. Settings and the project file go into the
    // temporary folder, not the user's home.
    void guiOpensTheDemoFromThePackage() {
        const QString home = dir_.filePath(QStringLiteral("home"));
        QVERIFY(QDir().mkpath(home));
        QProcessEnvironment environment = QProcessEnvironment::systemEnvironment();
        environment.insert(QStringLiteral("QT_QPA_PLATFORM"), QStringLiteral("offscreen"));
        environment.insert(QStringLiteral("HOME"), home);
        environment.insert(QStringLiteral("XDG_CONFIG_HOME"), home + QStringLiteral("/config"));
        environment.insert(QStringLiteral("XDG_DATA_HOME"), home + QStringLiteral("/data"));
        environment.insert(QStringLiteral("XDG_CACHE_HOME"), home + QStringLiteral("/cache"));
        const QString screenshot = dir_.filePath(QStringLiteral("window.png"));
        const auto r = test::runTool(packaged(QStringLiteral("usr/bin/linkscope")),
                                     {packaged(QStringLiteral("usr/share/linkscope/demo/demo-project.json")),
                                      QStringLiteral("--screenshot"), screenshot},
                                     environment);
        QVERIFY2(r.exitCode == 0, r.all().constData());

        const QImage image(screenshot);
        QVERIFY2(!image.isNull(), qPrintable(screenshot));
        QVERIFY2(image.width() >= 200 && image.height() >= 150,
                 qPrintable(QStringLiteral("%1x%2").arg(image.width()).arg(image.height())));
        // A window with docks, text and highlighted mentions, not a blank surface.
        QSet<QRgb> colours;
        for (int y = 0; y < image.height(); y += 3)
            for (int x = 0; x < image.width(); x += 3) colours.insert(image.pixel(x, y));
        QVERIFY2(colours.size() > 16, qPrintable(QString::number(colours.size())));

        // Opening the manifest created its project file (see README, "Curating").
        bool projectFile = false;
        for (QDirIterator it(home + QStringLiteral("/data"), {QStringLiteral("*.linkscope")}, QDir::Files,
                             QDirIterator::Subdirectories);
             it.hasNext();) {
            it.next();
            projectFile = true;
        }
        QVERIFY(projectFile);
    }
};

QTEST_MAIN(TestDebianPackage)
#include "test_debian_package.moc"
