// The safetensors reader and writer: bit-exact round trips, a file built byte by byte, every
// malformation the brief lists (each a ParseError naming the file), and an independent Python
// reader (tools/check_safetensors.py) agreeing with ours on a file our writer wrote.
#include <QProcess>

#include <array>
#include <cmath>
#include <cstring>
#include <limits>

#include "encoder/safetensors.h"
#include "fixtures.h"
#include "util/error.h"

using namespace linkscope;
using namespace linkscope::encoder;

namespace {

std::string le64(std::uint64_t value) {
    std::string bytes(8, '\0');
    for (std::size_t i = 0; i < 8; ++i) bytes[i] = static_cast<char>((value >> (8 * i)) & 0xff);
    return bytes;
}

/// A safetensors file as bytes: length, header text as given, data.
std::string rawFile(std::string_view header, std::string_view data) {
    return le64(header.size()) + std::string(header) + std::string(data);
}

std::vector<std::byte> patternBytes(std::size_t count, unsigned seed) {
    std::vector<std::byte> bytes(count);
    for (std::size_t i = 0; i < count; ++i) bytes[i] = static_cast<std::byte>((i * 37 + seed * 11 + 5) & 0xff);
    return bytes;
}

template <class T>
std::vector<std::byte> bytesOf(const std::vector<T>& values) {
    // The format is little-endian, as is every machine this runs on (x86-64, aarch64).
    std::vector<std::byte> bytes(values.size() * sizeof(T));
    if (!values.empty()) std::memcpy(bytes.data(), values.data(), bytes.size());
    return bytes;
}

bool sameBytes(std::span<const std::byte> a, std::span<const std::byte> b) {
    return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin());
}

/// Sum of an F32 tensor in float64, in file order: the same arithmetic as the Python checker.
double f32Sum(std::span<const std::byte> bytes) {
    double sum = 0;
    for (std::size_t i = 0; i + 4 <= bytes.size(); i += 4) {
        float value = 0;
        std::memcpy(&value, bytes.data() + i, 4);
        sum += value;
    }
    return sum;
}

constexpr std::array kAllDTypes{DType::F64, DType::F32, DType::F16, DType::BF16, DType::I64,
                                DType::I32, DType::I16, DType::I8,  DType::U8,   DType::Bool};

struct ToolRun {
    int exitCode = -1;
    QString out, err;
};

}  // namespace

class TestSafetensors : public QObject {
    Q_OBJECT
    test::FixtureDir dir_;

    ToolRun runChecker(const std::filesystem::path& file) {
        QProcess process;
        process.start("/usr/bin/python3", {QString(LINKSCOPE_SOURCE_DIR) + "/tools/check_safetensors.py",
                                           QString::fromStdString(file.string())});
        ToolRun run;
        if (!process.waitForFinished(60000)) return run;
        run.exitCode = process.exitStatus() == QProcess::NormalExit ? process.exitCode() : -1;
        run.out = QString::fromUtf8(process.readAllStandardOutput());
        run.err = QString::fromUtf8(process.readAllStandardError());
        return run;
    }

private Q_SLOTS:
    void dtypeNamesAndSizes() {
        const std::array<std::pair<const char*, std::size_t>, 10> expected{{{"F64", 8},
                                                                            {"F32", 4},
                                                                            {"F16", 2},
                                                                            {"BF16", 2},
                                                                            {"I64", 8},
                                                                            {"I32", 4},
                                                                            {"I16", 2},
                                                                            {"I8", 1},
                                                                            {"U8", 1},
                                                                            {"BOOL", 1}}};
        for (std::size_t i = 0; i < kAllDTypes.size(); ++i) {
            QCOMPARE(dtypeName(kAllDTypes[i]), std::string_view(expected[i].first));
            QCOMPARE(dtypeSize(kAllDTypes[i]), expected[i].second);
            QCOMPARE(parseDType(expected[i].first), std::optional<DType>(kAllDTypes[i]));
        }
        QVERIFY(!parseDType("f32").has_value());
        QVERIFY(!parseDType("F8_E4M3").has_value());
        QVERIFY(!parseDType("").has_value());
    }

