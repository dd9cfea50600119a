// What a desktop and a software centre read from packaging/ and resources/icons: the desktop entry
// and the AppStream metadata pass their validators without a single remark, name each other and
// the icon that is installed, give the homepage CMake gives the .deb, and the icon draws with Qt's
// SVG renderer (the window icon) at the sizes a desktop asks for.
#include <QFile>
#include <QFileInfo>
#include <QImage>
#include <QImageReader>
#include <QMap>
#include <QXmlStreamReader>

#include "package_tools.h"
#include "test_data.h"

using namespace linkscope;

namespace {

const QString kDesktopFile = QStringLiteral(LINKSCOPE_SOURCE_DIR "/packaging/org.linkscope.Linkscope.desktop");
const QString kMetainfoFile = QStringLiteral(LINKSCOPE_SOURCE_DIR "/packaging/org.linkscope.Linkscope.metainfo.xml");
const QString kIconFile = QStringLiteral(LINKSCOPE_SOURCE_DIR "/resources/icons/org.linkscope.Linkscope.svg");

QByteArray contentsOf(const QString& path) {
    QFile file(path);
    return file.open(QIODevice::ReadOnly) ? file.readAll() : QByteArray();
}

// The keys of the [Desktop Entry] group as written (QSettings would split the ';' lists).
QMap<QString, QString> desktopEntry(const QString& path) {
    QMap<QString, QString> keys;
    bool inEntry = false;
    for (const QByteArray& raw : contentsOf(path).split('\n')) {
        const QString line = QString::fromUtf8(raw).trimmed();
        if (line.startsWith(QLatin1Char('[')))
            inEntry = line == QLatin1String("[Desktop Entry]");
        else if (inEntry && line.contains(QLatin1Char('=')) && !line.startsWith(QLatin1Char('#')))
            keys.insert(line.section(QLatin1Char('='), 0, 0).trimmed(), line.section(QLatin1Char('='), 1).trimmed());
    }
    return keys;
}

struct Metainfo {
    QString id, launchable, homepage, developer;
    QStringList binaries;
    bool contentRating = false;
};

Metainfo readMetainfo(const QString& path) {
    Metainfo info;
    QXmlStreamReader xml(contentsOf(path));
    while (!xml.atEnd()) {
        if (xml.readNext() != QXmlStreamReader::StartElement) continue;
        const auto name = xml.name();
        if (name == QLatin1String("id"))
            info.id = xml.readElementText();
        else if (name == QLatin1String("launchable"))
            info.launchable = xml.readElementText();
        else if (name == QLatin1String("developer_name"))
            info.developer = xml.readElementText();
        else if (name == QLatin1String("binary"))
            info.binaries << xml.readElementText();
        else if (name == QLatin1String("content_rating"))
            info.contentRating = true;
        else if (name == QLatin1String("url") &&
                 xml.attributes().value(QLatin1String("type")) == QLatin1String("homepage"))
            info.homepage = xml.readElementText();
    }
    if (xml.hasError()) info.id = QStringLiteral("XML error: ") + xml.errorString();
    return info;
}

}  // namespace

class TestPackagingMetadata : public QObject {
    Q_OBJECT

private Q_SLOTS:
    // A hint counts too ("contains more than one main category" put the entry in two menus).
    void desktopEntryValidates() {
        const QString validator = QStandardPaths::findExecutable(QStringLiteral("desktop-file-validate"));
        if (validator.isEmpty())
            QSKIP(
                "absent: desktop-file-validate is not installed (Debian package desktop-file-utils, "
                "packaging/install-deps.sh)");
        const auto r = test::runTool(validator, {kDesktopFile});
        QVERIFY2(r.exitCode == 0, r.all().constData());
        QVERIFY2(r.all().trimmed().isEmpty(), r.all().constData());
    }

