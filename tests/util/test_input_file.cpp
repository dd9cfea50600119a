// Opening files for reading (util/input_file.h): a FIFO, a device or a folder is refused
// without waiting, through every way the readers open files (InputFile, the gzip reader,
// LineReader, readTextFile, the binary stream); what a regular file holds reads as it is.
// Also the newline index and the in-place text buffer that the BioC reader uses.
#include "fixtures.h"
#include "gzip_fixture.h"
#include "util/error.h"
#include "util/input_file.h"
#include "util/line_reader.h"
#include "util/newline_index.h"
#include "util/text_file.h"

#include <algorithm>
#include <functional>
#include <random>
#include <string>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

using namespace linkscope;

namespace {

// Every way a reader opens a path; each must refuse what is not a regular file.
std::vector<std::pair<const char*, std::function<void(const std::filesystem::path&)>>> openers() {
    return {
        {"InputFile", [](const std::filesystem::path& p) { (void)InputFile::open(p); }},
        {"openGzipInput", [](const std::filesystem::path& p) { (void)openGzipInput(p); }},
        {"LineReader", [](const std::filesystem::path& p) { LineReader reader(p); }},
        {"readTextFile", [](const std::filesystem::path& p) { (void)readTextFile(p); }},
        {"readTextBuffer", [](const std::filesystem::path& p) { (void)readTextBuffer(p); }},
        {"InputFileStream", [](const std::filesystem::path& p) { InputFileStream in(p); }},
    };
}

// Lines by counting, for comparison with the index.
std::size_t naiveLine(const std::string& text, std::size_t offset) {
    offset = std::min(offset, text.size());
    return 1 +
           static_cast<std::size_t>(std::count(text.begin(), text.begin() + static_cast<std::ptrdiff_t>(offset), '\n'));
}

}  // namespace

