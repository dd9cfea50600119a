// A run folder's files without LibTorch: written in place and never through a symbolic link
// (train/run_files.h), the copies a kill inside a swap leaves taken back (train/run_recovery.h),
// and the checkpoint's tables read back with every id and size checked (train/checkpoint_tables.h).
#include <QTemporaryDir>
#include <QTest>

#include <cstdint>
#include <filesystem>
#include <limits>
#include <string>
#include <vector>

#include <sys/stat.h>

#include "error_of.h"
#include "test_data.h"
#include "train/checkpoint_tables.h"
#include "train/run_directory.h"
#include "train/run_files.h"
#include "train/run_recovery.h"
#include "util/error.h"

using namespace linkscope;
using namespace linkscope::train;
namespace fs = std::filesystem;

namespace {

using test::errorOf;

bool mentions(const std::string& message, const fs::path& file) {
    return message.find(file.string()) != std::string::npos;
}

}  // namespace

class TestRunFiles : public QObject {
    Q_OBJECT
    QTemporaryDir dir_;
    fs::path base() const { return dir_.path().toStdString(); }

    // A folder with run.json and preset.json (what isRunDirectory asks for).
    fs::path makeRun(const char* name) const {
        const fs::path run = base() / name;
        fs::create_directories(run);
        RunInfo info;
        info.preset = "biosyn";
        writeRunInfo(run, info);
        test::writeFile(presetFile(run), "{}");
        return run;
    }

private Q_SLOTS:
    void initTestCase() { QVERIFY(dir_.isValid()); }

    // A log that is a link to a file elsewhere: appending to it, measuring it or cutting it is
    // refused naming the log, and the file it names keeps every byte.
    void aLinkedLogIsNeverWrittenThrough() {
        const fs::path run = makeRun("linked-log");
        const fs::path victim = base() / "victim.txt";
        test::writeFile(victim, "precious content\n");
        fs::create_symlink(victim, logFile(run));

        for (const std::string& message :
             {errorOf([&] { appendToRunFile(logFile(run), "{}\n"); }),
              errorOf([&] { truncateRunFile(logFile(run), 0); }), errorOf([&] { (void)runFileSize(logFile(run)); }),
              errorOf([&] { refuseLinksInRun(run); }), errorOf([&] { recoverInterruptedSwaps(run); })}) {
            QVERIFY2(mentions(message, logFile(run)) && message.find("symbolic link") != std::string::npos,
                     message.c_str());
        }
        QCOMPARE(test::readFile(victim), std::string("precious content\n"));
    }

    // run.json, the run folder and checkpoint/ are under the same rule.
    void otherLinksOfTheRunAreRefused() {
        const fs::path run = makeRun("linked-run-json");
        const fs::path elsewhere = base() / "elsewhere.json";
        test::writeFile(elsewhere, "keep");
        fs::remove(runInfoFile(run));
        fs::create_symlink(elsewhere, runInfoFile(run));
        const std::string viaWrite = errorOf([&] { writeRunInfo(run, RunInfo{}); });
        QVERIFY2(mentions(viaWrite, runInfoFile(run)), viaWrite.c_str());
        QCOMPARE(test::readFile(elsewhere), std::string("keep"));

        const fs::path target = makeRun("target-run");
        const fs::path linkedRun = base() / "linked-run";
        fs::create_directory_symlink(target, linkedRun);
        const std::string viaFolder = errorOf([&] { writeRunInfo(linkedRun, RunInfo{}); });
        QVERIFY2(mentions(viaFolder, linkedRun), viaFolder.c_str());
        QVERIFY2(mentions(errorOf([&] { refuseLinksInRun(linkedRun / ""); }), linkedRun), "a trailing separator");

        const fs::path checkpoints = base() / "checkpoints-elsewhere";
        fs::create_directories(checkpoints / "state");
        const fs::path withLinkedCheckpoint = makeRun("linked-checkpoint");
        fs::create_directory_symlink(checkpoints, checkpointDirectory(withLinkedCheckpoint));
        const std::string viaCheckpoint = errorOf([&] { recoverInterruptedSwaps(withLinkedCheckpoint); });
        QVERIFY2(mentions(viaCheckpoint, checkpointDirectory(withLinkedCheckpoint)), viaCheckpoint.c_str());
        QVERIFY(fs::exists(checkpoints / "state"));
    }