    void roundTripOfEveryDtype() {
        SafetensorsWriter writer;
        std::vector<std::vector<std::byte>> written;
        for (std::size_t i = 0; i < kAllDTypes.size(); ++i) {
            const DType dtype = kAllDTypes[i];
            written.push_back(patternBytes(2 * 3 * dtypeSize(dtype), static_cast<unsigned>(i)));
            writer.add("t" + std::to_string(i) + "." + std::string(dtypeName(dtype)), dtype, {2, 3}, written.back());
        }
        writer.add("scalar", DType::F64, {}, patternBytes(8, 99));
        writer.add("empty", DType::F32, {0, 4}, {});
        const auto path = dir_.path("all.safetensors");
        writer.write(path);

        const auto raw = test::readFile(path);
        std::uint64_t headerLength = 0;
        for (std::size_t i = 0; i < 8; ++i)
            headerLength |= std::uint64_t{static_cast<unsigned char>(raw[i])} << (8 * i);
        QCOMPARE(headerLength % 8, std::uint64_t{0});  // the data section starts 8-byte aligned

        const auto file = SafetensorsFile::read(path);
        QCOMPARE(file.tensors().size(), kAllDTypes.size() + 2);
        QCOMPARE(file.metadata().at("format"), std::string("pt"));
        for (std::size_t i = 0; i < kAllDTypes.size(); ++i) {
            const auto* tensor = file.find("t" + std::to_string(i) + "." + std::string(dtypeName(kAllDTypes[i])));
            QVERIFY(tensor);
            QCOMPARE(tensor->dtype, kAllDTypes[i]);
            QCOMPARE(tensor->shape, (std::vector<std::int64_t>{2, 3}));
            QCOMPARE(tensor->elementCount(), std::uint64_t{6});
            QVERIFY2(sameBytes(file.bytes(*tensor), written[i]), tensor->name.c_str());
        }
        const auto* scalar = file.find("scalar");
        QVERIFY(scalar && scalar->shape.empty());
        QCOMPARE(scalar->elementCount(), std::uint64_t{1});
        QVERIFY(sameBytes(file.bytes(*scalar), patternBytes(8, 99)));
        const auto* empty = file.find("empty");
        QVERIFY(empty);
        QCOMPARE(empty->elementCount(), std::uint64_t{0});
        QCOMPARE(file.bytes(*empty).size(), std::size_t{0});
        QVERIFY(file.find("absent") == nullptr);

        // Laid out in name order, contiguous from 0.
        std::uint64_t position = 0;
        std::string previousName;
        for (const TensorInfo& tensor : file.tensors()) {
            QCOMPARE(tensor.begin, position);
            QVERIFY2(previousName < tensor.name || position == 0, tensor.name.c_str());
            position = tensor.end;
            previousName = tensor.name;
        }
        QCOMPARE(8 + headerLength + position, std::uint64_t{raw.size()});
    }

    void largeTensorRoundTrip() {
        std::vector<float> values(1 << 20);
        for (std::size_t i = 0; i < values.size(); ++i) values[i] = std::sin(static_cast<float>(i)) * 1e3f;
        SafetensorsWriter writer;
        writer.add("big", DType::F32, {1024, 1024}, bytesOf(values));
        const auto path = dir_.path("big.safetensors");
        writer.write(path);
        const auto file = SafetensorsFile::read(path);
        QVERIFY(sameBytes(file.bytes(*file.find("big")), bytesOf(values)));
    }

    void metadataRoundTrip() {
        SafetensorsWriter writer;
        writer.setMetadata("source", "linkscope test");
        writer.setMetadata("format", "pt");  // allowed: it is the value written anyway
        writer.setMetadata("unicode", "\xc3\xa9t\xc3\xa9");
        writer.add("x", DType::U8, {1}, patternBytes(1, 1));
        const auto path = dir_.path("meta.safetensors");
        writer.write(path);
        const auto file = SafetensorsFile::read(path);
        const std::map<std::string, std::string> expected{
            {"format", "pt"}, {"source", "linkscope test"}, {"unicode", "\xc3\xa9t\xc3\xa9"}};
        QCOMPARE(file.metadata(), expected);
    }

