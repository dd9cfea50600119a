// The encoder commands of linkscope-cli as a user runs them: tokenize and encode on standard
// input, init-model for the compact encoder, index, and eval with the dense and hybrid methods
// on the demo project; with the refusals a user meets (a pickle checkpoint, an index of another
// model, a text without its markers).
#include <cmath>
#include <cstdlib>
#include <filesystem>

#include "cli_runner.h"
#include "test_data.h"

using namespace linkscope;

namespace {

std::vector<std::vector<double>> parseVectors(const QByteArray& out) {
    std::vector<std::vector<double>> vectors;
    for (const QByteArray& line : out.split('\n')) {
        if (line.isEmpty()) continue;
        std::vector<double> v;
        for (const QByteArray& number : line.split(' ')) v.push_back(std::strtod(number.constData(), nullptr));
        vectors.push_back(std::move(v));
    }
    return vectors;
}

}  // namespace

class TestCliEncoder : public QObject {
    Q_OBJECT
    QTemporaryDir dir_;
    QString path(const char* name) const { return dir_.filePath(QString::fromLatin1(name)); }
    static QString demo(const char* name) { return test::demoFile(name); }
    static QString preset() { return QStringLiteral(LINKSCOPE_SOURCE_DIR "/models/compact-encoder.json"); }
    QStringList evalArguments(const QString& method, const QString& model) const {
        return test::demoEvalArguments(method) << QStringLiteral("--model") << model << QStringLiteral("--json");
    }

private Q_SLOTS:
    void initTestCase() {
        QVERIFY(dir_.isValid());
        // A tokenizer written by hand: ids are line numbers; [S] and [E] are added tokens.
        const std::filesystem::path tok = path("tokenizer").toStdString();
        std::filesystem::create_directories(tok);
        test::writeFile(
            tok / "vocab.txt",
            "[PAD]\n[UNK]\n[CLS]\n[SEP]\n[MASK]\nbreast\ncancer\n##s\ntumor\n-\n\xce\xb1\ncafe\n[S]\n[E]\n");
        test::writeFile(tok / "tokenizer_config.json", R"({"do_lower_case": true, "model_max_length": 512})");
        test::writeFile(tok / "added_tokens.json", R"({"[S]": 12, "[E]": 13})");

        // The compact encoder of the demo project, with BELHD's markers.
        const auto r = test::runCli({"init-model", "--preset", preset(), "--kb", demo("demo-kb.txt"), "--corpus",
                                     demo("demo-train.txt"), "--markers", "belhd", "--out", path("compact")});
        QVERIFY2(r.exitCode == 0, r.err.constData());
        QVERIFY(r.out.contains("compact encoder written"));
    }

    void tokenizePrintsIdsPerLine() {
        // [CLS]=2 [SEP]=3; "Breast cancers" -> breast cancer ##s; "Café tumor-α" lower-cased and
        // stripped of its accent -> cafe tumor - α; "xyz" has no pieces -> [UNK]=1; the markers
        // stay whole.
        const auto r = test::runCli({"tokenize", "--model", path("tokenizer")},
                                    "Breast cancers\nCaf\xc3\xa9 tumor-\xce\xb1\nxyz\n[S] breast cancer [E]\n");
        QVERIFY2(r.exitCode == 0, r.err.constData());
        QCOMPARE(r.out, QByteArray("2 5 6 7 3\n2 11 8 9 10 3\n2 1 3\n2 12 5 6 13 3\n"));
        const auto truncated =
            test::runCli({"tokenize", "--model", path("tokenizer"), "--max-length", "4"}, "Breast cancers\n");
        QCOMPARE(truncated.out, QByteArray("2 5 6 3\n"));
        const auto pieces = test::runCli({"tokenize", "--model", path("tokenizer"), "--tokens"}, "Breast cancers\r\n");
        QCOMPARE(pieces.out, QByteArray("breast cancer ##s\n"));
    }
    void tokenizeRejectsInvalidUtf8WithItsLine() {
        const auto r = test::runCli({"tokenize", "--model", path("tokenizer")}, "breast\n\xff\xfe\n");
        QCOMPARE(r.exitCode, 1);
        QVERIFY2(r.err.contains("<stdin>:2"), r.err.constData());
    }