    void theLogIsAppendedMeasuredAndCut() {
        const fs::path run = makeRun("log");
        QCOMPARE(runFileSize(logFile(run)), std::uintmax_t{0});
        appendToRunFile(logFile(run), "{\"a\":1}\n");
        appendToRunFile(logFile(run), "{\"b\":2}\n");
        QCOMPARE(runFileSize(logFile(run)), std::uintmax_t{16});
        truncateRunFile(logFile(run), 8);
        QCOMPARE(test::readFile(logFile(run)), std::string("{\"a\":1}\n"));
        // Never made longer than it is (a damaged log_bytes would make a sparse file).
        QVERIFY(!errorOf([&] { truncateRunFile(logFile(run), 1000); }).empty());
        QCOMPARE(runFileSize(logFile(run)), std::uintmax_t{8});
        // A FIFO in the log's place is refused, not waited on.
        const fs::path fifo = run / "fifo.jsonl";
        QCOMPARE(::mkfifo(fifo.c_str(), 0600), 0);
        QVERIFY2(mentions(errorOf([&] { appendToRunFile(fifo, "x"); }), fifo), "FIFO");
        QVERIFY2(mentions(errorOf([&] { (void)runFileSize(fifo); }), fifo), "FIFO");
    }

    // A log with another name (a run folder copied with hard links): the copy keeps its bytes.
    void aHardLinkedLogIsCutAsItsOwnFile() {
        const fs::path run = makeRun("hard-linked");
        appendToRunFile(logFile(run), "line one\nline two\n");
        const fs::path copy = base() / "backup.jsonl";
        fs::create_hard_link(logFile(run), copy);
        truncateRunFile(logFile(run), 9);
        QCOMPARE(test::readFile(logFile(run)), std::string("line one\n"));
        QCOMPARE(test::readFile(copy), std::string("line one\nline two\n"));
        appendToRunFile(logFile(run), "line three\n");
        QCOMPARE(test::readFile(copy), std::string("line one\nline two\n"));
    }

    // The states a kill inside a swap leaves, and what becomes checkpoint/ and model/ again.
    void recoveryTakesBackTheNewestCompleteCopy() {
        const auto stateOf = [](const fs::path& folder) { return test::readFile(folder / "state.json"); };
        // checkpoint.new complete (its state.json exists), checkpoint.old the previous one.
        const fs::path a = makeRun("swap-new");
        for (const char* copy : {"checkpoint.new", "checkpoint.old"}) {
            fs::create_directories(a / copy);
            test::writeFile(a / copy / "state.json", copy);
        }
        recoverInterruptedSwaps(a);
        QCOMPARE(stateOf(checkpointDirectory(a)), std::string("checkpoint.new"));
        QVERIFY(!fs::exists(a / "checkpoint.new"));

        // checkpoint.new incomplete: checkpoint.old.
        const fs::path b = makeRun("swap-old");
        fs::create_directories(b / "checkpoint.new" / "model");
        fs::create_directories(b / "checkpoint.old");
        test::writeFile(b / "checkpoint.old" / "state.json", "old");
        recoverInterruptedSwaps(b);
        QCOMPARE(stateOf(checkpointDirectory(b)), std::string("old"));
        QVERIFY(fs::exists(b / "checkpoint.new" / "model"));  // the next checkpoint replaces it

        // A checkpoint in place is kept, whatever lies beside it.
        const fs::path c = makeRun("no-swap");
        for (const char* copy : {"checkpoint", "checkpoint.new"}) {
            fs::create_directories(c / copy);
            test::writeFile(c / copy / "state.json", copy);
        }
        recoverInterruptedSwaps(c);
        QCOMPARE(stateOf(checkpointDirectory(c)), std::string("checkpoint"));

        // The best model's swap: model.old (complete) becomes model/ when model/ is missing.
        const fs::path d = makeRun("model-swap");
        fs::create_directories(d / "model.old");
        test::writeFile(d / "model.old" / "config.json", "{}");
        fs::create_directories(d / "model.new");
        recoverInterruptedSwaps(d);
        QVERIFY(fs::exists(modelDirectory(d) / "config.json"));
        QVERIFY(!fs::exists(d / "model.old"));

        // Nothing to take back: nothing changes.
        const fs::path e = makeRun("nothing");
        recoverInterruptedSwaps(e);
        QVERIFY(!fs::exists(checkpointDirectory(e)) && !fs::exists(modelDirectory(e)));
    }

