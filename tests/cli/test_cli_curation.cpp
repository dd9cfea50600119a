// linkscope-cli with the datastore, as a user runs it on the demo project: a triplet run (one
// short epoch) evaluated with kNN-BioEL's interpolation, with Xu & Bethard's sieves and with
// several linkings side by side; the datastore saved and loaded again; the simulated curation
// walk with its CSV and SVG; and the refusals a user meets.
#include <filesystem>
#include <sstream>
#include <string>

#include "cli_runner.h"
#include "project/project_manifest.h"
#include "project/project_store.h"
#include "test_data.h"

using namespace linkscope;
namespace fs = std::filesystem;

class TestCliCuration : public QObject {
    Q_OBJECT
    QTemporaryDir dir_;
    QString path(const char* name) const { return dir_.filePath(QString::fromLatin1(name)); }
    static QString demo(const char* name) { return test::demoFile(name); }
    // The demo's test split serves as dev: it has no dev split of its own.
    QStringList dataArguments() const {
        return {"--train", demo("demo-train.txt"), "--dev", demo("demo-test.txt"), "--kb", demo("demo-kb.txt")};
    }
    QStringList evalArguments(const QStringList& extra) const {
        return QStringList{"eval", "--run", path("run"), "--split", "dev", "--device", "cpu", "--json"}
               << dataArguments() << extra;
    }
    static nlohmann::json json(const test::CliResult& r) { return nlohmann::json::parse(r.out.toStdString()); }

private Q_SLOTS:
    void initTestCase() {
        QVERIFY(dir_.isValid());
        // The triplet preset cut to one epoch of 16 mentions: a model a test can afford.
        auto preset = nlohmann::json::parse(test::readFile(LINKSCOPE_SOURCE_DIR "/models/triplet.json"));
        for (auto* schedule : {&preset["training"], &preset["schedules"]["short"]}) {
            (*schedule)["epochs"] = 1;
            (*schedule)["max_train_mentions"] = 16;
        }
        test::writeFile(path("tiny-triplet.json").toStdString(), preset.dump(2));
        const auto r = test::runCli(QStringList{"train", "--preset", path("tiny-triplet.json"), "--schedule", "short",
                                                "--compact", "--device", "cpu", "--out", path("run")}
                                    << dataArguments());
        QVERIFY2(r.exitCode == 0, r.err.constData());
    }

    // The sieve, with the datastore built from the training mentions and saved, then loaded.
    void sieveWithASavedDatastore() {
        const QString store = path("run.datastore");
        const auto built = test::runCli(evalArguments({"--sieve", "D-T+OD-T", "--datastore", store}));
        QVERIFY2(built.exitCode == 0, built.err.constData());
        QVERIFY(fs::exists(store.toStdString()));
        const auto report = json(built);
        QCOMPARE(report["linking"].get<std::string>(), std::string("sieve D-T+OD-T (threshold 0.95)"));
        const int keys = std::stoi(report["datastore_keys"].get<std::string>());
        QVERIFY(keys > 0);
        const double accuracy = report["acc@1"].get<double>();

        // Loaded again: the same keys and the same result.
        const auto loaded = test::runCli(evalArguments({"--sieve", "D-T+OD-T", "--datastore", store}));
        QVERIFY2(loaded.exitCode == 0, loaded.err.constData());
        QCOMPARE(std::stoi(json(loaded)["datastore_keys"].get<std::string>()), keys);
        QCOMPARE(json(loaded)["acc@1"].get<double>(), accuracy);
    }

    // The sieve's threshold is the run preset's triplet.sieve_threshold unless --sieve-threshold
    // says otherwise.
    void theSieveThresholdComesFromTheRunsPreset() {
        const fs::path copy = path("run-threshold").toStdString();
        fs::copy(path("run").toStdString(), copy, fs::copy_options::recursive);
        auto preset = nlohmann::json::parse(test::readFile(copy / "preset.json"));
        preset["triplet"]["sieve_threshold"] = 0.5;
        test::writeFile(copy / "preset.json", preset.dump(2));
        QStringList arguments = evalArguments({"--sieve", "D-T+OD-T"});
        arguments[arguments.indexOf(QStringLiteral("--run")) + 1] = path("run-threshold");
        const auto fromPreset = test::runCli(arguments);
        QVERIFY2(fromPreset.exitCode == 0, fromPreset.err.constData());
        QCOMPARE(json(fromPreset)["linking"].get<std::string>(), std::string("sieve D-T+OD-T (threshold 0.5)"));
        const auto overridden = test::runCli(arguments << "--sieve-threshold"
                                                       << "0.9");
        QVERIFY2(overridden.exitCode == 0, overridden.err.constData());
        QCOMPARE(json(overridden)["linking"].get<std::string>(), std::string("sieve D-T+OD-T (threshold 0.9)"));
    }