    void writerProducesTheExpectedBytes() {
        SafetensorsWriter writer;
        writer.add("w", DType::U8, {3}, patternBytes(3, 0));
        writer.add("b", DType::I16, {1}, bytesOf(std::vector<std::int16_t>{-2}));
        const auto path = dir_.path("exact.safetensors");
        writer.write(path);
        std::string header = R"({"__metadata__":{"format":"pt"},"b":{"dtype":"I16","shape":[1],"data_offsets":[0,2]},)"
                             R"("w":{"dtype":"U8","shape":[3],"data_offsets":[2,5]}})";
        header.append((8 - header.size() % 8) % 8, ' ');
        std::string data = "\xfe\xff";
        for (const std::byte b : patternBytes(3, 0)) data += static_cast<char>(b);
        QCOMPARE(test::readFile(path), rawFile(header, data));
    }

    void readsAFileBuiltByHand() {
        // a: F32 [1] = 1.5 (0x3FC00000); b: I16 [2] = {-2, 258}; listed out of order on purpose.
        const std::string header = R"({"b":{"dtype":"I16","shape":[2],"data_offsets":[4,8]},)"
                                   R"("a":{"dtype":"F32","shape":[1],"data_offsets":[0,4]}})";
        const std::string data("\x00\x00\xc0\x3f\xfe\xff\x02\x01", 8);
        const auto path = dir_.write("hand.safetensors", rawFile(header, data));
        const auto file = SafetensorsFile::read(path);
        QCOMPARE(file.path(), path);
        QCOMPARE(file.tensors().size(), std::size_t{2});
        QCOMPARE(file.tensors()[0].name, std::string("a"));  // in file order
        QCOMPARE(file.tensors()[1].name, std::string("b"));
        QVERIFY(file.metadata().empty());
        float a = 0;
        std::memcpy(&a, file.bytes(*file.find("a")).data(), 4);
        QCOMPARE(a, 1.5f);
        const auto b = file.bytes(*file.find("b"));
        QCOMPARE(b.size(), std::size_t{4});
        std::array<std::int16_t, 2> values{};
        std::memcpy(values.data(), b.data(), 4);
        QCOMPARE(values[0], std::int16_t{-2});
        QCOMPARE(values[1], std::int16_t{258});
        QCOMPARE(file.find("b")->begin, std::uint64_t{4});
        QCOMPARE(file.find("b")->end, std::uint64_t{8});
    }

    void zeroSizedTensorsShareAnOffset() {
        const std::string header = R"({"z":{"dtype":"F32","shape":[0],"data_offsets":[0,0]},)"
                                   R"("y":{"dtype":"I8","shape":[2,0],"data_offsets":[0,0]},)"
                                   R"("x":{"dtype":"U8","shape":[2],"data_offsets":[0,2]}})";
        const auto path = dir_.write("zero.safetensors", rawFile(header, "ab"));
        const auto file = SafetensorsFile::read(path);
        QCOMPARE(file.tensors().size(), std::size_t{3});
        QCOMPARE(file.tensors()[0].name, std::string("y"));
        QCOMPARE(file.tensors()[1].name, std::string("z"));
        QCOMPARE(file.tensors()[2].name, std::string("x"));
    }

    void headerPaddingAndUnknownTensorKeysAreAccepted() {
        // The reference pads with spaces and ignores keys it does not know in a tensor entry.
        const std::string header = R"({"a":{"dtype":"U8","shape":[1],"data_offsets":[0,1],"note":"x"}}     )";
        const auto file = SafetensorsFile::read(dir_.write("pad.safetensors", rawFile(header, "q")));
        QCOMPARE(file.tensors().size(), std::size_t{1});
    }

