// merge-shards refuses a shard that is missing, cut short or linked otherwise, naming it; a rerun
// links only the shards whose manifest is missing or whose part is damaged; --shard slurm. An
// input rewritten in place with its time restored is told by its CRC-32; manifests of the wrong
// shape and stray files in the shards' folder are refused by name, and so is an output that would
// replace a shard's file (test_shard_manifest: every field of the manifest).
#include <QProcess>
#include <QProcessEnvironment>
#include <QStringList>

#include <chrono>
#include <filesystem>
#include <string>

#include <nlohmann/json.hpp>

#include "cli_runner.h"
#include "fixtures.h"
#include "link_shard_runner.h"

using namespace linkscope;
using test::demoCorpus;
using test::linkArguments;
using test::q;
using test::runShards;
namespace fs = std::filesystem;

class TestCliLinkShardChecks : public QObject {
    Q_OBJECT
private Q_SLOTS:
    // A shard killed while writing leaves a temporary file and no manifest; a part cut short
    // no longer has its manifest's size: merge-shards refuses both, naming the shard.
    void mergeRefusesMissingOrCutShards() {
        test::FixtureDir dir;
        const fs::path corpus = dir.write("corpus.txt", demoCorpus());
        const fs::path shards = dir.path("shards");
        QVERIFY(runShards(corpus, shards, 4).size() == 4);
        const fs::path merged = dir.path("merged.txt");

        fs::remove(shards / "shard-00002-of-00004.json");
        dir.write("shards/shard-00002-of-00004.json.tmp-99999-1", "{\"format\": \"linkscope-link-sh");
        auto r = test::runCli({"merge-shards", q(shards), "--out", q(merged)});
        QVERIFY(r.exitCode != 0);
        QVERIFY2(r.err.contains("shard 2 of 4") && r.err.contains("no manifest"), r.err.constData());
        QVERIFY(!fs::exists(merged));

        // The rerun links only shard 2.
        const QStringList outputs = runShards(corpus, shards, 4);
        QVERIFY2(outputs.size() == 4, qPrintable(outputs.join("\n")));
        for (int i = 0; i < 4; ++i) QVERIFY2(outputs[i].contains("already linked") == (i != 2), qPrintable(outputs[i]));
        r = test::runCli({"merge-shards", q(shards), "--out", q(merged)});
        QVERIFY2(r.exitCode == 0, r.err.constData());

        const fs::path part = shards / "shard-00001-of-00004.pubtator";
        fs::resize_file(part, fs::file_size(part) / 2);
        r = test::runCli({"merge-shards", q(shards), "--out", q(dir.path("again.txt"))});
        QVERIFY(r.exitCode != 0);
        QVERIFY2(r.err.contains("shard 1 of 4") && r.err.contains("cut short"), r.err.constData());
        // A rerun sees the damaged part and links shard 1 again.
        const QStringList again = runShards(corpus, shards, 4);
        QVERIFY2(again.size() == 4 && !again[1].contains("already linked"), qPrintable(again.join("\n")));

        // A part changed in place (same size, other bytes): the rerun checks its CRC-32, not its
        // size and time, and links shard 3 again.
        std::string bytes = test::readFile(shards / "shard-00003-of-00004.pubtator");
        bytes[bytes.size() / 2] = bytes[bytes.size() / 2] == 'x' ? 'y' : 'x';
        dir.write("shards/shard-00003-of-00004.pubtator", bytes);
        const QStringList third = runShards(corpus, shards, 4);
        QVERIFY2(third.size() == 4, qPrintable(third.join("\n")));
        for (int i = 0; i < 4; ++i) QVERIFY2(third[i].contains("already linked") == (i != 3), qPrintable(third[i]));
        r = test::runCli({"merge-shards", q(shards), "--out", q(dir.path("third.txt"))});
        QVERIFY2(r.exitCode == 0, r.err.constData());
        QCOMPARE(test::readFile(dir.path("third.txt")), test::readFile(merged));
    }