    // The datastore kept inside a project file: built and stored on first use, loaded after,
    // and the run registered in the project.
    void datastoreKeptInTheProjectFile() {
        const QString projectFile = path("demo.linkscope");
        project::ProjectStore::create(projectFile.toStdString(),
                                      readProjectManifest(test::demoFile("demo-project.json").toStdString()));
        const auto sizeBefore = fs::file_size(projectFile.toStdString());
        const auto built = test::runCli(evalArguments({"--knn", "--project", projectFile}));
        QVERIFY2(built.exitCode == 0, built.err.constData());
        const int keys = std::stoi(json(built)["datastore_keys"].get<std::string>());
        QVERIFY(keys > 0);
        {
            const auto store = project::ProjectStore::open(projectFile.toStdString());
            const auto runs = store.runs();
            QCOMPARE(runs.size(), std::size_t{1});
            QCOMPARE(runs[0].name, std::string("run"));
            QCOMPARE(runs[0].preset, std::string("tiny-triplet"));  // the preset file the run was trained with
            QCOMPARE(runs[0].directory, fs::path(path("run").toStdString()));
        }
        // The keys' vectors are in the file now (and no datastore file was written beside it).
        QVERIFY(fs::file_size(projectFile.toStdString()) > sizeBefore + static_cast<std::uintmax_t>(keys) * 4);
        const auto loaded = test::runCli(evalArguments({"--knn", "--project", projectFile}));
        QVERIFY2(loaded.exitCode == 0, loaded.err.constData());
        QCOMPARE(std::stoi(json(loaded)["datastore_keys"].get<std::string>()), keys);
        QCOMPARE(json(loaded)["acc@1"].get<double>(), json(built)["acc@1"].get<double>());
        // One place for the datastore at a time.
        const auto both = test::runCli(evalArguments({"--knn", "--project", projectFile, "--datastore", path("x.ds")}));
        QVERIFY(both.exitCode != 0);
        QVERIFY2(both.err.contains("--datastore or --project"), both.err.constData());
        // A file that is not a project is named.
        test::writeFile(path("not-a-project.linkscope").toStdString(), "hello");
        const auto wrong = test::runCli(evalArguments({"--knn", "--project", path("not-a-project.linkscope")}));
        QVERIFY(wrong.exitCode != 0);
        QVERIFY2(wrong.err.contains("not-a-project.linkscope"), wrong.err.constData());
    }

    void knnInterpolation() {
        const auto r = test::runCli(evalArguments({"--knn", "--knn-lambda", "0.3", "--knn-k", "2"}));
        QVERIFY2(r.exitCode == 0, r.err.constData());
        const auto report = json(r);
        QCOMPARE(report["linking"].get<std::string>(), std::string("knn (k 2, lambda 0.3, beta1 0.01, beta2 1)"));
        QVERIFY(report["acc@1"].get<double>() >= 0.0);
    }

    // Several linkings side by side; "model" is the run's own linking, as plain eval --run gives it.
    void linkingsSideBySide() {
        const auto r = test::runCli(evalArguments({"--linking", "model,knn,O-T,D-C,exact+D-T+OD-T"}));
        QVERIFY2(r.exitCode == 0, r.err.constData());
        const auto rows = json(r)["linkings"];
        QCOMPARE(rows.size(), std::size_t{5});
        QCOMPARE(rows[0]["linking"].get<std::string>(), std::string("model"));
        QCOMPARE(rows[2]["linking"].get<std::string>(), std::string("sieve O-T (threshold 0.95)"));
        QCOMPARE(rows[4]["linking"].get<std::string>(), std::string("sieve exact+D-T+OD-T (threshold 0.95)"));
        for (const auto& row : rows) QVERIFY(row["acc@1"].get<double>() <= row["acc@5"].get<double>());

        const auto plain = test::runCli(evalArguments({}));
        QVERIFY2(plain.exitCode == 0, plain.err.constData());
        QCOMPARE(rows[0]["acc@1"].get<double>(), json(plain)["acc@1"].get<double>());

        // The table a user reads.
        auto text = evalArguments({"--linking", "model,OD-T"});
        text.removeAll("--json");
        const auto table = test::runCli(text);
        QVERIFY2(table.exitCode == 0, table.err.constData());
        QVERIFY2(table.out.contains("Acc@1") && table.out.contains("sieve OD-T (threshold 0.95)"),
                 table.out.constData());
    }