    // --strict fails on anything above a pedantic remark; --no-net because the suite must not
    // depend on the network (and the homepage is a placeholder that does not resolve).
    void metainfoValidates() {
        const QString validator = QStandardPaths::findExecutable(QStringLiteral("appstreamcli"));
        if (validator.isEmpty())
            QSKIP("absent: appstreamcli is not installed (Debian package appstream, packaging/install-deps.sh)");
        const auto r = test::runTool(validator, {QStringLiteral("validate"), QStringLiteral("--no-net"),
                                                 QStringLiteral("--strict"), kMetainfoFile});
        QVERIFY2(r.exitCode == 0, r.all().constData());
        QVERIFY2(r.out.contains("Validation was successful"), r.all().constData());
        for (const QByteArray& line : r.out.split('\n'))
            QVERIFY2(!line.startsWith("E:") && !line.startsWith("W:") && !line.startsWith("I:"), line.constData());
    }

    // The names that tie the three files together: a software centre finds the desktop entry
    // through <launchable>, the desktop finds the icon through Icon=.
    void entryMetainfoAndIconNameEachOther() {
        const auto entry = desktopEntry(kDesktopFile);
        QCOMPARE(entry.value(QStringLiteral("Type")), QStringLiteral("Application"));
        QCOMPARE(entry.value(QStringLiteral("Exec")).section(QLatin1Char(' '), 0, 0), QStringLiteral("linkscope"));
        QCOMPARE(entry.value(QStringLiteral("Icon")), QFileInfo(kIconFile).completeBaseName());
        QVERIFY(QFileInfo::exists(kIconFile));

        const Metainfo info = readMetainfo(kMetainfoFile);
        QCOMPARE(info.id, QStringLiteral("org.linkscope.Linkscope"));
        QCOMPARE(info.launchable, QFileInfo(kDesktopFile).fileName());
        QCOMPARE(info.developer, QStringLiteral("Linkscope developers"));
        QVERIFY(info.contentRating);
        QCOMPARE(info.binaries, (QStringList{QStringLiteral("linkscope"), QStringLiteral("linkscope-cli")}));
    }

    // One homepage for the .deb (PROJECT_HOMEPAGE_URL) and the software centre.
    void homepageIsTheProjects() {
        const Metainfo info = readMetainfo(kMetainfoFile);
        QCOMPARE(info.homepage, QStringLiteral(LINKSCOPE_HOMEPAGE_URL));
        QVERIFY(!info.homepage.contains(QLatin1String("example.org")));
    }

    // Qt draws the window icon with its SVG plugin, which supports SVG Tiny 1.2 only: the icon
    // must come out whole, on a transparent ground, at every size a desktop asks for.
    void iconDrawsWithQt() {
        if (!QImageReader::supportedImageFormats().contains("svg"))
            QSKIP(
                "absent: Qt's SVG image plugin is not installed (Debian package libqt6svg6, "
                "packaging/install-deps.sh)");
        for (const int size : {16, 24, 32, 48, 64, 128, 256}) {
            QImageReader reader(kIconFile);
            reader.setScaledSize(QSize(size, size));
            const QImage image = reader.read().convertToFormat(QImage::Format_ARGB32);
            QVERIFY2(!image.isNull(), qPrintable(reader.errorString()));
            QCOMPARE(image.size(), QSize(size, size));
            // Positions in the 128-unit view box: the empty top-right corner, the lens ring's top,
            // the orange mention node.
            auto at = [&](double x, double y) { return image.pixelColor(int(x * size / 128), int(y * size / 128)); };
            QCOMPARE(at(127, 0).alpha(), 0);
            const QColor ring = at(54, 16);
            // Opaque but for antialiasing: at 16 px the pixel also takes in the ring's edge.
            QVERIFY2(ring.alpha() >= 240,
                     qPrintable(QStringLiteral("%1 px: ring alpha %2").arg(size).arg(ring.alpha())));
            QVERIFY2(ring.blue() > ring.red() + 60,
                     qPrintable(QStringLiteral("%1 px: ring %2").arg(size).arg(ring.name())));
            if (size >= 32) {
                const QColor mention = at(39, 66);
                QVERIFY2(mention.red() > mention.blue() + 60,
                         qPrintable(QStringLiteral("%1 px: mention %2").arg(size).arg(mention.name())));
            }
        }
    }
};

QTEST_MAIN(TestPackagingMetadata)
#include "test_packaging_metadata.moc"