    void writerRefusesInconsistentTensors() {
        SafetensorsWriter writer;
        writer.add("a", DType::F32, {2}, patternBytes(8, 0));
        QVERIFY_THROWS_EXCEPTION(Error, writer.add("a", DType::F32, {2}, patternBytes(8, 0)));
        QVERIFY_THROWS_EXCEPTION(Error, writer.add("b", DType::F32, {2}, patternBytes(7, 0)));
        QVERIFY_THROWS_EXCEPTION(Error, writer.add("c", DType::F32, {-1}, {}));
        QVERIFY_THROWS_EXCEPTION(Error,
                                 writer.add("d", DType::F64, {std::int64_t{1} << 40, std::int64_t{1} << 40}, {}));
        QVERIFY_THROWS_EXCEPTION(Error, writer.add("__metadata__", DType::U8, {0}, {}));
        QVERIFY_THROWS_EXCEPTION(Error, writer.setMetadata("format", "np"));
        // The refused tensors were not kept: the file holds "a" only.
        const auto path = dir_.path("refused.safetensors");
        writer.write(path);
        QCOMPARE(SafetensorsFile::read(path).tensors().size(), std::size_t{1});
    }

    void writerRefusesNonUtf8NamesWithoutLeavingAFile() {
        SafetensorsWriter writer;
        writer.add("bad\xff", DType::U8, {1}, patternBytes(1, 0));
        const auto path = dir_.path("nonutf8.safetensors");
        QVERIFY_THROWS_EXCEPTION(Error, writer.write(path));
        QVERIFY(!std::filesystem::exists(path));
    }

