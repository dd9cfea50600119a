// The restricted unpickler and the torch.save readers on hand-built files: what a state dict
// holds is read exactly (views, offsets, strides, both formats), and every hostile or damaged
// file is a ParseError naming the problem -- a global that would run code names the global and
// runs nothing (the marker file its command would create never appears).
#include <QtTest>

#include <cstring>
#include <filesystem>
#include <string>
#include <vector>

#include "encoder/torch_checkpoint.h"
#include "fixtures.h"
#include "torch_file_builder.h"
#include "util/error.h"

using namespace linkscope;
using namespace linkscope::encoder;
using test::PickleBuilder;
namespace fs = std::filesystem;

namespace {

std::string refusal(const fs::path& file) {
    try {
        TorchCheckpointFile::read(file);
    } catch (const ParseError& e) {
        return e.what();
    }
    return "(read without error)";
}

std::vector<float> floats(const TorchTensor& tensor) {
    std::vector<float> values(tensor.bytes.size() / sizeof(float));
    std::memcpy(values.data(), tensor.bytes.data(), tensor.bytes.size());
    return values;
}

/// A zip checkpoint whose data.pkl is `pickle` and whose storages are `records` (key, bytes).
std::string zipCheckpoint(const std::string& pickle, const std::vector<std::pair<std::string, std::string>>& records) {
    std::vector<std::pair<std::string, std::string>> entries = {{"archive/data.pkl", pickle}};
    for (const auto& [key, bytes] : records) entries.emplace_back("archive/data/" + key, bytes);
    entries.emplace_back("archive/version", "3\n");
    return test::storedZip(entries);
}

/// {"w": a 2x3 F32 tensor over storage "0" of 8 elements at offset 1, column-major strides}.
std::string viewPickle(std::int64_t numel = 8, std::int64_t offset = 1, std::vector<std::int64_t> strides = {1, 2}) {
    return PickleBuilder()
        .beginDict()
        .string("w")
        .tensor("FloatStorage", "0", numel, offset, {2, 3}, strides)
        .endDict()
        .stop()
        .bytes();
}

const std::string kEight = test::floatBytes({0, 1, 2, 3, 4, 5, 6, 7});

QByteArray asBytes(const std::string& bytes) { return QByteArray(bytes.data(), static_cast<qsizetype>(bytes.size())); }

}  // namespace

class TestTorchPickle : public QObject {
    Q_OBJECT
    test::FixtureDir dir_;
    int files_ = 0;

    fs::path write(const std::string& bytes) {
        return dir_.write("checkpoint" + std::to_string(++files_) + ".bin", bytes);
    }

private Q_SLOTS:
    void zipViewWithOffsetAndStrides() {
        const auto file = TorchCheckpointFile::read(write(zipCheckpoint(viewPickle(), {{"0", kEight}})));
        QCOMPARE(file.format(), TorchCheckpointFile::Format::Zip);
        QCOMPARE(file.tensors().size(), std::size_t{1});
        const auto& w = file.tensors().front();
        QCOMPARE(w.name, std::string("w"));
        QCOMPARE(w.shape, (std::vector<std::int64_t>{2, 3}));
        // element [i][j] = storage[1 + i + 2j]
        QCOMPARE(floats(w), (std::vector<float>{1, 3, 5, 2, 4, 6}));
    }

    void legacyFormatAndSharedStorage() {
        const std::string object = PickleBuilder()
                                       .beginDict()
                                       .string("a")
                                       .tensor("FloatStorage", "s", 8, 2, {3}, {1}, true)
                                       .string("b")
                                       .tensor("FloatStorage", "s", 8, 0, {2, 2}, {2, 1}, true)
                                       .endDict()
                                       .stop()
                                       .bytes();
        const auto file = TorchCheckpointFile::read(write(test::legacyTorchFile(object, {{"s", 8, kEight}})));
        QCOMPARE(file.format(), TorchCheckpointFile::Format::Legacy);
        QCOMPARE(floats(*file.find("a")), (std::vector<float>{2, 3, 4}));
        QCOMPARE(floats(*file.find("b")), (std::vector<float>{0, 1, 2, 3}));
    }