    // The input rewritten in place, same size, its time restored: a rerun links every shard
    // again (the manifest's CRC-32 of the input differs), and merge-shards refuses shards linked
    // from the bytes the input no longer holds, naming it.
    void inputRewrittenInPlaceIsTold() {
        test::FixtureDir dir;
        const fs::path corpus = dir.write("corpus.txt", demoCorpus());
        const fs::path shards = dir.path("shards");
        QVERIFY(runShards(corpus, shards, 2).size() == 2);
        const auto rewrite = [&](const std::string& from, const std::string& to) {
            const auto time = fs::last_write_time(corpus);
            std::string text = test::readFile(corpus);
            const auto at = text.find(from);
            QVERIFY(at != std::string::npos && from.size() == to.size());
            text.replace(at, from.size(), to);
            test::writeFile(corpus, text);
            fs::last_write_time(corpus, time);
            QVERIFY(fs::last_write_time(corpus) == time);
        };
        rewrite("by spirometry", "by spirometri");

        // Both shards are linked again, and merged they are one run on the bytes the input holds.
        QProcess process;
        process.start(QStringLiteral(LINKSCOPE_CLI_PATH), linkArguments(corpus, shards, {"--shard", "1/2"}));
        QVERIFY(process.waitForFinished(60000));
        QVERIFY(process.exitCode() == 0);
        const QByteArray note = process.readAllStandardError();
        QVERIFY2(note.contains("CRC-32") && note.contains("linking the shard again"), note.constData());
        const QStringList outputs = runShards(corpus, shards, 2);
        QVERIFY2(outputs.size() == 2, qPrintable(outputs.join("\n")));
        QVERIFY2(!outputs[0].contains("already linked") && outputs[1].contains("already linked"),
                 qPrintable(outputs.join("\n")));
        auto r = test::runCli({"merge-shards", q(shards), "--out", q(dir.path("merged.txt"))});
        QVERIFY2(r.exitCode == 0, r.err.constData());
        r = test::runCli(linkArguments(corpus, dir.path("one.txt")));
        QVERIFY2(r.exitCode == 0, r.err.constData());
        QCOMPARE(test::readFile(dir.path("merged.txt")), test::readFile(dir.path("one.txt")));
        QVERIFY(test::readFile(dir.path("merged.txt")).find("by spirometri") != std::string::npos);

        // Touched only (same bytes, another time): the shards stand, and merge.
        fs::last_write_time(corpus, fs::last_write_time(corpus) + std::chrono::hours(1));
        const QStringList touched = runShards(corpus, shards, 2);
        QVERIFY2(touched.size() == 2 && touched[0].contains("already linked") && touched[1].contains("already linked"),
                 qPrintable(touched.join("\n")));
        r = test::runCli({"merge-shards", q(shards), "--out", q(dir.path("touched.txt"))});
        QVERIFY2(r.exitCode == 0, r.err.constData());

        // Rewritten again after the shards: merge-shards refuses, naming the input.
        rewrite("by spirometri", "by spirometry");
        r = test::runCli({"merge-shards", q(shards), "--out", q(dir.path("again.txt"))});
        QVERIFY(r.exitCode != 0);
        QVERIFY2(r.err.contains(q(fs::absolute(corpus).lexically_normal()).toUtf8()) && r.err.contains("CRC-32"),
                 r.err.constData());
        QVERIFY(!fs::exists(dir.path("again.txt")));
        // Moved away: refused too (the bytes linked cannot be checked).
        fs::rename(corpus, dir.path("moved.txt"));
        r = test::runCli({"merge-shards", q(shards), "--out", q(dir.path("again.txt"))});
        QVERIFY(r.exitCode != 0);
        QVERIFY2(r.err.contains("corpus.txt") && r.err.contains("missing"), r.err.constData());
    }