class TestInputFile : public QObject {
    Q_OBJECT
    test::FixtureDir dir_;

private Q_SLOTS:
    void aFifoIsRefusedWithoutWaiting() {
        const auto fifo = dir_.path("pipe");
        QCOMPARE(::mkfifo(fifo.c_str(), 0600), 0);
        // A reader that waited for a writer would never return: the alarm ends the test instead.
        ::alarm(20);
        for (const auto& [name, open] : openers())
            LINKSCOPE_EXPECT_PARSE_ERROR(open(fifo), fifo, 0, "is a FIFO (named pipe), expected a regular file");
        ::alarm(0);
    }
    void aDeviceIsRefused() {
        for (const auto& [name, open] : openers())
            LINKSCOPE_EXPECT_PARSE_ERROR(open("/dev/zero"), "/dev/zero", 0, "is a character device");
    }
    void aFolderIsRefused() {
        std::filesystem::create_directory(dir_.path("folder"));
        for (const auto& [name, open] : openers())
            LINKSCOPE_EXPECT_PARSE_ERROR(open(dir_.path("folder")), dir_.path("folder"), 0,
                                         "is a folder, expected a file");
    }
    void missingFilesAndLinkLoopsAreNamed() {
        for (const auto& [name, open] : openers())
            LINKSCOPE_EXPECT_PARSE_ERROR(open(dir_.path("absent.txt")), dir_.path("absent.txt"), 0, "no such file");
        std::filesystem::create_symlink("loop", dir_.path("loop"));
        LINKSCOPE_EXPECT_PARSE_ERROR(InputFile::open(dir_.path("loop")), dir_.path("loop"), 0, "symbolic links");
    }
    void whatTheReaderOpensIsNamedInTheMessage() {
        LINKSCOPE_EXPECT_PARSE_ERROR(InputFileStream(dir_.path("absent.bin"), "the kNN datastore file"),
                                     dir_.path("absent.bin"), 0, "cannot open the kNN datastore file: no such file");
    }
    void aLinkToARegularFileIsFollowed() {
        const auto target = dir_.write("target.txt", "one\ntwo\n");
        std::filesystem::create_symlink(target, dir_.path("link.txt"));
        QCOMPARE(readTextFile(dir_.path("link.txt")), std::string("one\ntwo"));
        QCOMPARE(InputFile::open(dir_.path("link.txt")).size(), std::uint64_t{8});
    }
    void theDescriptorBlocksAgainAfterTheCheck() {
        const InputFile file = InputFile::open(dir_.write("plain.txt", "x"));
        QVERIFY((::fcntl(file.descriptor(), F_GETFL) & O_NONBLOCK) == 0);
        QVERIFY((::fcntl(file.descriptor(), F_GETFD) & FD_CLOEXEC) != 0);
    }
    void theStreamReadsSeeksAndTells() {
        std::string bytes(200000, '\0');
        std::mt19937 random(7);
        for (auto& byte : bytes) byte = static_cast<char>(random() & 0xFF);
        const auto file = dir_.write("data.bin", bytes);
        InputFileStream in(file, "the data", std::ios::binary | std::ios::ate);
        QCOMPARE(static_cast<std::size_t>(in.tellg()), bytes.size());
        QCOMPARE(in.fileSize(), std::uint64_t{bytes.size()});
        in.seekg(0);
        char small[10];
        QVERIFY(in.read(small, sizeof small));
        QCOMPARE(std::string(small, sizeof small), bytes.substr(0, 10));
        QCOMPARE(static_cast<std::size_t>(in.tellg()), std::size_t{10});
        std::string large(150000, '\0');  // larger than the stream's buffer: read straight through
        QVERIFY(in.read(large.data(), static_cast<std::streamsize>(large.size())));
        QCOMPARE(large, bytes.substr(10, large.size()));
        in.seekg(-5, std::ios::cur);
        QCOMPARE(static_cast<std::size_t>(in.tellg()), std::size_t{150005});
        in.seekg(-3, std::ios::end);
        std::string tail(10, '\0');
        in.read(tail.data(), 10);
        QCOMPARE(static_cast<std::size_t>(in.gcount()), std::size_t{3});  // short read at the end
        QVERIFY(in.eof());
        QCOMPARE(tail.substr(0, 3), bytes.substr(bytes.size() - 3));
    }
    void gzipThroughTheCheckedDescriptor() {
        test::writeGzip(dir_.path("c.txt.gz"), "alpha\nbeta\n");
        LineReader reader(dir_.path("c.txt.gz"));
        std::string line;
        QVERIFY(reader.next(line));
        QCOMPARE(line, std::string("alpha"));
        QVERIFY(reader.compressed());
        QVERIFY(reader.fileBytes() > 0);
    }
    void requireFolderSaysWhatItFound() {
        std::filesystem::create_directory(dir_.path("f"));
        requireFolder(dir_.path("f"));
        LINKSCOPE_EXPECT_PARSE_ERROR(requireFolder(dir_.write("file.txt", "x"), "the model folder"),
                                     dir_.path("file.txt"), 0, "cannot open the model folder: is a file");
        LINKSCOPE_EXPECT_PARSE_ERROR(requireFolder(dir_.path("none")), dir_.path("none"), 0, "no such folder");
    }
    void newlineIndexAgreesWithCounting() {
        std::mt19937 random(3);
        for (const std::size_t size : {std::size_t{0}, std::size_t{1}, std::size_t{63}, std::size_t{64},
                                       std::size_t{65}, std::size_t{40000}, std::size_t{32768 * 3}}) {
            std::string text(size, 'a');
            for (auto& c : text)
                if (random() % 7 == 0) c = '\n';
            const NewlineIndex index(text);
            for (std::size_t offset = 0; offset <= size + 2; offset += (size > 1000 ? 97 : 1))
                QCOMPARE(index.lineOf(offset), naiveLine(text, offset));
            QCOMPARE(index.lineOf(size), naiveLine(text, size));
        }
    }
    void textBufferHoldsWhatReadTextFileReturns() {
        std::string content;
        for (int i = 0; i < 5000; ++i) content += "line " + std::to_string(i) + "\r\n";
        const auto plain = dir_.write("lines.txt", "\xEF\xBB\xBF" + content);
        test::writeGzip(dir_.path("lines.txt.gz"), content);
        for (const auto& file : {plain, dir_.path("lines.txt.gz")}) {
            const std::string text = readTextFile(file);
            const TextBuffer buffer = readTextBuffer(file);
            QCOMPARE(std::string(buffer.view()), text);
            QVERIFY(text.starts_with("line 0\nline 1\n"));
            LINKSCOPE_EXPECT_PARSE_ERROR(readTextBuffer(file, 1000), file, 124, "larger than 1000 bytes");
        }
    }
};

QTEST_APPLESS_MAIN(TestInputFile)
#include "test_input_file.moc"