    void halfAndBfloat16Storages() {
        const std::string pickle = PickleBuilder()
                                       .beginDict()
                                       .string("h")
                                       .tensor("HalfStorage", "0", 2, 0, {2}, {1})
                                       .string("b")
                                       .tensor("BFloat16Storage", "1", 2, 0, {2}, {1})
                                       .endDict()
                                       .stop()
                                       .bytes();
        const auto file = TorchCheckpointFile::read(write(zipCheckpoint(
            pickle, {{"0", std::string("\x00\x3c\x00\xc0", 4)}, {"1", std::string("\x80\x3f\x00\x40", 4)}})));
        QCOMPARE(file.find("h")->dtype, DType::F16);
        QCOMPARE(file.find("b")->dtype, DType::BF16);
        QCOMPARE(file.find("h")->bytes.size(), std::size_t{4});
    }

    // Each of these names would run a command in Python; here each is refused by name at the
    // GLOBAL opcode, and the command's marker file is never created.
    void globalsThatRunCodeAreRefused_data() {
        QTest::addColumn<QString>("module");
        QTest::addColumn<QString>("name");
        QTest::addColumn<bool>("stackGlobal");
        for (const bool stack : {false, true}) {
            const std::string how = stack ? " (STACK_GLOBAL)" : "";
            QTest::newRow(("os.system" + how).c_str()) << "os"
                                                       << "system" << stack;
            QTest::newRow(("posix.system" + how).c_str()) << "posix"
                                                          << "system" << stack;
            QTest::newRow(("builtins.eval" + how).c_str()) << "builtins"
                                                           << "eval" << stack;
            QTest::newRow(("builtins.exec" + how).c_str()) << "builtins"
                                                           << "exec" << stack;
            QTest::newRow(("__builtin__.eval" + how).c_str()) << "__builtin__"
                                                              << "eval" << stack;
            QTest::newRow(("subprocess.Popen" + how).c_str()) << "subprocess"
                                                              << "Popen" << stack;
            QTest::newRow(("torch.load" + how).c_str()) << "torch"
                                                        << "load" << stack;
            QTest::newRow(("torch._utils._rebuild_qtensor" + how).c_str()) << "torch._utils"
                                                                           << "_rebuild_qtensor" << stack;
        }
    }
    void globalsThatRunCodeAreRefused() {
        QFETCH(QString, module);
        QFETCH(QString, name);
        QFETCH(bool, stackGlobal);
        const fs::path marker = dir_.path("ran-" + std::to_string(files_));
        const std::string command = "touch " + marker.string();
        // What pickle.dumps writes for an object whose __reduce__ returns (module.name, (command,)).
        PickleBuilder payload;
        if (stackGlobal)
            payload.string(module.toStdString()).string(name.toStdString()).raw("\x93");
        else
            payload.global(module.toStdString(), name.toStdString());
        payload.string(command).raw("\x85").reduce().stop();
        const std::string expected = "refuses the global '" + module.toStdString() + "." + name.toStdString() + "'";
        for (const auto& bytes : {zipCheckpoint(payload.bytes(), {}), test::legacyTorchFile(payload.bytes(), {})}) {
            const std::string message = refusal(write(bytes));
            QVERIFY2(message.find(expected) != std::string::npos, message.c_str());
            QVERIFY(!fs::exists(marker));
        }
        // Inside a state dict, as the value of a tensor's name.
        const std::string nested = PickleBuilder()
                                       .beginDict()
                                       .string("w")
                                       .raw(payload.bytes().substr(2, payload.bytes().size() - 3))
                                       .endDict()
                                       .stop()
                                       .bytes();
        const std::string message = refusal(write(zipCheckpoint(nested, {})));
        QVERIFY2(message.find(expected) != std::string::npos, message.c_str());
        QVERIFY(!fs::exists(marker));
    }

