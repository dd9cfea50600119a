// The shared reading layer: line splitting, gzip transparency, UTF-8 checks, atomic writes.
#include "fixtures.h"
#include "gzip_fixture.h"
#include "util/atomic_file.h"
#include "util/error.h"
#include "util/inner_products.h"
#include "util/json_file.h"
#include "util/line_reader.h"
#include "util/utf8.h"

#include <algorithm>
#include <cmath>
#include <random>
#include <vector>

#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

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
        for (int i = 0; i < 20000; ++i)
            content += std::string(static_cast<std::size_t>(i % 37), 'x') + std::to_string(i) + "\n";
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
        const auto bad =
            utf8::firstInvalidByte(std::string_view(bytes.constData(), static_cast<std::size_t>(bytes.size())));
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
    // A byte-order mark is not text: left in, it joins the first identifier of a KB or corpus.
    void byteOrderMarkIsStrippedFromTheFirstLineOnly() {
        const auto path = dir_.write("bom.txt", "\xEF\xBB\xBFMESH:D1\tname\n\xEF\xBB\xBFsecond\n");
        const auto lines = readAll(path);
        QCOMPARE(lines.size(), std::size_t{2});
        QCOMPARE(lines[0], std::string("MESH:D1\tname"));
        // Not a file's start: a BOM inside the text is a (zero-width) character and stays.
        QCOMPARE(lines[1], std::string("\xEF\xBB\xBFsecond"));
        test::writeGzip(dir_.path("bom.gz"),
                        "\xEF\xBB\xBF"
                        "a\nb\n");
        QCOMPARE(readAll(dir_.path("bom.gz")), (std::vector<std::string>{"a", "b"}));
    }
    // A file saved with classic Mac line ends is read line by line, not as one long line.
    void carriageReturnOnlyFilesAreReadLineByLine() {
        const auto path = dir_.write("cr.txt", "1|t|Title\r1|a|Abstract\r\r2|t|Next");
        LineReader reader(path);
        std::vector<std::string> lines;
        std::string line;
        while (reader.next(line)) lines.push_back(line);
        QCOMPARE(lines, (std::vector<std::string>{"1|t|Title", "1|a|Abstract", "", "2|t|Next"}));
        QCOMPARE(reader.lineNumber(), std::size_t{4});
        // The same split when the first line break falls on the buffer's end.
        std::string longFirst(65535, 'x');
        const auto edge = dir_.write("cr-edge.txt", longFirst + "\ry\r");
        QCOMPARE(readAll(edge), (std::vector<std::string>{longFirst, "y"}));
        // A "\r\n" file whose "\r" ends the first buffer is still a "\r\n" file.
        std::string first(65535, 'z');
        const auto crlf = dir_.write("crlf-edge.txt", first + "\r\nsecond\r\n");
        QCOMPARE(readAll(crlf), (std::vector<std::string>{first, "second"}));
        // In a "\n" file a lone "\r" inside a line is content, as before.
        const auto stray = dir_.write("stray.txt", "a\rb\nc\n");
        QCOMPARE(readAll(stray), (std::vector<std::string>{"a\rb", "c"}));
    }
    void deeplyNestedJsonIsAnErrorNotAStackOverflow() {
        const std::string deep = std::string(200000, '[') + std::string(200000, ']');
        try {
            parseJson(deep, "deep.json");
            QFAIL("nesting of 200,000 levels was accepted");
        } catch (const ParseError& e) {
            QCOMPARE(e.file(), std::string("deep.json"));
            QVERIFY2(std::string(e.what()).find("nested deeper than") != std::string::npos, e.what());
        }
        // The bound itself: kMaxJsonDepth levels read, one more refused.
        const auto nested = [](int levels) {
            return std::string(std::size_t(levels), '[') + std::string(std::size_t(levels), ']');
        };
        QVERIFY(parseJson(nested(kMaxJsonDepth), "ok.json").is_array());
        QVERIFY_THROWS_EXCEPTION(ParseError, parseJson(nested(kMaxJsonDepth + 2), "over.json"));
        // The line where the nesting passes the bound (brackets inside strings do not count).
        const std::string lines = "{\n\"a\": \"[[[[\",\n\"b\":\n" + nested(100);
        LINKSCOPE_EXPECT_PARSE_ERROR(parseJson(lines, "lines.json"), "lines.json", 4, "nested deeper than 64 levels");
    }
    // A file read whole is refused once its text passes the bound, before it is held: a small
    // gzip of newlines cannot expand into all of the memory.
    void readTextFileStopsAtItsBound() {
        // Lines 1 to 1001 make 1000 bytes (the newlines between them); line 1002 passes the bound.
        test::writeGzip(dir_.path("bomb.gz"), std::string(1 << 20, '\n'));
        LINKSCOPE_EXPECT_PARSE_ERROR(readTextFile(dir_.path("bomb.gz"), 1000), dir_.path("bomb.gz"), 1002,
                                     "larger than 1000 bytes (decompressed)");
        const auto small = dir_.write("small.json", "{\"a\": 1}\n");
        QCOMPARE(readTextFile(small, 9), std::string("{\"a\": 1}"));
        QVERIFY_THROWS_EXCEPTION(ParseError, readTextFile(small, 8));
    }
    void briefJsonNeverRecursesAndStaysShort() {
        nlohmann::json deep = nlohmann::json::array();
        nlohmann::json* inner = &deep;
        for (int i = 0; i < 100000; ++i) inner = &inner->emplace_back(nlohmann::json::array());
        QCOMPARE(briefJson(deep), std::string("an array of 1 values"));
        QCOMPARE(briefJson(nlohmann::json::object()), std::string("an object of 0 keys"));
        QCOMPARE(briefJson(nlohmann::json(12)), std::string("12"));
        const std::string shown = briefJson(nlohmann::json(std::string(100000, 'a')));
        QVERIFY2(shown.size() <= 84, shown.c_str());
        QVERIFY(shown.ends_with("..."));
        // A cut inside a multi-byte character is replaced, never left as invalid UTF-8.
        QVERIFY(!utf8::firstInvalidByte(briefJson(nlohmann::json(std::string("\xce\xb1\xce\xb1\xce\xb1")), 3)));
    }
    void innerProductsWithinTheirRoundingBound() {
        // 70 x 33 products of unit rows in 300 dimensions against a double-precision sum; each
        // within the bound innerProducts documents (here about 1.8e-5), which the kNN
        // datastore's batched search relies on to rule rows out.
        const std::size_t dimension = 300, aRows = 70, bRows = 33;
        std::mt19937 random(5);
        std::normal_distribution<float> normal;
        const auto unitRows = [&](std::size_t rows) {
            std::vector<float> values(rows * dimension);
            for (std::size_t r = 0; r < rows; ++r) {
                double squares = 0;
                for (std::size_t i = 0; i < dimension; ++i) {
                    values[r * dimension + i] = normal(random);
                    squares += double(values[r * dimension + i]) * values[r * dimension + i];
                }
                for (std::size_t i = 0; i < dimension; ++i)
                    values[r * dimension + i] = static_cast<float>(values[r * dimension + i] / std::sqrt(squares));
            }
            return values;
        };
        const auto a = unitRows(aRows), b = unitRows(bRows);
        std::vector<float> out(aRows * bRows, -7.0f);
        util::innerProducts(a, b, dimension, out);
        const double bound = util::innerProductRoundingBound(dimension);
        QVERIFY(bound > 1e-5 && bound < 3e-5);
        double worst = 0;
        for (std::size_t i = 0; i < aRows; ++i)
            for (std::size_t j = 0; j < bRows; ++j) {
                double exact = 0;
                for (std::size_t t = 0; t < dimension; ++t)
                    exact += double(a[i * dimension + t]) * b[j * dimension + t];
                worst = std::max(worst, std::abs(out[i * bRows + j] - exact));
            }
        QVERIFY2(worst <= bound, qPrintable(QString::number(worst)));
        // Sizes that are not whole rows, or room of the wrong size: errors, nothing written.
        std::vector<float> small(5, -7.0f);
        QVERIFY_THROWS_EXCEPTION(Error, util::innerProducts(a, b, dimension, small));
        QVERIFY_THROWS_EXCEPTION(Error, util::innerProducts(std::span(a).first(299), b, dimension, out));
        QVERIFY_THROWS_EXCEPTION(Error, util::innerProducts(a, b, 0, out));
        QVERIFY(std::all_of(small.begin(), small.end(), [](float v) { return v == -7.0f; }));
        // No rows: nothing to do.
        util::innerProducts({}, b, dimension, {});
    }
    void atomicWriterKeepsTheTargetsMode() {
        const auto target = dir_.path("mode.txt");
        test::writeFile(target, "old");
        QCOMPARE(::chmod(target.c_str(), 0640), 0);
        {
            AtomicFileWriter writer(target);
            writer.stream() << "new";
            writer.commit();
        }
        struct stat info {};
        QCOMPARE(::stat(target.c_str(), &info), 0);
        QCOMPARE(int(info.st_mode & 07777), 0640);
        QCOMPARE(test::readFile(target), std::string("new"));
    }
    // A linked file is updated through the link; the link is not replaced by a plain file.
    void atomicWriterWritesThroughASymbolicLink() {
        const auto real = dir_.path("real.json");
        test::writeFile(real, "old");
        const auto link = dir_.path("link.json");
        std::filesystem::create_symlink(real, link);
        {
            AtomicFileWriter writer(link);
            QCOMPARE(writer.destination(), std::filesystem::canonical(real));
            writer.stream() << "new";
            writer.commit();
        }
        QVERIFY(std::filesystem::is_symlink(std::filesystem::symlink_status(link)));
        QCOMPARE(test::readFile(real), std::string("new"));
    }
    // A writer killed before commit leaves "<target>.tmp-<pid>-N"; the next writer of that
    // target removes it when that process no longer runs, and keeps a live writer's file.
    void atomicWriterRemovesTemporariesOfDeadWriters() {
        std::filesystem::create_directories(dir_.path("stale"));
        const auto target = dir_.path("stale/stale.txt");
        const pid_t child = ::fork();
        if (child == 0) ::_exit(0);
        QVERIFY(child > 0);
        int status = 0;
        QCOMPARE(::waitpid(child, &status, 0), child);  // reaped: its pid no longer runs
        const auto dead = dir_.path("stale/stale.txt.tmp-" + std::to_string(child) + "-123");
        const auto alive = dir_.path("stale/stale.txt.tmp-" + std::to_string(::getpid()) + "-456");
        const auto other = dir_.path("stale/stale.txt.tmp-notapid");
        for (const auto& file : {dead, alive, other}) test::writeFile(file, "partial");
        {
            AtomicFileWriter writer(target);
            writer.stream() << "whole";
            writer.commit();
        }
        QVERIFY2(!std::filesystem::exists(dead), "a dead writer's temporary was kept");
        QVERIFY(std::filesystem::exists(alive));
        QVERIFY(std::filesystem::exists(other));
        QCOMPARE(test::readFile(target), std::string("whole"));
    }
    void atomicWriterRefusesToReplaceAFolder() {
        const auto folder = dir_.path("a-folder");
        std::filesystem::create_directories(folder);
        QVERIFY_THROWS_EXCEPTION(Error, AtomicFileWriter{folder});
        QVERIFY(std::filesystem::is_directory(folder));
    }
};

QTEST_APPLESS_MAIN(TestUtil)
#include "test_util.moc"
