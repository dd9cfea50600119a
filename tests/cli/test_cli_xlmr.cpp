// An XLM-R checkpoint (config.json, model.safetensors, sentencepiece.bpe.model only, as
// cambridgeltl/SapBERT-UMLS-2020AB-all-lang-from-XLMR has it) through the commands that take
// --model: tokenize, encode, index and eval (dense and hybrid), link, train, pretrain and
// simulate-curation, on a German corpus and KB that xlmr_reference.py writes.
#include <QtTest/QtTest>

#include <cmath>
#include <filesystem>
#include <fstream>
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

    QStringList splitArguments() const {
        return QStringList{"--test", data("test.txt"), "--split", "test"} << dataArguments();
    }
    // models/NAME.json cut to one epoch with `limit` set to `value`, written here as NAME.json.
    QString tinyPreset(const char* name, const char* limit, int value) const {
        auto preset =
            nlohmann::json::parse(test::readFile(LINKSCOPE_SOURCE_DIR "/models/" + std::string(name) + ".json"));
        for (auto* schedule : {&preset["training"], &preset["schedules"]["short"]}) {
            (*schedule)["epochs"] = 1;
            (*schedule)[limit] = value;
        }
        const QString file = path(name) + ".json";
        test::writeFile(file.toStdString(), preset.dump());
        return file;
    }
    QByteArray encodeLine(const QString& model, const QByteArray& line) const {
        const auto r = test::runCli({"encode", "--model", model, "--device", "cpu"}, line + '\n');
        return r.exitCode == 0 ? r.out : "encode failed: " + r.err;
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

    // tokenize prints the ids transformers' XLMRobertaTokenizer gives (SentencePiece's own ids
    // under fairseq's mapping, written by xlmr_reference.py) for 1,000 lines in many scripts,
    // whole and truncated to 8; --tokens gives the pieces the ids stand for.
    void tokenizeGivesSentencePiecesIds() {
        if (!skipReason_.isEmpty()) QSKIP(qPrintable(skipReason_));
        const auto reference = test::runXlmrReference({"tokenizer", path("tokenizer")});
        QVERIFY2(reference.ran && reference.message.isEmpty(), qPrintable(reference.message));
        const QByteArray lines =
            QByteArray::fromStdString(test::readFile((path("tokenizer") + "/lines.txt").toStdString()));
        for (const auto& [limit, expected] : {std::pair{QString(), "ids.txt"}, std::pair{QString("8"), "ids-8.txt"}}) {
            QStringList arguments{"tokenize", "--model", path("tokenizer")};
            if (!limit.isEmpty()) arguments << "--max-length" << limit;
            const auto r = test::runCli(arguments, lines);
            if (r.err.contains("no SentencePiece support")) QSKIP("this build has no SentencePiece support");
            QVERIFY2(r.exitCode == 0, r.err.constData());
            const auto got = r.out.split('\n');
            const auto want =
                QByteArray::fromStdString(test::readFile((path("tokenizer") + "/" + expected).toStdString()))
                    .split('\n');
            QCOMPARE(got.size(), want.size());
            for (qsizetype i = 0; i < want.size(); ++i)
                QVERIFY2(got[i] == want[i], qPrintable(QString("line %1 (%2): %3 against %4")
                                                           .arg(i + 1)
                                                           .arg(QString::fromUtf8(lines.split('\n')[i]))
                                                           .arg(QString::fromUtf8(got[i]))
                                                           .arg(QString::fromUtf8(want[i]))));
        }

        // The model folder's tokenizer: <s> pieces </s>, the pieces spelling the word after "▁".
        const auto ids = test::runCli({"tokenize", "--model", path("xlmr")}, "Herzinfarkt\n");
        QVERIFY2(ids.exitCode == 0, ids.err.constData());
        const auto idList = ids.out.trimmed().split(' ');
        QCOMPARE(idList.front(), QByteArray("0"));
        QCOMPARE(idList.back(), QByteArray("2"));
        const auto pieces = test::runCli({"tokenize", "--model", path("xlmr"), "--tokens"}, "Herzinfarkt\n");
        QVERIFY2(pieces.exitCode == 0, pieces.err.constData());
        const auto pieceList = pieces.out.trimmed().split(' ');
        QCOMPARE(pieceList.size(), idList.size() - 2);
        QCOMPARE(pieceList.join(), QByteArray("\u2581Herzinfarkt"));
        const auto bare = test::runCli({"tokenize", "--model", path("xlmr"), "--no-special-tokens"}, "Herzinfarkt\n");
        QCOMPARE(bare.out.trimmed().split(' '), idList.mid(1, idList.size() - 2));
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

    // index --dense-index encodes the dictionary with the XLM-R model; eval reads that index and
    // ranks as it does when it encodes the names itself; an index of another pooling is refused.
    void denseIndexIsReadByEval() {
        if (!skipReason_.isEmpty()) QSKIP(qPrintable(skipReason_));
        const QString index = path("xlmr.dense");
        const auto built = test::runCli(QStringList{"index", "--model", path("xlmr"), "--device", "cpu", "--normalize",
                                                    "--dense-index", index, "--json"}
                                        << splitArguments());
        QVERIFY2(built.exitCode == 0, built.err.constData());
        const auto dense = built.json()["dense"];
        QCOMPARE(dense["dimension"].get<int>(), 32);
        QCOMPARE(dense["kind"].get<std::string>(), std::string("flat"));
        QVERIFY2(dense["fingerprint"].get<std::string>().find("pooling cls") != std::string::npos,
                 built.out.constData());
        QCOMPARE(dense["bytes"].get<std::uintmax_t>(), fs::file_size(index.toStdString()));

        const auto read = test::runCli(evalArguments("dense", path("xlmr")) << "--dense-index" << index);
        QVERIFY2(read.exitCode == 0, read.err.constData());
        QVERIFY2(read.json()["dense_index"].get<std::string>().starts_with("loaded from"), read.out.constData());
        QCOMPARE(read.json()["acc@1"].get<double>(), 1.0);
        QCOMPARE(read.json()["correct@1"].get<int>(), 16);

        const auto other = test::runCli(evalArguments("dense", path("xlmr")) << "--pooling"
                                                                             << "mean"
                                                                             << "--dense-index" << index);
        QCOMPARE(other.exitCode, 1);
        QVERIFY2(other.err.contains("the dense index was built for") && other.err.contains("pooling mean"),
                 other.err.constData());
    }

    void trainsAndSavesInTheSameLayout() {
        if (!skipReason_.isEmpty()) QSKIP(qPrintable(skipReason_));
        const auto r =
            test::runCli(QStringList{"train", "--preset", tinyPreset("biosyn", "max_train_mentions", 8), "--schedule",
                                     "short", "--model", path("xlmr"), "--device", "cpu", "--out", path("run")}
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

    // pretrain (SapBERT's self-alignment) from the XLM-R checkpoint: the run's model keeps the
    // architecture and the SentencePiece model, the step changed the weights (the checkpoint's
    // last epoch), and tokenize, eval and train take the run folder as they take the checkpoint.
    void pretrainsFromTheCheckpoint() {
        if (!skipReason_.isEmpty()) QSKIP(qPrintable(skipReason_));
        const auto r = test::runCli({"pretrain", "--preset", tinyPreset("sapbert", "batch_size", 16), "--schedule",
                                     "short", "--model", path("xlmr"), "--kb", data("kb.tsv"), "--dev", data("dev.txt"),
                                     "--device", "cpu", "--out", path("sap")});
        QVERIFY2(r.exitCode == 0, r.err.constData());
        QVERIFY2(r.out.contains("pretraining (self-alignment") && r.out.contains("fine-tune it with"),
                 r.out.constData());
        const fs::path run = path("sap").toStdString();
        const auto info = nlohmann::json::parse(test::readFile(run / "run.json"));
        QCOMPARE(info["status"].get<std::string>(), std::string("finished"));
        QCOMPARE(info["epochs_done"].get<int>(), 1);
        const auto config = nlohmann::json::parse(test::readFile(run / "model" / "config.json"));
        QCOMPARE(config["model_type"].get<std::string>(), std::string("xlm-roberta"));
        QCOMPARE(test::readFile(run / "model" / "sentencepiece.bpe.model"),
                 test::readFile((path("xlmr") + "/sentencepiece.bpe.model").toStdString()));
        QVERIFY(!fs::exists(run / "model" / "vocab.txt"));
        // Epoch 1 trained on the pairs: a finite loss, and weights other than the start's.
        bool trained = false;
        std::ifstream log(run / "log.jsonl");
        for (std::string line; std::getline(log, line);) {
            const auto event = nlohmann::json::parse(line);
            if (event["event"] == "epoch_end") trained = std::isfinite(event["train_loss"].get<double>());
        }
        QVERIFY(trained);
        const QString last = QString::fromStdString((run / "checkpoint" / "model").string());
        const QByteArray start = encodeLine(path("xlmr"), "Herzinfarkt");
        QVERIFY(encodeLine(last, "Herzinfarkt") != start);
        // The kept model is the epoch that validated best, loaded as the start was.
        const auto keptModel = QString::fromStdString((run / "model").string());
        if (info["best_epoch"].get<int>() == 0) QCOMPARE(encodeLine(keptModel, "Herzinfarkt"), start);

        const QByteArray lines = "Herzinfarkt\nDer Patient litt an Masern.\nRöteln\n";
        const auto ofRun = test::runCli({"tokenize", "--model", path("sap")}, lines);
        QVERIFY2(ofRun.exitCode == 0, ofRun.err.constData());
        QCOMPARE(ofRun.out, test::runCli({"tokenize", "--model", path("xlmr")}, lines).out);
        const auto linked = test::runCli(evalArguments("dense", path("sap")));
        QVERIFY2(linked.exitCode == 0, linked.err.constData());
        QCOMPARE(linked.json()["acc@1"].get<double>(), 1.0);
        const auto tuned =
            test::runCli(QStringList{"train", "--preset", tinyPreset("biosyn", "max_train_mentions", 8), "--schedule",
                                     "short", "--model", path("sap"), "--device", "cpu", "--out", path("from-sap")}
                         << dataArguments());
        QVERIFY2(tuned.exitCode == 0, tuned.err.constData());
        const auto tunedConfig =
            nlohmann::json::parse(test::readFile(path("from-sap/model/config.json").toStdString()));
        QCOMPARE(tunedConfig["model_type"].get<std::string>(), std::string("xlm-roberta"));
    }

    // simulate-curation with the trained XLM-R run: the document walk (the sieve fed with every
    // correction) starts where eval with that sieve stands, and the mention-level review with the
    // run's datastore ends with every mention decided and right.
    void simulatesCurationWithTheTrainedRun() {
        if (!skipReason_.isEmpty()) QSKIP(qPrintable(skipReason_));
        QVERIFY2(fs::exists((path("run") + "/run.json").toStdString()), "trainsAndSavesInTheSameLayout made no run");
        const QStringList sieve{"--sieve", "D-T+OD-T"};
        const auto r = test::runCli(QStringList{"simulate-curation", "--run", path("run"), "--device", "cpu", "--csv",
                                                path("curve.csv"), "--svg", path("curve.svg"), "--json"}
                                    << sieve << splitArguments());
        QVERIFY2(r.exitCode == 0, r.err.constData());
        const auto report = r.json();
        QCOMPARE(report["documents"].get<int>(), 16);
        QCOMPARE(report["mentions"].get<int>(), 16);
        QCOMPARE(report["preset"].get<std::string>(), std::string("biosyn"));
        const auto eval = test::runCli(QStringList{"eval", "--run", path("run"), "--device", "cpu", "--json"}
                                       << sieve << splitArguments());
        QVERIFY2(eval.exitCode == 0, eval.err.constData());
        QCOMPARE(report["accuracy_without"].get<double>(), eval.json()["acc@1"].get<double>());
        // Every wrong link is corrected once; no test mention repeats, so feedback reaches none.
        const double with = report["accuracy_with_feedback"].get<double>();
        QCOMPARE(report["corrections"].get<int>(), static_cast<int>(std::lround(16 * (1.0 - with))));
        QCOMPARE(report["gain"].get<double>(), with - report["accuracy_without"].get<double>());
        const auto csv = QByteArray::fromStdString(test::readFile(path("curve.csv").toStdString())).trimmed();
        QCOMPARE(csv.count('\n') + 1, 16 + 2);  // header, the start, one row per document
        QVERIFY(test::readFile(path("curve.svg").toStdString()).starts_with("<svg"));

        const auto review = test::runCli(QStringList{"simulate-curation", "--order", "queue,document", "--run",
                                                     path("run"), "--device", "cpu", "--knn", "--knn-k", "2", "--json"}
                                         << splitArguments());
        QVERIFY2(review.exitCode == 0, review.err.constData());
        const auto walks = review.json()["walks"];
        QCOMPARE(walks.size(), std::size_t{2});
        QCOMPARE(walks[0]["initial_accuracy"].get<double>(), walks[1]["initial_accuracy"].get<double>());
        for (const auto& walk : walks) {
            QCOMPARE(walk["decisions"].get<int>(), 16);
            QCOMPARE(walk["final_accuracy"].get<double>(), 1.0);
        }
    }
};

QTEST_GUILESS_MAIN(TestCliXlmr)
#include "test_cli_xlmr.moc"