    void reduceOfAnythingElseIsRefused_data() {
        QTest::addColumn<QByteArray>("pickle");
        QTest::addColumn<QString>("fragment");
        QTest::newRow("a storage class called")
            << asBytes(PickleBuilder().global("torch", "FloatStorage").emptyTuple().reduce().stop().bytes())
            << "refuses REDUCE of torch.FloatStorage";
        QTest::newRow("a str called") << asBytes(
                                             PickleBuilder().string("os.system").emptyTuple().reduce().stop().bytes())
                                      << "REDUCE calls a str";
        QTest::newRow("OrderedDict with items") << asBytes(PickleBuilder()
                                                               .global("collections", "OrderedDict")
                                                               .mark()
                                                               .integer(1)
                                                               .tuple()
                                                               .reduce()
                                                               .stop()
                                                               .bytes()
                                                               .c_str())
                                                << "REDUCE of collections.OrderedDict with arguments";
        QTest::newRow("BUILD of a global")
            << asBytes(PickleBuilder().global("collections", "OrderedDict").raw("}").raw("b").stop().bytes())
            << "refuses BUILD of a global";
        QTest::newRow("NEWOBJ")
            << asBytes(PickleBuilder().global("collections", "OrderedDict").emptyTuple().raw("\x81").stop().bytes())
            << "refuses opcode NEWOBJ";
        QTest::newRow("INST") << asBytes(PickleBuilder().mark().raw("ios\nsystem\n").stop().bytes())
                              << "refuses opcode INST";
        QTest::newRow("not a state dict")
            << asBytes(PickleBuilder().integer(3).stop().bytes()) << "holds a int, not a state dict";
        QTest::newRow("persistent id of another kind")
            << asBytes(PickleBuilder().mark().string("module").string("x").tuple().raw("Q").stop().bytes())
            << "a persistent id must be a tuple";
    }
    void reduceOfAnythingElseIsRefused() {
        QFETCH(QByteArray, pickle);
        QFETCH(QString, fragment);
        const std::string message = refusal(write(zipCheckpoint(pickle.toStdString(), {})));
        QVERIFY2(message.find(fragment.toStdString()) != std::string::npos, message.c_str());
    }

    void storagesOutsideTheirBytesAreRefused_data() {
        QTest::addColumn<QString>("which");
        QTest::addColumn<QString>("fragment");
        QTest::newRow("view past the storage") << "past-view"
                                               << "reaches element 8 of storage \"0\", which holds 8";
        QTest::newRow("declared larger than its record") << "numel"
                                                         << "declares 9 F32 elements (36 bytes) but its record";
        QTest::newRow("huge declared size") << "huge"
                                            << "more than 64 bits of bytes";
        QTest::newRow("record missing") << "missing"
                                        << "has no record archive/data/0";
        QTest::newRow("expanded view") << "expanded"
                                       << "an expanded view";
        QTest::newRow("legacy storage past the end") << "legacy-truncated"
                                                     << "needs 32 bytes but only 12 remain";
        QTest::newRow("legacy count differs") << "legacy-count"
                                              << "declared with 8 elements but stored with 9";
        QTest::newRow("legacy view outside its storage") << "legacy-view"
                                                         << "lies outside its storage";
    }
    void storagesOutsideTheirBytesAreRefused() {
        QFETCH(QString, which);
        QFETCH(QString, fragment);
        std::string bytes;
        if (which == "past-view") bytes = zipCheckpoint(viewPickle(8, 3), {{"0", kEight}});
        if (which == "numel") bytes = zipCheckpoint(viewPickle(9), {{"0", kEight}});
        if (which == "huge") bytes = zipCheckpoint(viewPickle(std::int64_t{1} << 62), {{"0", kEight}});
        if (which == "missing") bytes = zipCheckpoint(viewPickle(), {});
        if (which == "expanded") bytes = zipCheckpoint(viewPickle(4, 0, {0, 0}), {{"0", kEight.substr(0, 16)}});
        const std::string object = PickleBuilder()
                                       .beginDict()
                                       .string("a")
                                       .tensor("FloatStorage", "s", 8, 0, {8}, {1}, true)
                                       .endDict()
                                       .stop()
                                       .bytes();
        if (which == "legacy-truncated") bytes = test::legacyTorchFile(object, {{"s", 8, kEight.substr(0, 12)}});
        if (which == "legacy-count") bytes = test::legacyTorchFile(object, {{"s", 9, kEight}});
        if (which == "legacy-view") {
            // The sixth item of the persistent id: (view_key, offset 6, numel 4) of an 8-element storage.
            const std::string viewed = PickleBuilder()
                                           .beginDict()
                                           .string("a")
                                           .global("torch._utils", "_rebuild_tensor_v2")
                                           .mark()
                                           .mark()
                                           .string("storage")
                                           .global("torch", "FloatStorage")
                                           .string("s")
                                           .string("cpu")
                                           .integer(8)
                                           .mark()
                                           .string("v")
                                           .integer(6)
                                           .integer(4)
                                           .tuple()
                                           .tuple()
                                           .raw("Q")
                                           .integer(0)
                                           .ints({4})
                                           .ints({1})
                                           .boolean(false)
                                           .none()
                                           .tuple()
                                           .reduce()
                                           .endDict()
                                           .stop()
                                           .bytes();
            bytes = test::legacyTorchFile(viewed, {{"s", 8, kEight}});
        }
        const std::string message = refusal(write(bytes));
        QVERIFY2(message.find(fragment.toStdString()) != std::string::npos, message.c_str());
    }