    // Manifests of the wrong shape, or that are not files: merge-shards refuses each naming the
    // manifest and what is wrong, and writes nothing; a rerun links a damaged shard again, and
    // refuses to write through a link.
    void malformedManifestsAreRefusedByName() {
        test::FixtureDir dir;
        const fs::path corpus = dir.write("corpus.txt", demoCorpus());
        const fs::path shards = dir.path("shards");
        QVERIFY(runShards(corpus, shards, 2).size() == 2);
        const fs::path manifest = shards / "shard-00001-of-00002.json";
        const std::string original = test::readFile(manifest);
        const nlohmann::json valid = nlohmann::json::parse(original);
        QVERIFY(valid["command"].size() > 4 && valid["command"][1] == "link");  // the command line recorded
        const fs::path merged = dir.path("merged.txt");
        const auto refused = [&](const char* fragment) {
            const auto r = test::runCli({"merge-shards", q(shards), "--out", q(merged)});
            const bool ok = r.exitCode != 0 && r.err.contains("shard-00001-of-00002.json") &&
                            r.err.contains(fragment) && !r.err.contains("type_error") && !fs::exists(merged);
            if (!ok) qWarning("%s", r.err.constData());
            return ok;
        };
        const auto damaged = [&](const char* key, const nlohmann::json& value) {
            nlohmann::json m = valid;
            m[key] = value;
            test::writeFile(manifest, m.dump(2));
        };
        damaged("counts", nlohmann::json::array({1, 2}));
        QVERIFY(refused("\"counts\" is an array"));
        damaged("counts", "many");
        QVERIFY(refused("\"counts\" is \"many\""));
        damaged("part", "shard-00001-of-00002.pubtator");
        QVERIFY(refused("\"part\""));
        damaged("shard", -1);
        QVERIFY(refused("\"shard\""));
        damaged("shards", 1e30);
        QVERIFY(refused("\"shards\""));
        nlohmann::json m = valid;
        m["counts"]["mentions"] = m["counts"]["mentions"].get<std::size_t>() + 1;
        test::writeFile(manifest, m.dump(2));
        QVERIFY(refused("\"counts."));  // the counts no longer add up
        m = valid;
        m.erase("linker");
        test::writeFile(manifest, m.dump(2));
        QVERIFY(refused("no \"linker\""));
        test::writeFile(manifest, original.substr(0, original.size() / 2));
        QVERIFY(refused("not valid JSON"));

        // A rerun links the damaged shard again, with a note saying why.
        auto r = test::runCli(linkArguments(corpus, shards, {"--shard", "1/2"}));
        QVERIFY2(r.exitCode == 0 && r.err.contains("linking the shard again") && !r.out.contains("already linked"),
                 r.err.constData());
        QCOMPARE(nlohmann::json::parse(test::readFile(manifest))["counts"], valid["counts"]);

        // Not a file: a link (to a valid manifest), a folder.
        fs::rename(manifest, dir.path("saved.json"));
        fs::create_symlink(dir.path("saved.json"), manifest);
        QVERIFY(refused("symbolic link"));
        r = test::runCli(linkArguments(corpus, shards, {"--shard", "1/2"}));
        QVERIFY2(r.exitCode != 0 && r.err.contains("symbolic link"), r.err.constData());
        QVERIFY(fs::is_symlink(manifest));  // not written through
        fs::remove(manifest);
        fs::create_directory(manifest);
        QVERIFY(refused("folder"));
        fs::remove(manifest);
        fs::rename(dir.path("saved.json"), manifest);
        r = test::runCli({"merge-shards", q(shards), "--out", q(merged)});
        QVERIFY2(r.exitCode == 0, r.err.constData());
        fs::remove(merged);

        // Parts swapped: each manifest finds the other's bytes.
        const fs::path part0 = shards / "shard-00000-of-00002.pubtator";
        const fs::path part1 = shards / "shard-00001-of-00002.pubtator";
        fs::rename(part0, dir.path("part0"));
        fs::rename(part1, part0);
        fs::rename(dir.path("part0"), part1);
        r = test::runCli({"merge-shards", q(shards), "--out", q(merged)});
        QVERIFY2(r.exitCode != 0 && r.err.contains("shard 0 of 2"), r.err.constData());
        QVERIFY(!fs::exists(merged));
    }