    // One endless line (a binary piped in by mistake) is refused at the cap, not read whole:
    // the memory a line takes must stay bounded by the cap, whatever is piped in.
    void tokenizeRefusesAnOverlongLineAndDropsAByteOrderMark() {
        const QByteArray endless = "breast\n" + QByteArray(3 << 20, 'x') + "\n";
        const auto r = test::runCli({"tokenize", "--model", path("tokenizer")}, endless);
        QCOMPARE(r.exitCode, 1);
        QVERIFY2(r.err.contains("<stdin>:2: line longer than 1048576 bytes"), r.err.constData());
        const auto bom = test::runCli({"tokenize", "--model", path("tokenizer")},
                                      "\xEF\xBB\xBF"
                                      "Breast cancers\n");
        QVERIFY2(bom.exitCode == 0, bom.err.constData());
        QCOMPARE(bom.out, QByteArray("2 5 6 7 3\n"));
    }

    void compactModelIsAHuggingFaceCheckpoint() {
        for (const char* file : {"config.json", "vocab.txt", "tokenizer_config.json", "model.safetensors"})
            QVERIFY2(QFile::exists(path("compact") + "/" + file), file);
        const auto config = nlohmann::json::parse(test::readFile((path("compact") + "/config.json").toStdString()));
        QCOMPARE(config["model_type"].get<std::string>(), std::string("bert"));
        QCOMPARE(config["hidden_size"].get<int>(), 256);
        // A second init-model into the same directory must not silently replace the model.
        const auto again =
            test::runCli({"init-model", "--preset", preset(), "--kb", demo("demo-kb.txt"), "--out", path("compact")});
        QCOMPARE(again.exitCode, 1);
        QVERIFY(again.err.contains("--force"));
    }

    void malformedPresetsAreRefusedWithFileAndLine() {
        const auto initWith = [&](const char* name, const std::string& content) {
            test::writeFile(path(name).toStdString(), content);
            return test::runCli(
                {"init-model", "--preset", path(name), "--kb", demo("demo-kb.txt"), "--out", path("never-written")});
        };
        const auto syntax = initWith("syntax.json", "{\n  \"config\": oops\n}\n");
        QCOMPARE(syntax.exitCode, 1);
        QVERIFY2(syntax.err.contains("syntax.json:2: not valid JSON"), syntax.err.constData());
        const auto noConfig = initWith("no-config.json", "{\"vocabulary\": {\"size\": 100}}\n");
        QCOMPARE(noConfig.exitCode, 1);
        QVERIFY2(noConfig.err.contains("no-config.json") && noConfig.err.contains("\"config\""),
                 noConfig.err.constData());
        const auto badSize = initWith("bad-size.json",
                                      "{\"config\": {\"hidden_size\": 30, \"num_hidden_layers\": 1, "
                                      "\"num_attention_heads\": 4, \"intermediate_size\": 8}}\n");
        QCOMPARE(badSize.exitCode, 1);  // 30 hidden units do not split over 4 heads
        QVERIFY2(badSize.err.contains("bad-size.json"), badSize.err.constData());
        const auto badUtf8 = initWith("utf8.json", "{\"description\": \"\xff\"}\n");
        QCOMPARE(badUtf8.exitCode, 1);
        QVERIFY2(badUtf8.err.contains("utf8.json:1"), badUtf8.err.constData());
        QVERIFY(!QFile::exists(path("never-written")));
    }