    void simulatedCuration() {
        const auto r =
            test::runCli(QStringList{"simulate-curation", "--run", path("run"), "--device", "cpu", "--sieve",
                                     "D-T+OD-T", "--csv", path("curve.csv"), "--svg", path("curve.svg"), "--json"}
                         << dataArguments());
        QVERIFY2(r.exitCode == 0, r.err.constData());
        const auto report = json(r);
        const auto documents = report["documents"].get<std::size_t>();
        QVERIFY(documents > 0);
        QVERIFY(report["mentions"].get<std::size_t>() >= documents);
        // Feedback can only help a document whose mentions repeat earlier corrections; it never
        // counts a document twice.
        const double with = report["accuracy_with_feedback"].get<double>();
        const double without = report["accuracy_without"].get<double>();
        QVERIFY(with >= 0.0 && with <= 1.0 && without >= 0.0 && without <= 1.0);
        QCOMPARE(report["gain"].get<double>(), with - without);

        // One CSV row per document plus the start and the header.
        std::istringstream csv(test::readFile(path("curve.csv").toStdString()));
        std::string line;
        std::size_t lines = 0;
        while (std::getline(csv, line)) ++lines;
        QCOMPARE(lines, documents + 2);
        const std::string svg = test::readFile(path("curve.svg").toStdString());
        QVERIFY(svg.starts_with("<svg") && svg.find("with feedback") != std::string::npos);
    }

    // The mention-level review with the run and its datastore: both orders start
    // from the same proposals (the walk's keys are taken back between them) and end with every
    // mention decided, the whole split right.
    void reviewWithTheRun() {
        const auto r =
            test::runCli(QStringList{"simulate-curation", "--order", "queue,document", "--run", path("run"), "--device",
                                     "cpu", "--knn", "--knn-k", "2", "--json", "--csv", path("review.csv")}
                         << dataArguments());
        QVERIFY2(r.exitCode == 0, r.err.constData());
        const auto report = json(r);
        QVERIFY2(report["linking"].get<std::string>().find("with its datastore, knn (k 2") != std::string::npos,
                 report["linking"].get<std::string>().c_str());
        const auto walks = report["walks"];
        QCOMPARE(walks.size(), std::size_t{2});
        QCOMPARE(walks[0]["initial_accuracy"].get<double>(), walks[1]["initial_accuracy"].get<double>());
        for (const auto& walk : walks) {
            QCOMPARE(walk["final_accuracy"].get<double>(), 1.0);
            QCOMPARE(walk["decisions"].get<std::size_t>(), report["mentions"].get<std::size_t>());
        }
        QVERIFY(test::readFile(path("review.csv").toStdString()).starts_with("order,apply_to_all,decisions"));
        // Without a datastore the run's decisions would reach nothing.
        const auto noKnn =
            test::runCli(QStringList{"simulate-curation", "--order", "queue", "--run", path("run"), "--device", "cpu"}
                         << dataArguments());
        QVERIFY(noKnn.exitCode != 0);
        QVERIFY2(noKnn.err.contains("--knn or --sieve"), noKnn.err.constData());
    }

    void refusals() {
        // A datastore needs a trained method's encoder.
        auto r = test::runCli(QStringList{"eval", "--split", "dev", "--knn"} << dataArguments());
        QVERIFY(r.exitCode != 0);
        QVERIFY2(r.err.contains("--run"), r.err.constData());
        r = test::runCli(evalArguments({"--knn", "--sieve", "O-T"}));
        QVERIFY(r.exitCode != 0);
        QVERIFY2(r.err.contains("not both"), r.err.constData());
        r = test::runCli(evalArguments({"--sieve", "D-T+X-T"}));
        QVERIFY(r.exitCode != 0);
        QVERIFY2(r.err.contains("OD-C"), r.err.constData());  // the message lists the valid names
        r = test::runCli(evalArguments({"--knn", "--knn-lambda", "2"}));
        QVERIFY(r.exitCode != 0);
        QVERIFY2(r.err.contains("lambda"), r.err.constData());
        // A damaged datastore file is named.
        test::writeFile(path("broken.datastore").toStdString(), "LSKNNDS1 not really");
        r = test::runCli(evalArguments({"--knn", "--datastore", path("broken.datastore")}));
        QVERIFY(r.exitCode != 0);
        QVERIFY2(r.err.contains("broken.datastore"), r.err.constData());
        // The walk needs something to feed.
        r = test::runCli(QStringList{"simulate-curation", "--run", path("run"), "--device", "cpu"} << dataArguments());
        QVERIFY(r.exitCode != 0);
        QVERIFY2(r.err.contains("--knn or --sieve"), r.err.constData());
    }
};

QTEST_APPLESS_MAIN(TestCliCuration)
#include "test_cli_curation.moc"