    // Files named as shards' that are not this run's: numbered past N, or a part of another format.
    void strayShardFilesAreRefused() {
        test::FixtureDir dir;
        const fs::path corpus = dir.write("corpus.txt", demoCorpus());
        const fs::path shards = dir.path("shards");
        QVERIFY(runShards(corpus, shards, 2).size() == 2);
        const fs::path merged = dir.path("merged.txt");
        dir.write("shards/notes.txt", "the run of Monday");  // other files are left alone
        auto r = test::runCli({"merge-shards", q(shards), "--out", q(merged)});
        QVERIFY2(r.exitCode == 0, r.err.constData());
        fs::remove(merged);

        fs::copy_file(shards / "shard-00001-of-00002.json", shards / "shard-00002-of-00002.json");
        r = test::runCli({"merge-shards", q(shards), "--out", q(merged)});
        QVERIFY(r.exitCode != 0);
        QVERIFY2(r.err.contains("shard-00002-of-00002.json") && r.err.contains("does not exist"), r.err.constData());
        fs::remove(shards / "shard-00002-of-00002.json");

        dir.write("shards/shard-00001-of-00002.bioc.xml", "<collection/>\n");
        r = test::runCli({"merge-shards", q(shards), "--out", q(merged)});
        QVERIFY(r.exitCode != 0);
        QVERIFY2(r.err.contains("shard-00001-of-00002.bioc.xml") && r.err.contains("another format"),
                 r.err.constData());
        QVERIFY(!fs::exists(merged));
    }

    // An --out that would replace a shard's part or manifest (through ./, a link to the folder or
    // a link to the file) or is the folder is refused before any work, naming the file; another
    // file of the folder may be the output, and the next merge leaves it alone.
    void outputOverAShardIsRefused() {
        test::FixtureDir dir;
        const fs::path corpus = dir.write("corpus.txt", demoCorpus());
        const fs::path shards = dir.path("shards");
        QVERIFY(runShards(corpus, shards, 2).size() == 2);
        const fs::path part = shards / "shard-00001-of-00002.pubtator";
        const fs::path manifest = shards / "shard-00000-of-00002.json";
        const std::string partBytes = test::readFile(part);
        const std::string manifestBytes = test::readFile(manifest);
        fs::create_directory_symlink(shards, dir.path("linked"));
        fs::create_symlink(part, dir.path("to-part.txt"));
        const auto refused = [&](const fs::path& out, const char* fragment) {
            const auto r = test::runCli({"merge-shards", q(shards), "--out", q(out)});
            const bool ok =
                r.exitCode != 0 && r.err.contains(q(out).toUtf8()) && r.err.contains(fragment) && r.out.isEmpty();
            if (!ok) qWarning("%s", r.err.constData());
            return ok;
        };
        QVERIFY(refused(part, "shard's part or manifest"));
        QVERIFY(refused(shards / "." / "shard-00000-of-00002.json", "shard's part or manifest"));
        QVERIFY(refused(dir.path("linked") / "shard-00001-of-00002.pubtator", "shard's part or manifest"));
        QVERIFY(refused(dir.path("to-part.txt"), "shard's part or manifest"));
        // A name of another run's shard: the next merge would find shards of two N.
        QVERIFY(refused(shards / "shard-00004-of-00009.bioc.xml", "shard's part or manifest"));
        QVERIFY(refused(dir.path("linked") / ".", "the shards' folder"));
        QCOMPARE(test::readFile(part), partBytes);
        QCOMPARE(test::readFile(manifest), manifestBytes);
        QVERIFY(!fs::exists(shards / "shard-00004-of-00009.bioc.xml"));

        auto r = test::runCli({"merge-shards", q(shards), "--out", q(dir.path("outside.txt"))});
        QVERIFY2(r.exitCode == 0, r.err.constData());
        r = test::runCli({"merge-shards", q(shards), "--out", q(shards / "merged.txt")});
        QVERIFY2(r.exitCode == 0, r.err.constData());
        QCOMPARE(test::readFile(shards / "merged.txt"), test::readFile(dir.path("outside.txt")));
        r = test::runCli({"merge-shards", q(dir.path("linked")), "--out", q(dir.path("again.txt"))});
        QVERIFY2(r.exitCode == 0, r.err.constData());
        QCOMPARE(test::readFile(dir.path("again.txt")), test::readFile(dir.path("outside.txt")));
    }