    void malformed_data() {
        QTest::addColumn<QByteArray>("content");
        QTest::addColumn<QString>("fragment");
        const auto row = [](const char* name, const std::string& content, const char* fragment) {
            QTest::newRow(name) << QByteArray(content.data(), static_cast<qsizetype>(content.size()))
                                << QString::fromUtf8(fragment);
        };
        const std::string u8 = R"("dtype":"U8","shape":[4])";
        row("empty file", "", "shorter than the 8-byte header length");
        row("7 bytes", std::string(7, '\x01'), "shorter than the 8-byte header length");
        row("header length beyond file", le64(100) + "{}", "goes beyond the end of the file");
        row("header length 2^63", le64(std::uint64_t{1} << 63) + "{}", "goes beyond the end of the file");
        row("header length 2^64-1", le64(std::numeric_limits<std::uint64_t>::max()) + "{}", "goes beyond");
        row("header not JSON", rawFile("{not json", ""), "not valid JSON");
        row("header truncated JSON", rawFile(R"({"a":{"dtype":)", ""), "not valid JSON");
        row("header JSON array", rawFile("[1,2]", ""), "not a JSON object");
        row("header nested 100,000 deep",
            rawFile("{\"a\":" + std::string(100000, '[') + std::string(100000, ']') + "}", ""),
            "nested deeper than 64 levels");
        row("shape nested", rawFile(R"({"a":{"dtype":"U8","shape":[[[[1]]]],"data_offsets":[0,1]}})", "x"),
            "not a non-negative integer");
        row("header empty", rawFile("", ""), "not a JSON object");
        row("header not UTF-8", rawFile("{\"a\xff\":{}}", ""), "not valid JSON");
        row("header with NUL", rawFile(std::string("{\0}", 3), ""), "not valid JSON");
        row("entry not object", rawFile(R"({"a":5})", ""), "tensor \"a\": the entry is not a JSON object");
        row("missing dtype", rawFile(R"({"a":{"shape":[1],"data_offsets":[0,1]}})", "x"), "missing \"dtype\"");
        row("unknown dtype", rawFile(R"({"a":{"dtype":"F8","shape":[1],"data_offsets":[0,1]}})", "x"),
            "unknown dtype \"F8\"");
        row("shape negative", rawFile(R"({"a":{"dtype":"U8","shape":[-1],"data_offsets":[0,0]}})", ""),
            "not a non-negative integer");
        row("shape fractional", rawFile(R"({"a":{"dtype":"U8","shape":[1.5],"data_offsets":[0,1]}})", "x"),
            "not a non-negative integer");
        row("shape string", rawFile(R"({"a":{"dtype":"U8","shape":["1"],"data_offsets":[0,1]}})", "x"),
            "not a non-negative integer");
        row("shape not array", rawFile(R"({"a":{"dtype":"U8","shape":1,"data_offsets":[0,1]}})", "x"),
            "missing \"shape\" array");
        row("shape product overflow",
            rawFile(R"({"a":{"dtype":"U8","shape":[4294967296,4294967296],"data_offsets":[0,0]}})", ""),
            "overflows 64 bits");
        row("shape x dtype overflow",
            rawFile(R"({"a":{"dtype":"F64","shape":[4611686018427387904],"data_offsets":[0,0]}})", ""),
            "overflows 64 bits");
        row("offsets reversed", rawFile(R"({"a":{)" + u8 + R"(,"data_offsets":[4,0]}})", "abcd"), "reversed");
        row("offsets not pair", rawFile(R"({"a":{)" + u8 + R"(,"data_offsets":[0]}})", "abcd"),
            "missing \"data_offsets\"");
        row("offsets negative", rawFile(R"({"a":{)" + u8 + R"(,"data_offsets":[-4,0]}})", "abcd"),
            "not non-negative integers");
        row("overlapping",
            rawFile(R"({"a":{)" + u8 + R"(,"data_offsets":[0,4]},"b":{)" + u8 + R"(,"data_offsets":[2,6]}})", "abcdef"),
            "tensor \"b\" overlaps tensor \"a\"");
        row("hole",
            rawFile(R"({"a":{)" + u8 + R"(,"data_offsets":[0,4]},"b":{)" + u8 + R"(,"data_offsets":[6,10]}})",
                    "abcdefghij"),
            "bytes 4 to 6 of the data section belong to no tensor");
        row("hole at the start", rawFile(R"({"a":{)" + u8 + R"(,"data_offsets":[2,6]}})", "abcdef"), "bytes 0 to 2");
        row("extra trailing bytes", rawFile(R"({"a":{)" + u8 + R"(,"data_offsets":[0,4]}})", "abcdef"),
            "2 trailing bytes");
        row("end beyond file", rawFile(R"({"a":{"dtype":"U8","shape":[8],"data_offsets":[0,8]}})", "abcd"),
            "end past the data section (4 bytes)");
        row("length mismatch with shape", rawFile(R"({"a":{"dtype":"F32","shape":[2],"data_offsets":[0,4]}})", "abcd"),
            "span 4 bytes but shape [2] of F32 needs 8");
        row("duplicate tensor",
            rawFile(R"({"a":{)" + u8 + R"(,"data_offsets":[0,4]},"a":{)" + u8 + R"(,"data_offsets":[0,4]}})", "abcd"),
            "the key \"a\" twice");
        row("duplicate field", rawFile(R"({"a":{"dtype":"U8","dtype":"I8","shape":[4],"data_offsets":[0,4]}})", "abcd"),
            "the key \"dtype\" twice");
        row("metadata value not string", rawFile(R"({"__metadata__":{"format":1}})", ""),
            "value of \"format\" is a number, not a string");
        row("metadata not object", rawFile(R"({"__metadata__":["pt"]})", ""), "\"__metadata__\" must be an object");
    }
    void malformed() {
        QFETCH(QByteArray, content);
        QFETCH(QString, fragment);
        const auto path = dir_.write("bad.safetensors",
                                     std::string_view(content.constData(), static_cast<std::size_t>(content.size())));
        LINKSCOPE_EXPECT_PARSE_ERROR(SafetensorsFile::read(path), path, 0, fragment.toStdString());
    }

    void messagesStayShortForHugeNames() {
        const std::string name(100000, 'n');
        const auto path =
            dir_.write("long-name.safetensors",
                       rawFile("{\"" + name + "\":{\"dtype\":\"Q\",\"shape\":[1],\"data_offsets\":[0,1]}}", "x"));
        LINKSCOPE_EXPECT_PARSE_ERROR(SafetensorsFile::read(path), path, 0, "...\": unknown dtype \"Q\"");
        try {
            SafetensorsFile::read(path);
        } catch (const ParseError& e) {
            QVERIFY2(e.message().size() < 300, e.what());
        }
    }