    // Every prefix of a valid file, in both formats, is refused without a crash.
    void truncatedFilesAreRefused() {
        const std::string zip = zipCheckpoint(viewPickle(), {{"0", kEight}});
        const std::string object = PickleBuilder()
                                       .beginDict()
                                       .string("a")
                                       .tensor("FloatStorage", "s", 8, 0, {8}, {1}, true)
                                       .endDict()
                                       .stop()
                                       .bytes();
        const std::string legacy = test::legacyTorchFile(object, {{"s", 8, kEight}});
        for (const auto* whole : {&zip, &legacy}) {
            QVERIFY(refusal(write(*whole)) == "(read without error)");
            for (std::size_t length = 0; length < whole->size(); ++length) {
                const std::string message = refusal(write(whole->substr(0, length)));
                QVERIFY2(message != "(read without error)", std::to_string(length).c_str());
            }
        }
    }

    void overlappingZipEntriesAreRefused() {
        std::string zip = zipCheckpoint(viewPickle(), {{"0", kEight}});
        // Make the first record's directory entry claim 40 more bytes: it then covers the next.
        const auto at = zip.find(std::string("PK\x01\x02", 4));
        QVERIFY(at != std::string::npos);
        for (const std::size_t field : {std::size_t{20}, std::size_t{24}}) {
            std::uint32_t size = 0;
            std::memcpy(&size, zip.data() + at + field, 4);
            size += 40;
            std::memcpy(zip.data() + at + field, &size, 4);
        }
        const std::string message = refusal(write(zip));
        QVERIFY2(message.find("overlap") != std::string::npos, message.c_str());
    }

    void hugeLengthsAndDeepNesting() {
        // A string that declares 4 GiB: refused before allocating.
        const std::string huge = PickleBuilder().raw("X\xff\xff\xff\xff").stop().bytes();
        std::string message = refusal(write(zipCheckpoint(huge, {})));
        QVERIFY2(message.find("declares 4294967295 bytes of data") != std::string::npos, message.c_str());
        // A million nested lists and marks: the machine has no recursion to overflow.
        std::string deep = "\x80\x02";
        for (int i = 0; i < 1000000; ++i) deep += "](";
        deep += ".";
        message = refusal(write(zipCheckpoint(deep, {})));
        QVERIFY2(message.find("STOP with") != std::string::npos, message.c_str());
        std::string nested = "\x80\x02";
        for (int i = 0; i < 200000; ++i) nested += "]";
        for (int i = 0; i < 199999; ++i) nested += "a";
        nested += ".";
        message = refusal(write(zipCheckpoint(nested, {})));
        QVERIFY2(message.find("holds a list") != std::string::npos, message.c_str());
        // A list that holds itself through the memo.
        const std::string cycle = PickleBuilder().raw("]q\x00h\x00").raw("a").stop().bytes();
        message = refusal(write(zipCheckpoint(cycle, {})));
        QVERIFY2(message.find("holds a list") != std::string::npos, message.c_str());
    }

    void notATorchFile() {
        QVERIFY(refusal(write("hello world")).find("neither a zip archive") != std::string::npos);
        QVERIFY(refusal(write("PK\x03\x04")).find("zip archive") != std::string::npos);
        const std::string noMagic = PickleBuilder().raw("}").stop().bytes();
        QVERIFY(refusal(write(noMagic)).find("magic number is missing") != std::string::npos);
    }
};

QTEST_GUILESS_MAIN(TestTorchPickle)
#include "test_torch_pickle.moc"