    void encodePrintsOneVectorPerLine() {
        const QByteArray input = "breast cancer\ncolon cancer\nbreast cancer\n";
        const auto r = test::runCli({"encode", "--model", path("compact")}, input);
        QVERIFY2(r.exitCode == 0, r.err.constData());
        const auto vectors = parseVectors(r.out);
        QCOMPARE(vectors.size(), std::size_t{3});
        QCOMPARE(vectors[0].size(), std::size_t{256});
        QCOMPARE(vectors[0], vectors[2]);  // the same text, the same vector
        QVERIFY(vectors[0] != vectors[1]);
        // Deterministic from run to run; 9 significant digits print every float exactly.
        QCOMPARE(test::runCli({"encode", "--model", path("compact")}, input).out, r.out);

        const auto normalized =
            parseVectors(test::runCli({"encode", "--model", path("compact"), "--normalize"}, input).out);
        for (const auto& v : normalized) {
            double norm = 0.0;
            for (double x : v) norm += x * x;
            QVERIFY(std::abs(std::sqrt(norm) - 1.0) < 1e-5);
        }
        const auto mean =
            parseVectors(test::runCli({"encode", "--model", path("compact"), "--pooling", "mean"}, input).out);
        QCOMPARE(mean.size(), std::size_t{3});
        QVERIFY(mean[0] != vectors[0]);
    }
    void markerPoolingNeedsTheMarkers() {
        const auto ok = test::runCli({"encode", "--model", path("compact"), "--pooling", "markers"},
                                     "in [S] breast cancer [E] patients\n");
        QVERIFY2(ok.exitCode == 0, ok.err.constData());
        QCOMPARE(parseVectors(ok.out).size(), std::size_t{1});
        const auto missing =
            test::runCli({"encode", "--model", path("compact"), "--pooling", "markers"}, "breast cancer\n");
        QCOMPARE(missing.exitCode, 1);
        QVERIFY2(missing.err.contains("[S]") || missing.err.contains("marker"), missing.err.constData());
    }
    // pytorch_model.bin is read by the restricted unpickler: a pickle that calls os.system is
    // refused naming the global, and the command it carries never runs.
    void picklesThatRunCodeAreRefused() {
        const std::filesystem::path dir = path("pickle").toStdString();
        std::filesystem::create_directories(dir);
        std::filesystem::copy_file(path("compact").toStdString() + "/config.json", dir / "config.json");
        std::filesystem::copy_file(path("compact").toStdString() + "/vocab.txt", dir / "vocab.txt");
        const std::string marker = (dir / "ran").string();
        const std::string command = "touch " + marker;
        test::writeFile(dir / "pytorch_model.bin",
                        "\x80\x02\x8a\x0a\x6c\xfc\x9c\x46\xf9\x20\x6a\xa8\x50\x19.\x80\x02"
                        "cos\nsystem\nX" +
                            std::string(1, static_cast<char>(command.size())) + std::string(3, '\0') + command +
                            "\x85R.");
        const auto r = test::runCli({"encode", "--model", path("pickle")}, "breast cancer\n");
        QCOMPARE(r.exitCode, 1);
        QVERIFY2(r.err.contains("pytorch_model.bin") && r.err.contains("refuses the global 'os.system'"),
                 r.err.constData());
        QVERIFY(!std::filesystem::exists(marker));
    }

