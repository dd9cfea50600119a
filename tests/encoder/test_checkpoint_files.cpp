// Locating the parts of a checkpoint folder: single-file and sharded safetensors, and every
// refusal with its message -- including the conversion command for TensorFlow weights, which is
// run for real against a stand-in "transformers" module to prove it is a working command.
#include <QProcess>
#include <QStandardPaths>

#include "encoder/checkpoint_files.h"
#include "fixtures.h"
#include "util/error.h"

using namespace linkscope;
using namespace linkscope::encoder;
namespace fs = std::filesystem;

namespace {

/// The message of the Error that locateCheckpoint throws, or "" (and a test failure) if none.
std::string refusal(const fs::path& directory) {
    try {
        locateCheckpoint(directory);
    } catch (const Error& e) {
        return e.what();
    }
    return {};
}

/// A stand-in for transformers that records what from_pretrained and save_pretrained were given.
constexpr std::string_view kFakeTransformers = R"(
class AutoModel:
    @staticmethod
    def from_pretrained(path, **options):
        print("load", repr(path), sorted(options.items()))
        return AutoModel()

    def save_pretrained(self, path, **options):
        print("save", repr(path), sorted(options.items()))


class AutoTokenizer(AutoModel):
    pass
)";

}  // namespace

class TestCheckpointFiles : public QObject {
    Q_OBJECT
    test::FixtureDir dir_;

    /// A checkpoint folder with config.json and vocab.txt and the given further files.
    fs::path folder(const std::string& name, std::initializer_list<std::string_view> files) {
        const fs::path directory = dir_.path(name);
        fs::create_directories(directory);
        test::writeFile(directory / "config.json", "{}");
        test::writeFile(directory / "vocab.txt", "[PAD]\n");
        for (const std::string_view file : files) test::writeFile(directory / std::string(file), "x");
        return directory;
    }

    /// Runs the command a refusal message shows (its last line) under /bin/sh, with the fake
    /// transformers module first on PYTHONPATH; returns its standard output.
    QString runShownCommand(const std::string& message) {
        const auto at = message.rfind("python3 -c ");
        if (at == std::string::npos) return "no command in: " + QString::fromStdString(message);
        const fs::path fake = dir_.path("fake-python");
        fs::create_directories(fake);
        test::writeFile(fake / "transformers.py", kFakeTransformers);
        QProcess shell;
        auto environment = QProcessEnvironment::systemEnvironment();
        environment.insert("PYTHONPATH", QString::fromStdString(fake.string()));
        shell.setProcessEnvironment(environment);
        shell.start("/bin/sh", {"-c", QString::fromStdString(message.substr(at))});
        if (!shell.waitForFinished(60000)) return "timed out";
        return QString::fromUtf8(shell.readAllStandardOutput()) + QString::fromUtf8(shell.readAllStandardError());
    }

private Q_SLOTS:
    void singleSafetensorsFile() {
        const auto directory = folder("single", {"model.safetensors", "tokenizer.json"});
        const CheckpointFiles files = locateCheckpoint(directory);
        QCOMPARE(files.directory, directory);
        QCOMPARE(files.config, directory / "config.json");
        QCOMPARE(files.vocabulary, directory / "vocab.txt");
        QCOMPARE(files.weights, (std::vector<fs::path>{directory / "model.safetensors"}));
    }

    // A run folder (train / pretrain output) stands for its model/; one whose model/ is damaged
    // is refused naming model/, and a folder with run.json but no model/ is no checkpoint.
    void runFolderStandsForItsModel() {
        const auto run = dir_.path("run");
        fs::create_directories(run);
        test::writeFile(run / "run.json", "{}");
        const auto model = folder("run/model", {"model.safetensors"});
        QCOMPARE(locateCheckpoint(run).directory, model);
        fs::remove(model / "model.safetensors");
        try {
            locateCheckpoint(run);
            QFAIL("a run whose model has no weights was accepted");
        } catch (const Error& e) {
            QVERIFY2(std::string(e.what()).find((run / "model").string()) != std::string::npos, e.what());
        }
        fs::remove_all(model);
        try {
            locateCheckpoint(run);
            QFAIL("a run without model/ was accepted");
        } catch (const Error& e) {
            QVERIFY2(std::string(e.what()).find("no config.json") != std::string::npos, e.what());
        }
    }

