// The shared reading layer: line splitting, gzip transparency, UTF-8 checks, atomic writes.
#include "fixtures.h"
#include "gzip_fixture.h"
#include "util/atomic_file.h"
#include "util/error.h"
#include "util/line_reader.h"
#include "util/utf8.h"

using namespace linkscope;

namespace {
std::vector<std::string> readAll(const std::filesystem::path& path, LineReaderOptions options = {}) {
    LineReader reader(path, options);
    std::vector<std::string> lines;
    std::string line;
    while (reader.next(line)) lines.push_back(line);
    return lines;
}
}  // namespace

class TestUtil : public QObject {
    Q_OBJECT
    test::FixtureDir dir_;

private Q_SLOTS:
    void splitsLinesAndStripsCarriageReturns() {
        const auto path = dir_.write("a.txt", "one\r\ntwo\n\nlast-without-newline");
        const auto lines = readAll(path);
        QCOMPARE(lines.size(), std::size_t{4});
        QCOMPARE(lines[0], std::string("one"));
        QCOMPARE(lines[2], std::string(""));
        QCOMPARE(lines[3], std::string("last-without-newline"));
    }
    void emptyFileHasNoLines() {
        const auto path = dir_.write("empty.txt", "");
        QVERIFY(readAll(path).empty());
    }
    void linesAcrossChunkBoundaries() {
        std::string content;
        for (int i = 0; i < 20000; ++i) content += std::string(static_cast<std::size_t>(i % 37), 'x') + std::to_string(i) + "\n";
        const auto path = dir_.write("big.txt", content);
        const auto lines = readAll(path);
        QCOMPARE(lines.size(), std::size_t{20000});
        QCOMPARE(lines[19999], std::string(static_cast<std::size_t>(19999 % 37), 'x') + "19999");
    }
    void readsGzipTransparently() {
        test::writeGzip(dir_.path("c.txt.gz"), "alpha\nbeta\n");
        LineReader reader(dir_.path("c.txt.gz"));
        QVERIFY(reader.compressed());
        std::string line;
        QVERIFY(reader.next(line));
        QCOMPARE(line, std::string("alpha"));
        QVERIFY(reader.next(line));
        QCOMPARE(reader.lineNumber(), std::size_t{2});
        QVERIFY(!reader.next(line));
    }
    void truncatedGzipIsAnError() {
        std::string content;
        for (int i = 0; i < 5000; ++i) content += "line number " + std::to_string(i) + "\n";
        test::writeGzip(dir_.path("t.gz"), content);
        auto bytes = test::readFile(dir_.path("t.gz"));
        bytes.resize(bytes.size() / 2);
        test::writeFile(dir_.path("t.gz"), bytes);
        QVERIFY_THROWS_EXCEPTION(ParseError, readAll(dir_.path("t.gz")));
    }
    void invalidUtf8NamesFileAndLine() {
        const auto path = dir_.write("bad.txt", "fine\nbad \xff byte\n");
        LINKSCOPE_EXPECT_PARSE_ERROR(readAll(path), "bad.txt", 2, "UTF-8");
    }
    void hugeLineIsAnErrorNotACrash() {
        const auto path = dir_.write("huge.txt", "short\n" + std::string(5000, 'y') + "\n");
        LineReaderOptions options;
        options.maxLineBytes = 1000;
        LINKSCOPE_EXPECT_PARSE_ERROR(readAll(path, options), "huge.txt", 2, "line longer than 1000 bytes");
    }
    void missingFileIsAClearError() {
        LINKSCOPE_EXPECT_PARSE_ERROR(LineReader reader(dir_.path("does-not-exist.txt")), "does-not-exist.txt", 0,
                                     "does-not-exist.txt: no such file");
    }
    void utf8Validation_data() {
        QTest::addColumn<QByteArray>("bytes");
        QTest::addColumn<int>("firstBad");
        QTest::newRow("ascii") << QByteArray("abc") << -1;
        QTest::newRow("greek") << QByteArray("\xce\xb1-helix") << -1;
        QTest::newRow("overlong") << QByteArray("a\xc0\xaf") << 1;
        QTest::newRow("surrogate") << QByteArray("\xed\xa0\x80") << 0;
        QTest::newRow("truncated") << QByteArray("ab\xe2\x82") << 2;
        QTest::newRow("above-max") << QByteArray("\xf4\x90\x80\x80") << 0;
    }
    void utf8Validation() {
        QFETCH(QByteArray, bytes);
        QFETCH(int, firstBad);
        const auto bad = utf8::firstInvalidByte(std::string_view(bytes.constData(), static_cast<std::size_t>(bytes.size())));
        QCOMPARE(bad ? static_cast<int>(*bad) : -1, firstBad);
    }
    void characterOffsets() {
        const std::string text = "\xce\xb1\xce\xb2 x";  // "αβ x"
        QCOMPARE(utf8::length(text), std::size_t{4});
        const auto offsets = utf8::characterOffsets(text);
        QCOMPARE(offsets, (std::vector<std::size_t>{0, 2, 4, 5, 6}));
    }
    void atomicWriterReplacesOnlyOnCommit() {
        const auto target = dir_.path("out.txt");
        test::writeFile(target, "old");
        {
            AtomicFileWriter writer(target);
            writer.stream() << "new content";
            // no commit: the old file must survive and no temporary may remain
        }
        QCOMPARE(test::readFile(target), std::string("old"));
        {
            AtomicFileWriter writer(target);
            writer.stream() << "new content";
            writer.commit();
        }
        QCOMPARE(test::readFile(target), std::string("new content"));
        for (const auto& entry : std::filesystem::directory_iterator(dir_.root()))
            QVERIFY2(entry.path().filename().string().find(".tmp-") == std::string::npos, "temporary left behind");
    }
};

QTEST_APPLESS_MAIN(TestUtil)
#include "test_util.moc"