    void denseAndHybridEvaluation() {
        const auto dense = test::runCli(evalArguments("dense", path("compact")));
        QVERIFY2(dense.exitCode == 0, dense.err.constData());
        const auto d = dense.json();
        QCOMPARE(d["mentions"].get<int>(), 15);
        QCOMPARE(d["method"].get<std::string>(), std::string("dense"));

        // lambda 0: S is the dense score alone, so the hybrid ranking is the dense one, name for
        // name and score for score (the hybrid ranker rescores exactly what FAISS scored).
        const auto densePredictions =
            test::runCli(evalArguments("dense", path("compact")) << "--per-mention" << path("dense.jsonl"));
        QVERIFY2(densePredictions.exitCode == 0, densePredictions.err.constData());
        const auto zero =
            test::runCli(evalArguments("hybrid", path("compact")) << "--sparse-weight"
                                                                  << "0"
                                                                  << "--per-mention" << path("hybrid0.jsonl"));
        QVERIFY2(zero.exitCode == 0, zero.err.constData());
        QCOMPARE(zero.json()["acc@k"], d["acc@k"]);
        const std::string denseLines = test::readFile(path("dense.jsonl").toStdString());
        QVERIFY(denseLines.find("\"predictions\"") != std::string::npos);
        QCOMPARE(test::readFile(path("hybrid0.jsonl").toStdString()), denseLines);

        // A large lambda lets the sparse score decide: every demo test mention is a KB name
        // (the sparse linker's acc@1 is 1), and untrained dense scores only break ties.
        const auto sparseLed = test::runCli(evalArguments("hybrid", path("compact")) << "--sparse-weight"
                                                                                     << "1000");
        QVERIFY2(sparseLed.exitCode == 0, sparseLed.err.constData());
        QCOMPARE(sparseLed.json()["acc@1"].get<double>(), 1.0);
        QCOMPARE(sparseLed.json()["sparse_weight"].get<std::string>(), std::string("1000"));
    }
    void indexesAreBuiltOnceAndRefusedForAnotherModel() {
        const auto built = test::runCli({"index", "--train", demo("demo-train.txt"), "--dev", demo("demo-train.txt"),
                                         "--test", demo("demo-test.txt"), "--kb", demo("demo-kb.txt"), "--split",
                                         "test", "--sparse-index", path("demo.sparse"), "--model", path("compact"),
                                         "--dense-index", path("demo.dense"), "--json"});
        QVERIFY2(built.exitCode == 0, built.err.constData());
        QVERIFY(QFile::exists(path("demo.sparse")) && QFile::exists(path("demo.dense")));
        QCOMPARE(built.json()["dense"]["dimension"].get<int>(), 256);

        const auto fresh = test::runCli(evalArguments("hybrid", path("compact")));
        const auto loaded = test::runCli(evalArguments("hybrid", path("compact"))
                                         << "--index" << path("demo.sparse") << "--dense-index" << path("demo.dense"));
        QVERIFY2(loaded.exitCode == 0, loaded.err.constData());
        QVERIFY(loaded.json()["dense_index"].get<std::string>().starts_with("loaded from"));
        QVERIFY(loaded.json()["dense_index"].get<std::string>().ends_with("(flat)"));
        QVERIFY(loaded.json()["index"].get<std::string>().starts_with("loaded from"));
        QCOMPARE(loaded.json()["acc@k"], fresh.json()["acc@k"]);

        // Another model (no markers: another vocabulary) must not use these vectors.
        const auto other =
            test::runCli({"init-model", "--preset", preset(), "--kb", demo("demo-kb.txt"), "--out", path("other")});
        QVERIFY2(other.exitCode == 0, other.err.constData());
        const auto refused =
            test::runCli(evalArguments("dense", path("other")) << "--dense-index" << path("demo.dense"));
        QCOMPARE(refused.exitCode, 1);
        QVERIFY2(refused.err.contains("linkscope-cli index"), refused.err.constData());

        // A rebuild that fails (IVF-PQ needs more names than the demo KB has) keeps the old
        // index: it was deleted before the build began.
        const std::string before = test::readFile(path("demo.dense").toStdString());
        const auto failed =
            test::runCli({"index", "--train", demo("demo-train.txt"), "--dev", demo("demo-train.txt"), "--test",
                          demo("demo-test.txt"), "--kb", demo("demo-kb.txt"), "--split", "test", "--model",
                          path("compact"), "--dense-index", path("demo.dense"), "--dense-kind", "ivf-pq"});
        QCOMPARE(failed.exitCode, 1);
        QVERIFY2(failed.err.contains("IVF-PQ cannot be trained"), failed.err.constData());
        QCOMPARE(test::readFile(path("demo.dense").toStdString()), before);
    }
    void denseMethodsNeedAModel() {
        QStringList arguments = evalArguments("dense", path("compact"));
        const auto at = arguments.indexOf("--model");
        arguments.remove(at, 2);
        const auto r = test::runCli(arguments);
        QCOMPARE(r.exitCode, 1);
        QVERIFY2(r.err.contains("--model"), r.err.constData());
    }
};

QTEST_GUILESS_MAIN(TestCliEncoder)
#include "test_cli_encoder.moc"
