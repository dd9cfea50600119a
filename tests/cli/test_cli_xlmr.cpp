// An XLM-R checkpoint (config.json, model.safetensors, sentencepiece.bpe.model only, as
// cambridgeltl/SapBERT-UMLS-2020AB-all-lang-from-XLMR has it) through the commands that take
// --model: encode, eval (dense and hybrid), link and train, on a German corpus and KB that
// xlmr_reference.py writes.
#include <QtTest/QtTest>

#include <filesystem>
#include <string>

#include "cli_runner.h"
#include "test_data.h"
#include "xlmr_reference.h"

using namespace linkscope;
namespace fs = std::filesystem;

class TestCliXlmr : public QObject {
    Q_OBJECT
    QTemporaryDir dir_;
    QString skipReason_;

    QString path(const char* name) const { return dir_.filePath(QString::fromLatin1(name)); }
    QString data(const char* name) const { return dir_.filePath(QStringLiteral("data/") + QString::fromLatin1(name)); }
    QStringList dataArguments() const {
        return {"--train", data("train.txt"), "--dev", data("dev.txt"), "--kb", data("kb.tsv")};
    }
    QStringList evalArguments(const QString& method, const QString& model) const {
        // Cosine scores: a text's own vector then ranks first, whatever the weights.
        return QStringList{"eval",    "--test", data("test.txt"), "--split", "test",        "--method", method,
                           "--model", model,    "--device",       "cpu",     "--normalize", "--json"}
               << dataArguments();
    }

private Q_SLOTS:
    void initTestCase() {
        QVERIFY(dir_.isValid());
        // The "sentencepiece" check reads the CLI's refusal: a build without it says so plainly.
        const auto corpus = test::runXlmrReference({"corpus", path("data")});
        if (!corpus.ran) {
            skipReason_ = corpus.message;
            return;
        }
        QVERIFY2(corpus.message.isEmpty(), qPrintable(corpus.message));
        // A random XLM-R whose tokenizer was trained on the KB's names.
        fs::create_directories(path("xlmr").toStdString());
        fs::copy_file(data("sentencepiece.bpe.model").toStdString(),
                      (path("xlmr") + "/sentencepiece.bpe.model").toStdString());
        test::writeFile((path("xlmr") + "/texts.txt").toStdString(), "Herzinfarkt\n");
        const auto model = test::runXlmrReference({"model", path("xlmr"), path("xlmr") + "/texts.txt", ""});
        QVERIFY2(model.message.isEmpty(), qPrintable(model.message));
    }

    void encodeGivesOneVectorPerLine() {
        if (!skipReason_.isEmpty()) QSKIP(qPrintable(skipReason_));
        const auto r = test::runCli({"encode", "--model", path("xlmr"), "--device", "cpu"},
                                    "Herzinfarkt\nLungenentzündung\nHerzinfarkt\n");
        if (r.err.contains("no SentencePiece support")) QSKIP("this build has no SentencePiece support");
        QVERIFY2(r.exitCode == 0, r.err.constData());
        const auto lines = r.out.trimmed().split('\n');
        QCOMPARE(lines.size(), 3);
        QCOMPARE(lines[0].split(' ').size(), 32);  // the model's hidden size
        QCOMPARE(lines[0], lines[2]);
        QVERIFY(lines[0] != lines[1]);
    }

    void exactNamesLinkDenseAndHybrid() {
        if (!skipReason_.isEmpty()) QSKIP(qPrintable(skipReason_));
        // Every test mention is a KB name: an untrained encoder gives it the name's own vector
        // (with inner products it may not rank first: a longer vector of another name can win).
        for (const char* method : {"dense", "hybrid"}) {
            const auto r = test::runCli(evalArguments(method, path("xlmr")));
            QVERIFY2(r.exitCode == 0, r.err.constData());
            QCOMPARE(r.json()["acc@1"].get<double>(), 1.0);
        }
    }

    void linkWritesTheGoldIdsOfExactNames() {
        if (!skipReason_.isEmpty()) QSKIP(qPrintable(skipReason_));
        const auto r = test::runCli({"link", "--corpus", data("test.txt"), "--kb", data("kb.tsv"), "--model",
                                     path("xlmr"), "--device", "cpu", "--normalize", "--out", path("linked.txt")});
        QVERIFY2(r.exitCode == 0, r.err.constData());
        // The test split's mentions are KB names with their gold ids: linked, the file is unchanged.
        const auto mentionLines = [](const std::string& text) {
            QStringList lines;
            for (const auto& line : QString::fromStdString(text).split('\n'))
                if (line.count('\t') == 5) lines << line;
            return lines;
        };
        const auto linked = mentionLines(test::readFile(path("linked.txt").toStdString()));
        QCOMPARE(linked.size(), 16);
        QCOMPARE(linked, mentionLines(test::readFile(data("test.txt").toStdString())));
    }

    void trainsAndSavesInTheSameLayout() {
        if (!skipReason_.isEmpty()) QSKIP(qPrintable(skipReason_));
        auto preset = nlohmann::json::parse(test::readFile(LINKSCOPE_SOURCE_DIR "/models/biosyn.json"));
        for (auto* schedule : {&preset["training"], &preset["schedules"]["short"]}) {
            (*schedule)["epochs"] = 1;
            (*schedule)["max_train_mentions"] = 8;
        }
        test::writeFile(path("biosyn.json").toStdString(), preset.dump());
        const auto r = test::runCli(QStringList{"train", "--preset", path("biosyn.json"), "--schedule", "short",
                                                "--model", path("xlmr"), "--device", "cpu", "--out", path("run")}
                                    << dataArguments());
        QVERIFY2(r.exitCode == 0, r.err.constData());
        const fs::path model = (path("run") + "/model").toStdString();
        QVERIFY(fs::exists(model / "sentencepiece.bpe.model"));
        QVERIFY(!fs::exists(model / "vocab.txt"));
        const auto config = nlohmann::json::parse(test::readFile(model / "config.json"));
        QCOMPARE(config["model_type"].get<std::string>(), std::string("xlm-roberta"));

        const auto trained = test::runCli(evalArguments("dense", path("run")));
        QVERIFY2(trained.exitCode == 0, trained.err.constData());
        QVERIFY2(trained.json()["acc@1"].get<double>() >= 0.75, trained.out.constData());
    }
};

QTEST_GUILESS_MAIN(TestCliXlmr)
#include "test_cli_xlmr.moc"