    void safetensorsPreferredOverAPickleBesideIt() {
        const auto directory = folder("both", {"model.safetensors", "pytorch_model.bin", "tf_model.h5"});
        QCOMPARE(locateCheckpoint(directory).weights, (std::vector<fs::path>{directory / "model.safetensors"}));
    }

    void shardsListedByTheIndex() {
        const auto directory =
            folder("sharded", {"model-00001-of-00002.safetensors", "model-00002-of-00002.safetensors"});
        test::writeFile(directory / "model.safetensors.index.json",
                        R"({"metadata": {"total_size": 12},
                            "weight_map": {"a.weight": "model-00002-of-00002.safetensors",
                                           "b.weight": "model-00001-of-00002.safetensors",
                                           "c.bias": "model-00002-of-00002.safetensors"}})");
        QCOMPARE(locateCheckpoint(directory).weights,
                 (std::vector<fs::path>{directory / "model-00001-of-00002.safetensors",
                                        directory / "model-00002-of-00002.safetensors"}));
    }

    void missingShardIsNamed() {
        const auto directory = folder("missing-shard", {"model-00001-of-00002.safetensors"});
        test::writeFile(
            directory / "model.safetensors.index.json",
            R"({"weight_map": {"a": "model-00001-of-00002.safetensors", "b": "model-00002-of-00002.safetensors"}})");
        const std::string message = refusal(directory);
        QVERIFY2(message.find(
                     "shard \"model-00002-of-00002.safetensors\" listed in model.safetensors.index.json is missing") !=
                     std::string::npos,
                 message.c_str());
    }

    void badIndexes_data() {
        QTest::addColumn<QString>("index");
        QTest::addColumn<QString>("fragment");
        QTest::addColumn<int>("line");  // a syntax error names its line; the others the whole file
        QTest::newRow("not JSON") << R"({"weight_map": )"
                                  << "not valid JSON" << 1;
        QTest::newRow("not JSON, line 2") << "{\n\"weight_map\": oops}"
                                          << "not valid JSON" << 2;
        QTest::newRow("no weight_map") << R"({"metadata": {}})"
                                       << "missing a non-empty \"weight_map\"" << 0;
        QTest::newRow("empty weight_map") << R"({"weight_map": {}})"
                                          << "missing a non-empty \"weight_map\"" << 0;
        QTest::newRow("shard not a string") << R"({"weight_map": {"a": 3}})"
                                            << "entry \"a\" is not a file name" << 0;
        QTest::newRow("shard outside") << R"({"weight_map": {"a": "../model.safetensors"}})"
                                       << "not a file name inside the checkpoint folder" << 0;
        QTest::newRow("shard absolute") << R"({"weight_map": {"a": "/etc/passwd"}})"
                                        << "not a file name inside the checkpoint folder" << 0;
    }
    void badIndexes() {
        QFETCH(QString, index);
        QFETCH(QString, fragment);
        QFETCH(int, line);
        const auto directory = folder("bad-index", {});
        const auto indexFile = directory / "model.safetensors.index.json";
        test::writeFile(indexFile, index.toStdString());
        LINKSCOPE_EXPECT_PARSE_ERROR(locateCheckpoint(directory), indexFile, std::size_t(line), fragment.toStdString());
    }

    void refusals_data() {
        QTest::addColumn<QString>("setup");
        QTest::addColumn<QString>("fragment");
        QTest::newRow("folder absent") << "absent"
                                       << "checkpoint folder does not exist";
        QTest::newRow("a file, not a folder") << "file"
                                              << "not a folder";
        QTest::newRow("no config.json") << "no-config"
                                        << "no config.json";
        QTest::newRow("no vocab.txt") << "no-vocab"
                                      << "no vocab.txt (the WordPiece vocabulary). If the checkpoint has only "
                                         "tokenizer.json, write vocab.txt with: python3 -c \"from transformers "
                                         "import AutoTokenizer; AutoTokenizer.from_pretrained(";
        QTest::newRow("no weights") << "no-weights"
                                    << "no model weights: expected model.safetensors (or model.safetensors.index.json";
        QTest::newRow("tensorflow") << "tf_model.h5"
                                    << "tf_model.h5 (TensorFlow), which Linkscope does not read";
        QTest::newRow("flax") << "flax_model.msgpack"
                              << "flax_model.msgpack (Flax), which Linkscope does not read";
    }
    void refusals() {
        QFETCH(QString, setup);
        QFETCH(QString, fragment);
        fs::path directory = dir_.path("refused-" + setup.toStdString());
        if (setup == "file") {
            test::writeFile(directory, "not a folder");
        } else if (setup == "no-config") {
            directory = folder("refused-no-config", {"model.safetensors"});
            fs::remove(directory / "config.json");
        } else if (setup == "no-vocab") {
            directory = folder("refused-no-vocab", {"model.safetensors", "tokenizer.json"});
            fs::remove(directory / "vocab.txt");
        } else if (setup == "no-weights") {
            directory = folder("refused-no-weights", {"tokenizer.json"});
        } else if (setup != "absent") {
            directory = folder("refused-" + setup.toStdString(), {setup.toStdString()});
        }
        const std::string message = refusal(directory);
        QVERIFY2(message.starts_with(directory.string() + ": "), message.c_str());
        QVERIFY2(message.find(fragment.toStdString()) != std::string::npos, message.c_str());
    }

    // pytorch_model.bin is read (by the restricted unpickler); model.safetensors wins where both are.
    void pytorchWeightsAreLocated() {
        const auto single = folder("pickled", {"pytorch_model.bin"});
        const auto files = locateCheckpoint(single);
        QCOMPARE(files.weights.size(), std::size_t{1});
        QCOMPARE(files.weights.front(), single / "pytorch_model.bin");

        const auto sharded = folder("pickled-shards", {});
        test::writeFile(
            sharded / "pytorch_model.bin.index.json",
            R"({"weight_map": {"a": "pytorch_model-00001-of-00002.bin", "b": "pytorch_model-00002-of-00002.bin"}})");
        test::writeFile(sharded / "pytorch_model-00001-of-00002.bin", "x");
        const std::string missing = refusal(sharded);
        QVERIFY2(missing.find("pytorch_model-00002-of-00002.bin\" listed in pytorch_model.bin.index.json is missing") !=
                     std::string::npos,
                 missing.c_str());
        test::writeFile(sharded / "pytorch_model-00002-of-00002.bin", "x");
        const auto shards = locateCheckpoint(sharded);
        QCOMPARE(shards.weights.size(), std::size_t{2});
        QCOMPARE(shards.weights.back(), sharded / "pytorch_model-00002-of-00002.bin");

        const auto both = folder("pickled-and-safe", {"pytorch_model.bin", "model.safetensors"});
        QCOMPARE(locateCheckpoint(both).weights.front(), both / "model.safetensors");
    }

    void conversionCommandsRunAsShown_data() {
        QTest::addColumn<QString>("weights");
        QTest::addColumn<QString>("loadOptions");
        QTest::newRow("tensorflow") << "tf_model.h5"
                                    << "[('from_tf', True)]";
        QTest::newRow("flax") << "flax_model.msgpack"
                              << "[('from_flax', True)]";
    }
    void conversionCommandsRunAsShown() {
        if (QStandardPaths::findExecutable("python3").isEmpty())
            QSKIP("python3 is absent: the shown command cannot be run");
        QFETCH(QString, weights);
        QFETCH(QString, loadOptions);
        // Quotes, a dollar, a backquote and a backslash in the folder name: the command must pass
        // the name through the shell and Python unchanged.
        const auto directory =
            folder("it's a \"$HOME\" `x` \\ folder " + weights.toStdString(), {weights.toStdString()});
        const QString dir = QString::fromStdString(fs::absolute(directory).lexically_normal().string());
        const QString output = runShownCommand(refusal(directory));
        // Python's repr of the folder name, as the fake module prints it.
        QString pythonRepr = dir;
        pythonRepr.replace("\\", "\\\\").replace("'", "\\'");
        QCOMPARE(output, "load '" + pythonRepr + "' " + loadOptions + "\nsave '" + pythonRepr +
                             "' [('safe_serialization', True)]\n");
    }

    void vocabularyCommandRunsAsShown() {
        if (QStandardPaths::findExecutable("python3").isEmpty())
            QSKIP("python3 is absent: the shown command cannot be run");
        const auto directory = folder("tokenizer only $x", {"model.safetensors", "tokenizer.json"});
        fs::remove(directory / "vocab.txt");
        const QString dir = QString::fromStdString(fs::absolute(directory).lexically_normal().string());
        QCOMPARE(runShownCommand(refusal(directory)), "load '" + dir + "' []\nsave '" + dir + "' []\n");
    }
};

QTEST_APPLESS_MAIN(TestCheckpointFiles)
#include "test_checkpoint_files.moc"