    void headerAboveTheLimitIsRefusedWithoutReadingIt() {
        // A sparse file: 8 + 100 MB + 1 byte long on paper, a few bytes on disk.
        const std::uint64_t length = 100'000'001;
        const auto path = dir_.write("huge-header.safetensors", le64(length) + "{");
        std::filesystem::resize_file(path, 8 + length);
        LINKSCOPE_EXPECT_PARSE_ERROR(SafetensorsFile::read(path), path, 0, "above the limit of 100000000 bytes");
    }

    void missingFileIsAParseError() {
        const auto path = dir_.path("nowhere.safetensors");
        LINKSCOPE_EXPECT_PARSE_ERROR(SafetensorsFile::read(path), path, 0, "cannot open");
    }

    void everyTruncationIsAnError() {
        SafetensorsWriter writer;
        writer.add("a", DType::F32, {3}, patternBytes(12, 1));
        writer.add("b", DType::I8, {5}, patternBytes(5, 2));
        const auto good = dir_.path("good.safetensors");
        writer.write(good);
        const std::string raw = test::readFile(good);
        const auto path = dir_.path("truncated.safetensors");
        for (std::size_t size = 0; size < raw.size(); ++size) {
            test::writeFile(path, std::string_view(raw).substr(0, size));
            LINKSCOPE_EXPECT_PARSE_ERROR(SafetensorsFile::read(path), path, 0, "");
        }
    }

    void damagedHeadersNeverCrash() {
        // Every header byte replaced by a handful of troublemakers: the reader must either accept
        // the file (then every tensor lies inside the data) or throw a ParseError -- nothing else.
        SafetensorsWriter writer;
        writer.add("ab", DType::I16, {2, 1}, patternBytes(4, 3));
        writer.add("c", DType::U8, {3}, patternBytes(3, 4));
        const auto good = dir_.path("fuzz-good.safetensors");
        writer.write(good);
        const std::string raw = test::readFile(good);
        const auto path = dir_.path("fuzz.safetensors");
        std::size_t accepted = 0, refused = 0;
        for (std::size_t at = 0; at < raw.size(); ++at) {
            for (const char replacement : {'\0', '9', '-', '"', '}', '\xff', ' '}) {
                std::string damaged = raw;
                damaged[at] = replacement;
                test::writeFile(path, damaged);
                try {
                    const auto file = SafetensorsFile::read(path);
                    for (const TensorInfo& tensor : file.tensors())
                        QCOMPARE(file.bytes(tensor).size(), static_cast<std::size_t>(tensor.end - tensor.begin));
                    ++accepted;
                } catch (const ParseError& e) {
                    QVERIFY2(std::string(e.what()).starts_with(path.string() + ": "), e.what());
                    ++refused;
                }
            }
        }
        QVERIFY(refused > 0);
        QVERIFY(accepted > 0);  // e.g. a space replacing the padding, or a digit of the data
    }