    void tablesRoundTrip() {
        const fs::path ids = base() / "ids.bin";
        const std::vector<std::uint32_t> table{0, 1, 2, 3, 4, 5};
        writeIdTable(ids, table, 3);
        QCOMPARE(readIdTable(ids, 2, 3, 6), table);
        const fs::path vectors = base() / "vectors.bin";
        const std::vector<float> values{0.5f, -1.0f, 2.0f, 3.0f};
        writeVectorTable(vectors, values);
        QCOMPARE(readVectorTable(vectors, 2, 2), values);
    }

    // Every id is checked against what it indexes: 0x7FFFFFFF in a table of six entries.
    void anIdOutOfRangeIsRefusedNamingTheFile() {
        const fs::path file = base() / "candidates.bin";
        writeIdTable(file, std::vector<std::uint32_t>{0, 1, 2, 0x7FFFFFFF}, 2);
        const std::string message = errorOf([&] { (void)readIdTable(file, 2, 2, 6); });
        QVERIFY2(mentions(message, file) && message.find("2147483647") != std::string::npos &&
                     message.find("row 1, column 1") != std::string::npos,
                 message.c_str());
        // The limit itself is out of range; one below it is in.
        writeIdTable(file, std::vector<std::uint32_t>{5, 6}, 1);
        QVERIFY(!errorOf([&] { (void)readIdTable(file, 2, 1, 6); }).empty());
        QVERIFY(errorOf([&] { (void)readIdTable(file, 2, 1, 7); }).empty());
    }

    void tablesOfAnotherShapeAreRefused() {
        const fs::path ids = base() / "shape-ids.bin";
        writeIdTable(ids, std::vector<std::uint32_t>{0, 1, 2, 3}, 2);
        for (const std::string& message : {errorOf([&] { (void)readIdTable(ids, 2, 4, 9); }),   // width
                                           errorOf([&] { (void)readIdTable(ids, 3, 2, 9); }),   // rows
                                           errorOf([&] { (void)readIdTable(ids, 1, 2, 9); })})  // rows
            QVERIFY2(mentions(message, ids), message.c_str());
        // Rows x width past 64 bits is no table ever written.
        const std::size_t huge = std::numeric_limits<std::size_t>::max() / 2;
        QVERIFY(mentions(errorOf([&] { (void)readIdTable(ids, huge, 4, 9); }), ids));

        const fs::path vectors = base() / "shape-vectors.bin";
        writeVectorTable(vectors, std::vector<float>{1, 2, 3, 4, 5, 6});
        // Vectors of a model of another dimension.
        QVERIFY(mentions(errorOf([&] { (void)readVectorTable(vectors, 2, 4); }), vectors));
        QVERIFY(mentions(errorOf([&] { (void)readVectorTable(vectors, 3, 3); }), vectors));
        writeVectorTable(vectors, std::vector<float>{1, std::numeric_limits<float>::quiet_NaN()});
        QVERIFY(mentions(errorOf([&] { (void)readVectorTable(vectors, 1, 2); }), vectors));
    }

    void damagedTablesAreRefused() {
        const fs::path file = base() / "damaged.bin";
        writeIdTable(file, std::vector<std::uint32_t>{1, 2, 3, 4}, 2);
        const std::string whole = test::readFile(file);
        for (const std::string& bytes : {whole.substr(0, 10), whole.substr(0, whole.size() - 1), whole + "x",
                                         "XSTABLE1" + whole.substr(8), std::string()}) {
            test::writeFile(file, bytes);
            const std::string message = errorOf([&] { (void)readIdTable(file, 2, 2, 9); });
            QVERIFY2(mentions(message, file), message.c_str());
        }
        // A count that claims more than the file holds.
        std::string claims = whole;
        claims[16] = '\xff';
        test::writeFile(file, claims);
        QVERIFY(mentions(errorOf([&] { (void)readIdTable(file, 2, 2, 9); }), file));
        // Missing, a folder, a FIFO (refused, not waited on).
        QVERIFY(mentions(errorOf([&] { (void)readIdTable(base() / "none.bin", 2, 2, 9); }), base() / "none.bin"));
        QVERIFY(mentions(errorOf([&] { (void)readIdTable(base(), 2, 2, 9); }), base()));
        const fs::path fifo = base() / "table.fifo";
        QCOMPARE(::mkfifo(fifo.c_str(), 0600), 0);
        QVERIFY(mentions(errorOf([&] { (void)readVectorTable(fifo, 1, 1); }), fifo));
    }
};

QTEST_APPLESS_MAIN(TestRunFiles)
#include "test_run_files.moc"