    // `index --kb` alone writes the dictionary link searches: every shard loads the one index.
    void shardsLoadOnePrebuiltIndex() {
        test::FixtureDir dir;
        const fs::path corpus = dir.write("corpus.txt", demoCorpus());
        const fs::path index = dir.path("kb.sparse");
        auto r = test::runCli({"index", "--kb", test::demoFile("demo-kb.txt"), "--sparse-index", q(index)});
        QVERIFY2(r.exitCode == 0, r.err.constData());
        r = test::runCli(linkArguments(corpus, dir.path("built.txt")));
        QVERIFY2(r.exitCode == 0, r.err.constData());
        r = test::runCli(linkArguments(corpus, dir.path("loaded.txt"), {"--index", q(index)}));
        QVERIFY2(r.exitCode == 0, r.err.constData());
        QVERIFY2(r.err.contains("Loading sparse index") && !r.err.contains("Building sparse index"), r.err.constData());
        QCOMPARE(test::readFile(dir.path("loaded.txt")), test::readFile(dir.path("built.txt")));
        const auto indexTime = fs::last_write_time(index);
        QVERIFY(runShards(corpus, dir.path("shards"), 2, {"--index", q(index)}).size() == 2);
        QVERIFY(fs::last_write_time(index) == indexTime);  // read, never written again
        r = test::runCli({"merge-shards", q(dir.path("shards")), "--out", q(dir.path("merged.txt"))});
        QVERIFY2(r.exitCode == 0, r.err.constData());
        QCOMPARE(test::readFile(dir.path("merged.txt")), test::readFile(dir.path("built.txt")));
    }

    // A shard linked with other settings (or read from another corpus) is refused by name.
    void mergeRefusesMismatchedShards() {
        test::FixtureDir dir;
        const fs::path corpus = dir.write("corpus.txt", demoCorpus());
        const fs::path shards = dir.path("shards");
        QVERIFY(runShards(corpus, shards, 4).size() == 4);
        auto r = test::runCli(linkArguments(corpus, shards, {"--shard", "3/4", "--nil-below", "0.5"}));
        QVERIFY2(r.exitCode == 0, r.err.constData());
        QVERIFY2(!r.out.contains("already linked"), r.out.constData());
        r = test::runCli({"merge-shards", q(shards), "--out", q(dir.path("merged.txt"))});
        QVERIFY(r.exitCode != 0);
        QVERIFY2(r.err.contains("shard 3 of 4") && r.err.contains("other settings"), r.err.constData());

        // A shard of another N in the folder: two runs mixed.
        r = test::runCli(linkArguments(corpus, shards, {"--shard", "0/2"}));
        QVERIFY2(r.exitCode == 0, r.err.constData());
        r = test::runCli({"merge-shards", q(shards), "--out", q(dir.path("merged.txt"))});
        QVERIFY(r.exitCode != 0);
        QVERIFY2(r.err.contains("different N"), r.err.constData());
    }

    // --shard slurm reads the job array's variables; a bad --shard is refused before any work.
    void slurmShardAndBadShards() {
        test::FixtureDir dir;
        const fs::path corpus = dir.write("corpus.txt", demoCorpus());
        QProcess process;
        QProcessEnvironment environment = QProcessEnvironment::systemEnvironment();
        environment.insert("SLURM_ARRAY_TASK_ID", "11");
        environment.insert("SLURM_ARRAY_TASK_MIN", "10");
        environment.insert("SLURM_ARRAY_TASK_MAX", "12");
        process.setProcessEnvironment(environment);
        process.start(QStringLiteral(LINKSCOPE_CLI_PATH),
                      linkArguments(corpus, dir.path("shards"), {"--shard", "slurm"}));
        QVERIFY(process.waitForFinished(60000));
        QVERIFY2(process.exitCode() == 0, process.readAllStandardError().constData());
        QVERIFY(fs::exists(dir.path("shards") / "shard-00001-of-00003.json"));

        for (const char* bad : {"4/4", "1/0", "x/2", "2"}) {
            const auto r = test::runCli(linkArguments(corpus, dir.path("bad"), {"--shard", bad}));
            QVERIFY(r.exitCode != 0);
            QVERIFY2(r.err.contains("--shard"), r.err.constData());
        }
        QVERIFY(!fs::exists(dir.path("bad")));
    }
};

QTEST_GUILESS_MAIN(TestCliLinkShardChecks)
#include "test_cli_link_shard_checks.moc"