    void independentPythonReaderAgrees() {
        if (!QFileInfo::exists("/usr/bin/python3"))
            QSKIP("/usr/bin/python3 is absent: the independent check cannot run");
        SafetensorsWriter writer;
        std::vector<float> weights(3 * 5);
        for (std::size_t i = 0; i < weights.size(); ++i) weights[i] = 0.1f * static_cast<float>(i) - 0.7f;
        writer.add("encoder.layer.0.weight", DType::F32, {3, 5}, bytesOf(weights));
        writer.add("encoder.layer.0.bias", DType::F32, {5}, bytesOf(std::vector<float>{1e-3f, -2.5f, 3e7f, 0.f, 1.f}));
        writer.add("scale", DType::F32, {}, bytesOf(std::vector<float>{0.125f}));
        writer.add("ids", DType::I64, {2, 2}, bytesOf(std::vector<std::int64_t>{1, -2, 3, 1LL << 40}));
        writer.add("half", DType::BF16, {4}, patternBytes(8, 7));
        writer.add("none", DType::F32, {0, 768}, {});
        writer.add("mask", DType::Bool, {3}, bytesOf(std::vector<std::uint8_t>{1, 0, 1}));
        writer.setMetadata("written_by", "test_safetensors");
        const auto path = dir_.path("python-check.safetensors");
        writer.write(path);

        const ToolRun run = runChecker(path);
        QVERIFY2(run.exitCode == 0, qPrintable("check_safetensors.py failed: " + run.err));
        const auto file = SafetensorsFile::read(path);
        const QStringList lines = run.out.split('\n', Qt::SkipEmptyParts);
        QStringList tensorLines, metadataLines;
        for (const QString& line : lines) (line.startsWith("tensor\t") ? tensorLines : metadataLines).append(line);
        QCOMPARE(metadataLines, (QStringList{"metadata\tformat\tpt", "metadata\twritten_by\ttest_safetensors"}));
        QCOMPARE(static_cast<std::size_t>(tensorLines.size()), file.tensors().size());
        for (std::size_t i = 0; i < file.tensors().size(); ++i) {
            const TensorInfo& tensor = file.tensors()[i];
            const QStringList fields = tensorLines[static_cast<qsizetype>(i)].split('\t');
            QCOMPARE(fields.value(1).toStdString(), tensor.name);
            QCOMPARE(fields.value(2).toStdString(), std::string(dtypeName(tensor.dtype)));
            QString shape = "[";
            for (std::size_t d = 0; d < tensor.shape.size(); ++d)
                shape += (d ? ", " : "") + QString::number(tensor.shape[d]);
            QCOMPARE(fields.value(3), shape + "]");
            if (tensor.dtype != DType::F32) {
                QCOMPARE(fields.size(), qsizetype{4});
                continue;
            }
            QVERIFY2(fields.value(4).startsWith("sum="), qPrintable(tensorLines[static_cast<qsizetype>(i)]));
            // repr() prints the shortest text that reads back to the same double: exact equality.
            const double pythonSum = std::strtod(fields.value(4).mid(4).toStdString().c_str(), nullptr);
            QCOMPARE(pythonSum, f32Sum(file.bytes(tensor)));
        }
        QVERIFY(f32Sum(file.bytes(*file.find("encoder.layer.0.weight"))) != 0.0);
    }

    void independentPythonReaderRefusesWhatWeRefuse_data() {
        QTest::addColumn<QByteArray>("content");
        const auto row = [](const char* name, const std::string& content) {
            QTest::newRow(name) << QByteArray(content.data(), static_cast<qsizetype>(content.size()));
        };
        const std::string u8 = R"("dtype":"U8","shape":[4])";
        row("hole", rawFile(R"({"a":{)" + u8 + R"(,"data_offsets":[0,4]},"b":{)" + u8 + R"(,"data_offsets":[6,10]}})",
                            "abcdefghij"));
        row("overlap", rawFile(R"({"a":{)" + u8 + R"(,"data_offsets":[0,4]},"b":{)" + u8 + R"(,"data_offsets":[2,6]}})",
                               "abcdef"));
        row("duplicate",
            rawFile(R"({"a":{)" + u8 + R"(,"data_offsets":[0,4]},"a":{)" + u8 + R"(,"data_offsets":[0,4]}})", "abcd"));
        row("trailing", rawFile(R"({"a":{)" + u8 + R"(,"data_offsets":[0,4]}})", "abcdef"));
        row("7 bytes", std::string(7, '\0'));
    }
    void independentPythonReaderRefusesWhatWeRefuse() {
        if (!QFileInfo::exists("/usr/bin/python3"))
            QSKIP("/usr/bin/python3 is absent: the independent check cannot run");
        QFETCH(QByteArray, content);
        const auto path = dir_.write("python-bad.safetensors",
                                     std::string_view(content.constData(), static_cast<std::size_t>(content.size())));
        QVERIFY_THROWS_EXCEPTION(ParseError, SafetensorsFile::read(path));
        const ToolRun run = runChecker(path);
        QCOMPARE(run.exitCode, 1);
        QVERIFY2(run.err.startsWith(QString::fromStdString(path.string()) + ": error: "), qPrintable(run.err));
    }
};

QTEST_APPLESS_MAIN(TestSafetensors)
#include "test_safetensors.moc"
